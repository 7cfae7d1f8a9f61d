"""Latency of the main commands through the real command tree, on a big championship.

The database holds 500 approved players and a whole Swiss history: every round but the last
finished (each match played game by game until the rules end it, its games stored, the
messages of that history in the outbox and the audit log), the last round published and
negotiating. Each command then runs through the Discord harness (the bot's real command
tree, discord.py's real code paths, Discord's HTTP recorded) as a player or the TD would run
it: `/offer` and `/accept` (each on a match of its own, so each really agrees a time),
`/match`, `/standings` (with its picture) and `/td registration list`. Two figures per sample:
the answer (from the interaction to the bot's reply, what the player waits for) and the
whole command (to the end of its handler: the further messages of a long answer and the
outbox flush it kicks off, e.g. the edit of the round's pairings post, included). Each run
prints p50, p99 and the worst sample per command; the last lines give the median and the
worst of the runs' p99.

Run: .venv/bin/python benchmarks/latency.py [--runs 3] [--samples 60]
     [--database-url postgresql+asyncpg://user:pass@host/db]   (default: a temporary SQLite
     file; the database is migrated with db.migrate and must be empty)
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import discord
from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acwc_sim.harness import DiscordHarness, discord_harness
from benchmarks.swiss_fill import pair, play
from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config, DiscordConfig, Secrets, load_config
from bot.features.negotiation.deadlines import schedule_match_deadlines
from bot.rules.match import match_points
from bot.rules.swiss import number_of_rounds
from db import migrate
from db.engine import make_engine, make_sessionmaker, transaction
from db.models import (
    AuditEntry,
    Game,
    Match,
    MatchState,
    OutboxKind,
    OutboxMessage,
    Player,
    Registration,
    RegistrationState,
    Round,
    RoundState,
    Setting,
    Stage,
    StageKind,
    StageState,
)

PLAYERS = 500
GUILD, TD, TD_ALERTS, ANNOUNCE, PAIRINGS = 5000, 5001, 5002, 5003, 5004
FIRST_USER = 10_000
COMMANDS = ("offer", "accept", "match", "standings", "td registration list")


def bench_config(url: str) -> Config:
    base = load_config(None, environ={"DATABASE_URL": url})
    return base.model_copy(
        update={
            "discord": DiscordConfig(
                guild_id=GUILD,
                td_user_ids=(TD,),
                td_alert_channel_id=TD_ALERTS,
                announcement_channel_id=ANNOUNCE,
                pairings_channel_id=PAIRINGS,
            )
        }
    )


async def seed(sessions: async_sessionmaker[AsyncSession], config: Config) -> datetime:
    """The championship above; returns the moment the commands run (the last round's
    Monday, an hour in)."""
    rng = random.Random(2019)
    start = config.swiss.first_round_start
    rounds = number_of_rounds(PLAYERS)
    async with transaction(sessions) as session:
        players = [
            Player(
                lichess_id=f"player{i:03d}",
                lichess_username=f"Player{i:03d}",
                discord_id=FIRST_USER + i,
                seeding_rating=2400.0 - i,
                created_at=start - timedelta(days=30),
            )
            for i in range(PLAYERS)
        ]
        session.add_all(players)
        await session.flush()
        session.add_all(
            Registration(
                player_id=p.id,
                state=RegistrationState.APPROVED,
                problems=[],
                evidence={},
                seeding_rating=p.seeding_rating,
                created_at=p.created_at,
                updated_at=p.created_at,
            )
            for p in players
        )
        stage = Stage(
            kind=StageKind.SWISS,
            key="swiss",  # the 2019 format's Swiss (a stage row is its format stage)
            name="Qualification",
            position=0,
            state=StageState.RUNNING,
            total_rounds=rounds,
            seeding=[p.id for p in players],
            started_at=start,
        )
        session.add(stage)
        await session.flush()
        points = {p.id: 0.0 for p in players}
        met: set[tuple[int, int]] = set()
        for number in range(1, rounds + 1):
            begins = start + timedelta(days=7 * (number - 1))
            last = number == rounds
            round_ = Round(
                stage_id=stage.id,
                number=number,
                state=RoundState.PUBLISHED if last else RoundState.FINISHED,
                starts_at=begins,
                deadline=begins + timedelta(days=7, seconds=-1),
                published_at=begins,
                post_channel_id=PAIRINGS,
                post_message_id=900_000 + number,
                thread_id=800_000 + number,
            )
            session.add(round_)
            await session.flush()
            order = sorted(players, key=lambda p: (-points[p.id], -(p.seeding_rating or 0)))
            await add_matches(session, rng, round_, pair(order, met), points, config, last)
        await add_history(session, start, rounds)
    return start + timedelta(days=7 * (rounds - 1), hours=1)


async def add_matches(
    session: AsyncSession,
    rng: random.Random,
    round_: Round,
    pairs: list[tuple[Player, Player]],
    points: dict[int, float],
    config: Config,
    negotiating: bool,
) -> None:
    for board, (a, b) in enumerate(pairs, start=1):
        match = Match(round_id=round_.id, player_a_id=a.id, player_b_id=b.id, board=board,
                      state=MatchState.NEGOTIATING, td_assigns=False, score_a=0.0, score_b=0.0,
                      message_id=700_000 + round_.number * 1000 + board)  # fmt: skip
        session.add(match)
        await session.flush()
        if negotiating:
            await schedule_match_deadlines(session, match, round_, config)
            continue
        agreed = round_.starts_at + timedelta(days=2, hours=18 + board % 5)
        results = play(rng, a, b)
        for number, result in enumerate(results, start=1):
            white, black = (a, b) if number % 2 else (b, a)
            session.add(Game(match_id=match.id, lichess_id=f"g{match.id:05d}{number:02d}",
                             number=number, white_player_id=white.id, black_player_id=black.id,
                             status="variantEnd", winner=None if result == 0.5 else "white",
                             result_a=result, counted=True, flagged=False,
                             created_at=agreed + timedelta(minutes=10 * number),
                             ended_at=agreed + timedelta(minutes=10 * number + 8)))  # fmt: skip
        match.score_a, match.score_b = sum(results), sum(1 - r for r in results)
        match.points_a, match.points_b = match_points(match.score_a, match.score_b)
        match.state, match.agreed_time = MatchState.FINISHED, agreed
        match.finished_at = agreed + timedelta(hours=2)
        points[a.id] += match.points_a
        points[b.id] += match.points_b
    await session.flush()


async def add_history(session: AsyncSession, start: datetime, rounds: int) -> None:
    """What the Swiss so far left in the outbox and the audit log: a few sent messages and
    entries per player and round, as tables of that size look after the real thing."""
    outbox, audit = [], []
    for number in range(1, rounds):
        at = start + timedelta(days=7 * (number - 1))
        for i in range(PLAYERS):
            for part in range(6):
                outbox.append({"kind": OutboxKind.DM, "target_id": FIRST_USER + i,
                               "content": f"round {number} message {part}", "embeds": [],
                               "created_at": at, "next_attempt_at": at, "sent_at": at,
                               "attempts": 1, "discord_message_id": 1})  # fmt: skip
            audit.append({"at": at, "actor_type": "job", "actor_id": None,
                          "action": "game_recorded", "subject_type": "match",
                          "subject_id": i, "details": {}})  # fmt: skip
    await session.execute(insert(OutboxMessage), outbox)
    await session.execute(insert(AuditEntry), audit)


Sample = tuple[float, float]  # ms until the answer, ms until the end of the command


class AnswerClock:
    """When the bot answered the interaction under way: the first reply, deferral or form
    discord.py sends for it (`InteractionResponse` is wrapped for the benchmark only)."""

    def __init__(self) -> None:
        self.answered: float | None = None
        for name in ("send_message", "defer", "send_modal", "edit_message"):
            original = getattr(discord.InteractionResponse, name)
            setattr(discord.InteractionResponse, name, self._stamped(original))

    def _stamped(self, original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def stamped(*args: Any, **kwargs: Any) -> Any:
            result = await original(*args, **kwargs)
            if self.answered is None:
                self.answered = time.perf_counter()
            return result

        return stamped

    async def timed(self, run: Callable[[], Awaitable[Any]]) -> Sample:
        self.answered = None
        began = time.perf_counter()
        await run()
        ended = time.perf_counter()
        answered = self.answered if self.answered is not None else ended
        return (answered - began) * 1000, (ended - began) * 1000


async def one_run(h: DiscordHarness, clock: AnswerClock, matches: list[tuple[int, int]],
                  samples: int, wednesday: datetime) -> dict[str, list[Sample]]:  # fmt: skip
    """`samples` of each command; /offer and /accept each on one of `matches` (used up)."""
    found: dict[str, list[Sample]] = {c: [] for c in COMMANDS}

    async def checked(name: str, user: int, **options: Any) -> None:
        record = await h.slash(name, user=user, options=options)
        if record.failed or record.errors or not record.text:
            raise RuntimeError(f"/{name} did not answer as it should: {record.text[:200]!r}")

    timed = clock.timed
    for k in range(samples):
        a, b = matches.pop()
        when = f"{wednesday + timedelta(hours=k % 4):%Y-%m-%d %H:%M}"
        found["offer"].append(await timed(lambda a=a, when=when: checked("offer", a, times=when)))
        found["accept"].append(await timed(lambda b=b: checked("accept", b)))
        found["match"].append(await timed(lambda a=a: checked("match", a)))
        found["standings"].append(await timed(lambda b=b: checked("standings", b)))
        found["td registration list"].append(
            await timed(lambda: checked("td registration list", TD))
        )
    return found


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98]


async def main(url: str | None, runs: int, samples: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = url or f"sqlite+aiosqlite:///{Path(folder) / 'latency.sqlite3'}"
        await migrate.upgrade(url)
        config = bench_config(url)
        engine = make_engine(url)
        began = time.perf_counter()
        now = await seed(make_sessionmaker(engine), config)
        await engine.dispose()
        print(f"seeded {PLAYERS} players and {number_of_rounds(PLAYERS) - 1} finished rounds "
              f"in {time.perf_counter() - began:.0f} s ({url.split(':')[0]})")  # fmt: skip
        bot = ChampionshipBot(config, Secrets(), clock=FakeClock(now), sync_commands=False,
                              check_setup=False, start_scheduler=False,
                              draw_ahead=True)  # fmt: skip
        async with discord_harness(bot, run_setup_hook=True, guild_id=GUILD) as h:
            for channel, name in ((TD_ALERTS, "td-alerts"), (ANNOUNCE, "announcements"),
                                  (PAIRINGS, "pairings")):  # fmt: skip
                h.add_text_channel(channel, name)
            h.add_member(TD, "director")
            for i in range(PLAYERS):
                h.add_member(FIRST_USER + i, f"player{i:03d}")
            assert bot.sessions is not None
            await post_the_round(bot, h, now)
            await bot.svc.tables.pictures.drawn()  # as a bot that has been up a while
            gc.freeze()  # as a live bot's setup_hook does
            matches = await negotiating(bot.sessions)
            if len(matches) < runs * samples:
                raise SystemExit(f"only {len(matches)} matches to negotiate: lower --samples")
            wednesday = now.replace(hour=18) + timedelta(days=2)
            answer_clock = AnswerClock()
            worst: dict[str, tuple[list[float], list[float]]] = {c: ([], []) for c in COMMANDS}
            for run in range(1, runs + 1):
                found = await one_run(h, answer_clock, matches, samples, wednesday)
                print(f"run {run}, {samples} samples, ms: p50 / p99 / worst until the answer"
                      " | the same until the end of the command")  # fmt: skip
                for name, pairs in found.items():
                    line = []
                    for kind, values in enumerate(zip(*pairs, strict=True)):
                        worst[name][kind].append(p99(list(values)))
                        line.append(f"{statistics.median(values):7.1f} {p99(list(values)):7.1f} "
                                    f"{max(values):7.1f}")  # fmt: skip
                    print(f"  /{name:<17} {line[0]} | {line[1]}")
        print(f"p99 over {runs} runs, ms: median / worst until the answer | until the end "
              "(target: under 50)")  # fmt: skip
        for name, (answers, ends) in worst.items():
            print(f"  /{name:<17} {statistics.median(answers):7.1f} {max(answers):7.1f} | "
                  f"{statistics.median(ends):7.1f} {max(ends):7.1f}")  # fmt: skip


async def post_the_round(bot: ChampionshipBot, h: DiscordHarness, now: datetime) -> None:
    """The negotiating round's pairings post (every part of it) and its thread, as the
    publisher left them: each /accept edits the part its board is in."""
    from sqlalchemy import select

    from bot.features.matches.round_post import (
        parts_key,
        render_round_post_layout,
        round_post_state,
    )

    assert bot.sessions is not None
    async with transaction(bot.sessions) as session:
        round_ = await session.scalar(select(Round).where(Round.state == RoundState.PUBLISHED))
        assert round_ is not None and round_.thread_id is not None
        h.add_text_channel(round_.thread_id, f"round-{round_.number}")
        layout = await render_round_post_layout(session, round_.id)
        pairings = bot.get_partial_messageable(PAIRINGS)
        sent = [(await pairings.send(text)).id for text in layout.parts]
        round_.post_message_id = sent[0]
        session.add(Setting(key=parts_key(round_.id), value=round_post_state(sent[1:], layout),
                            updated_at=now))  # fmt: skip


async def negotiating(sessions: async_sessionmaker[AsyncSession]) -> list[tuple[int, int]]:
    """The Discord ids of both players of each match of the last round, board order."""
    from sqlalchemy import select
    from sqlalchemy.orm import aliased

    a, b = aliased(Player), aliased(Player)
    query = (
        select(a.discord_id, b.discord_id)
        .join(Match, Match.player_a_id == a.id)
        .join(b, Match.player_b_id == b.id)
        .where(Match.state == MatchState.NEGOTIATING)
        .order_by(Match.board.desc())
    )
    async with sessions() as session:
        return [(int(x), int(y)) for x, y in (await session.execute(query)).all()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Latency of the main commands.")
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--samples", type=int, default=60, help="samples of each command a run")
    args = parser.parse_args()
    asyncio.run(main(args.database_url, args.runs, args.samples))
