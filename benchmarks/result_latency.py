"""From a game's end on Lichess to the bot's post in the match thread: streamed against polled.

A round of `--matches` matches (Alice-and-Bob-like pairs, every match at its agreed time, its
game link posted) on the fake Lichess, the real bot with its real scheduler (the outbox
flushed every `jobs.outbox_flush_seconds`, the results job every `jobs.results_poll_seconds`)
and its recorded Discord. `--games` games end one by one at random moments over `--window`
seconds (each match's games in order, results alternating so that no match is decided before
its last game); for each, the time from the moment the fake Lichess ends it to the moment the
match's scoreboard in the thread shows it. Two runs: **streamed** (`jobs.results_stream` on:
Lichess's game stream, the poll a safety net) and **polled** (the stream off: the results job
alone, at `--poll-seconds`, by default 30, the shortest the config allows; the default of
120 s waits four times as long). Prints p50, p99 and the worst per run, and the Lichess
requests per match (game exports, single-game reads, stream opens) during the run.

Run: .venv/bin/python benchmarks/result_latency.py [--games 100] [--matches 20]
     [--window 60] [--poll-seconds 30] [--modes streamed,polled]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acwc_sim.fake_lichess import FakeLichess, fake_lichess
from acwc_sim.harness import DiscordHarness, discord_harness
from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config, DiscordConfig, JobsConfig, Secrets, load_config
from bot.lichess.client import LichessClient
from db import migrate
from tests.factories import ROUND_THREAD, seed_round
from tests.results_helpers import AGREED, play, schedule

GUILD, TD, TD_ALERTS = 5000, 5001, 5002
FIRST_USER = 10_000


def bench_config(url: str, fake: FakeLichess, *, streamed: bool, poll_seconds: int) -> Config:
    base = load_config(None, environ={"DATABASE_URL": url, "LICHESS_BASE_URL": fake.base_url})
    return base.model_copy(
        update={
            "discord": DiscordConfig(
                guild_id=GUILD, td_user_ids=(TD,), td_alert_channel_id=TD_ALERTS
            ),
            "jobs": JobsConfig(results_poll_seconds=poll_seconds, results_stream=streamed),
        }
    )


async def one_run(args: argparse.Namespace, mode: str) -> tuple[list[float], dict[str, int]]:
    """The latencies (seconds) of every game, and the Lichess requests by kind."""
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/bench.db"
        await migrate.upgrade(url)
        async with fake_lichess(seed=1) as fake:
            config = bench_config(
                url, fake, streamed=mode == "streamed", poll_seconds=args.poll_seconds
            )
            clock = FakeClock(AGREED - timedelta(minutes=1))
            lichess = LichessClient(base_url=fake.base_url, timeout=10.0)
            bot = ChampionshipBot(
                config,
                Secrets(),
                clock=clock,
                lichess=lichess,
                sync_commands=False,
                check_setup=False,
                start_scheduler=False,
            )
            async with discord_harness(bot, run_setup_hook=True, guild_id=GUILD) as h:
                return await measure(args, mode, bot, h, fake, clock, config, rng)


async def measure(
    args: argparse.Namespace,
    mode: str,
    bot: ChampionshipBot,
    h: DiscordHarness,
    fake: FakeLichess,
    clock: FakeClock,
    config: Config,
    rng: random.Random,
) -> tuple[list[float], dict[str, int]]:
    assert bot.sessions is not None and bot.outbox is not None
    h.add_text_channel(TD_ALERTS, "td-alerts")
    h.add_text_channel(ROUND_THREAD, "round-1")
    players = []
    for index in range(args.matches * 2):
        name = f"Player{index:03d}"
        players.append((FIRST_USER + index, name))
        h.add_member(FIRST_USER + index, name.lower())
    seeded = await seed_round(bot.sessions, config, players)
    for _, name in players:
        fake.add_user(name, created_at=AGREED - timedelta(days=900))
    for match_id in seeded.match_ids:
        await schedule(bot.sessions, match_id)
    clock.set(AGREED + timedelta(minutes=1))
    await bot.svc.results.create_due_challenges()
    await bot.outbox.flush()

    # The games: each match's in order, spread at random over the window.
    per_match = -(-args.games // args.matches)
    plan = []
    for index in range(args.games):
        pair = index % args.matches
        number = index // args.matches + 1
        plan.append((pair, number))
    moments = sorted(rng.uniform(0, args.window) for _ in plan)

    before = list(fake.requests)
    bot.start_scheduler = True
    bot._start_jobs()  # the live bot's jobs, the game stream with them when it is on
    stream = bot.svc.results.stream
    if mode == "streamed":
        assert stream is not None
        for _ in range(1000):  # ten seconds at most for Lichess to accept
            if stream.connections:
                break
            await asyncio.sleep(0.01)
        assert stream.connections, "the game stream did not open"

    ended: dict[str, float] = {}
    shown: dict[str, float] = {}

    async def watch() -> None:
        while len(shown) < args.games:
            text = "\n".join(m.text for m in h.in_channel(ROUND_THREAD))
            now = time.perf_counter()
            for gid in list(ended):
                if gid not in shown and gid in text:
                    shown[gid] = now
            await asyncio.sleep(0.005)

    watcher = asyncio.create_task(watch())
    start = time.perf_counter()
    for (pair, number), at in zip(plan, moments, strict=True):
        wait = start + at - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        a, b = players[2 * pair][1], players[2 * pair + 1][1]
        result = 0.5 if number == per_match else (1.0 if number % 2 else 0.0)
        game = play(fake, number, a=a, b=b, result_a=result)
        ended[game["id"]] = time.perf_counter()
    limit = args.poll_seconds * 2 + 30
    try:
        await asyncio.wait_for(watcher, timeout=limit)
    except TimeoutError:
        print(f"  {mode}: {args.games - len(shown)} games not shown within {limit} s")
    await bot.drain()
    requests = fake.requests[len(before) :]
    kinds = {
        "game exports": sum(1 for _m, p, _q in requests if p.startswith("/api/games/user/")),
        "single games": sum(1 for _m, p, _q in requests if p.startswith("/game/export/")),
        "stream opens": sum(1 for _m, p, _q in requests if p == "/api/stream/games-by-users"),
    }
    return [shown[g] - ended[g] for g in shown], kinds


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--window", type=float, default=60.0)
    parser.add_argument("--poll-seconds", type=int, default=30)
    parser.add_argument("--modes", default="streamed,polled")
    args = parser.parse_args()
    print(
        f"{args.games} games over {args.window:g} s in {args.matches} matches; "
        f"poll every {args.poll_seconds} s when polled"
    )
    for mode in args.modes.split(","):
        latencies, kinds = asyncio.run(one_run(args, mode))
        total = sum(kinds.values())
        print(
            f"{mode}: {len(latencies)} games; game end to thread post p50 "
            f"{statistics.median(latencies) * 1000:.0f} ms, p99 {pct(latencies, 0.99) * 1000:.0f}"
            f" ms, worst {max(latencies) * 1000:.0f} ms; Lichess requests {total} "
            f"({total / args.matches:.1f} per match: "
            + ", ".join(f"{k} {v}" for k, v in kinds.items())
            + ")"
        )


if __name__ == "__main__":
    main()
