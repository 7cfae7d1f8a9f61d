"""`acwc simulate`: a whole championship offline, to see the bot work without Discord.

The real bot and its real command tree run through the Discord harness, Lichess is the fake
server with generated accounts, and a fake clock jumps from one moment of the championship
to the next. Simulated players register, negotiate with /offer and /accept (some counter-
offer, one pair leaves it to the TD), play games whose results follow their ratings, take
a break, claim a no-show, report a cheat and withdraw; the bot's own periodic jobs do the
rest. The same seed gives the same `result.json`, byte for byte.

Which path shows where, in every run of any seed (the reference: `--players 24 --seed 1`;
the tests: `--players 8 --seed 3`): Swiss round 1's last pair makes no offer and the TD
assigns (rule V.F), one of its matches has a break (VI.A), another a /left and the player
back in time (VI.E); round 2's last pair has one player offer 3 times and the other none, so
the first /chooses (V.E), the pair before it both offer 3 times without agreeing, so the TD
rules at Saturday and the player not at fault /chooses (V.H, V.I), one of its matches has a
no-show claim withdrawn (VI.D), and a cheat report the TD dismisses once the round is played
(VII.A, VII.B); round 3 has a withdrawal and its walkover (VIII.A.1). Which matches and
players, and who peaked above their cut-off rating, the seed draws. For the seeds in
`acwc_sim.games.ARMAGEDDON_SEEDS` (1 and 3) the Final goes through every extension and the
2+0 games to the Armageddon, in pairs of games the seed draws, and the Challenger wins it in
the bids (III.G.3 to III.G.6).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import select

from acwc_sim.edition import sim_config, start_of
from acwc_sim.fake_lichess import fake_lichess
from acwc_sim.faults import Faults
from acwc_sim.games import ANNOUNCE, GUILD, PAIRINGS, PRESEEDED, TD, TD_ALERTS
from acwc_sim.harness import InteractionRecord, RecordedMessage, RecordedResponse, discord_harness
from acwc_sim.players import SimPlayer, add_account, make_players
from acwc_sim.result import championship_result
from acwc_sim.resume import OtherEdition, RequestLog, StepLog
from acwc_sim.rounds import Rounds
from bot.app import ChampionshipBot
from bot.clock import FakeClock, FakeClockPause
from bot.config import DEFAULT_PRESET, Secrets
from bot.lichess.client import LichessClient
from db import schema
from db.models import (
    OwnershipChallenge,
    Player,
    Registration,
    Round,
)

REGISTRATION_GAP = timedelta(minutes=20)  # between one player's registration and the next
KEEP_IN_MEMORY = 2000  # REST messages the harness holds; a round of 256 players sends ~2,000


class Simulation(Rounds):
    """One championship: the bot, the harness, the fake Lichess, the clock and the dice."""

    # --- registration ------------------------------------------------------------------------

    async def register_everyone(self) -> None:
        """Each player registers in turn, `REGISTRATION_GAP` apart: /register, the code in
        their Lichess profile, **Verify**. The bot answers only them, so the transcript tells
        it in a note from what the database shows."""
        for index, player in enumerate(self.players):

            async def register(player: SimPlayer = player) -> None:
                record = await self.h.slash(
                    "register", user=player.discord_id, options={"lichess_username": player.name}
                )
                code = record.text[record.text.index("`acwc-") + 1 :].split("`")[0]
                self.fake.set_profile(player.name, bio=code)
                assert record.last is not None
                verify = str(self.h.buttons(record.last)[0]["custom_id"])
                await self.h.press(verify, user=player.discord_id, message=record.last)

            key = f"register:{player.name}"
            await self.step_at(f"{key}:at", start_of(self.bot.config) + index * REGISTRATION_GAP)
            await self.step(key, register, done=partial(self.registered, player))
            await self.step(f"{key}:note", partial(self.registration_note, key, player))
        await self.step("register:jobs", self.jobs)

    async def registration_note(self, key: str, player: SimPlayer) -> None:
        """The transcript's note of a registration, from the registration the bot stored."""
        row = await self.scalar(
            select(Registration)
            .join(Player, Player.id == Registration.player_id)
            .where(Player.discord_id == player.discord_id)
        )
        if row is None:
            text = "runs /register, but no registration is stored."
        else:
            rating = f"{row.seeding_rating:.0f}" if row.seeding_rating is not None else "none"
            text = (
                f"runs `/register lichess_username:{player.name}`, puts the code the bot "
                "gives in their Lichess profile and presses **Verify**; the bot's replies, "
                f"which only they see, leave the registration {row.state.value} "
                f"(seeding rating {rating}, rule III.E.3)."
            )
        self.h.note(key, self.clock.now(), f"{player.name}, registering", text)

    async def registered(self, player: SimPlayer) -> bool:
        found = await self.scalar(
            select(Registration.id)
            .join(Player, Player.id == Registration.player_id)
            .where(Player.discord_id == player.discord_id)
        )
        return found is not None

    async def restore_profiles(self) -> None:
        """A restarted run's fake Lichess: each verified player's code back in their bio."""
        assert self.bot.sessions is not None
        async with self.bot.sessions() as session:
            rows = (
                await session.execute(
                    select(OwnershipChallenge.lichess_username, OwnershipChallenge.code).where(
                        OwnershipChallenge.verified_at.is_not(None)
                    )
                )
            ).all()
        for name, code in rows:
            self.fake.set_profile(name, bio=code)

    def buttons_of(self, shown: InteractionRecord) -> tuple[RecordedResponse, dict[str, str]]:
        """The response of `shown` that carries buttons, and its buttons by label."""
        panel = next(r for r in reversed(shown.responses) if self.h.buttons(r))
        return panel, {str(b["label"]): str(b["custom_id"]) for b in self.h.buttons(panel)}

    async def publish_first_round(self) -> None:
        """As a TD does: `/td round start` refuses while registration is open (it is, until
        the end of September), **Close registration and continue** closes it (the field
        goes public) and shows the preview, **Publish round 1** publishes it."""

        async def publish() -> None:
            # A long preview (a big field) comes in several messages; the buttons are on
            # the one that answered, not necessarily the last.
            shown = await self.h.slash("td round start", user=TD)
            panel, buttons = self.buttons_of(shown)
            if "Close registration and continue" in buttons:  # not when a restart closed it
                shown = await self.h.press(
                    buttons["Close registration and continue"], user=TD, message=panel
                )
                await self.deliver_queued()  # the public field, before the pairings
                panel, buttons = self.buttons_of(shown)
            await self.h.press(buttons["Publish round 1"], user=TD, message=panel)

        async def published() -> bool:
            assert self.bot.sessions is not None
            return await self.scalar(select(Round.id).limit(1)) is not None

        await self.step("round:1:publish", publish, done=published)


RUN_FILES = ("acwc.sqlite3", "acwc.sqlite3-wal", "acwc.sqlite3-shm", "discord.jsonl")


async def simulate(
    players: int,
    seed: int,
    out: Path,
    progress: Callable[[str, str, int, int | None], None] = lambda *_: None,
    *,
    faults: bool = False,
    fresh: bool = False,
    edition: str = DEFAULT_PRESET,
) -> dict[str, Any]:
    """Run a whole championship of the preset `edition`; writes `transcript.md` and
    `result.json` into `out`.

    A run of the same players and seed that `out` holds unfinished (it was killed, or
    stopped with Ctrl-C) goes on where it stopped, to the same `result.json` an
    uninterrupted run gives; `fresh` starts over. Runs with faults always start over. An
    unfinished run of another edition is not gone on with: `OtherEdition` says so.
    """
    out.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 (before anything runs)
    log = StepLog(out / "progress.jsonl", seed=seed, players=players, edition=edition)
    if log.other_edition is not None and not fresh and not faults:
        raise OtherEdition(out, log.other_edition, edition)
    resume = log.resumable and not fresh and not faults
    if not resume:
        for name in RUN_FILES:
            (out / name).unlink(missing_ok=True)
    log.begin(fresh=not resume)
    requests = RequestLog(out / "lichess-requests.jsonl", fresh=not resume)
    async with fake_lichess(seed) as fake:
        database = out / "acwc.sqlite3"
        config = sim_config(f"sqlite+aiosqlite:///{database}", fake.base_url, edition)
        clock = FakeClock(log.clock() or start_of(config))
        entrants = make_players(seed, players, first_discord_id=6000)
        cutoff = config.registration.games_before - timedelta(days=2)
        for player in entrants:
            add_account(
                fake,
                player.name,
                player.rating,
                games=config.registration.min_rated_games + 5,
                before=cutoff,
                peak_gain=player.peak_gain,
            )
        for name, _, _, rating in PRESEEDED:
            add_account(fake, name, rating, games=5, before=cutoff)
        # The client's pause after a Lichess 429 is the configured one (60 s), spent on the
        # fake clock: championship time moves on, real time does not. The fake server stamps
        # requests on the same clock, so the pause can be checked. With faults, Lichess
        # stalls now and then, so the client gives up sooner than the bot's 20 s.
        fake.time_source = lambda: clock.now().timestamp()
        fake.on_request = requests
        await schema.migrate_in_child_async(config.database.url)  # Alembic stays out of it
        lichess = LichessClient(
            base_url=fake.base_url,
            timeout=2.0 if faults else 10.0,
            rate_limit_pause=config.lichess.rate_limit_pause_seconds,
            pause_clock=FakeClockPause(clock),
        )
        bot = ChampionshipBot(
            config,
            Secrets(),
            clock=clock,
            lichess=lichess,
            sync_commands=False,
            check_setup=False,  # its Discord is the harness, built after the start
            start_scheduler=False,
            flush_after_commands=False,  # SimBase.at delivers them once per clock step
        )
        async with discord_harness(bot, run_setup_hook=True, guild_id=GUILD) as h:
            for channel, name in ((TD_ALERTS, "td-alerts"), (ANNOUNCE, "announcements")):
                h.add_text_channel(channel, name)
            # a forum, as the TD guide sets it up (rule V.A's "Pairings forum post")
            h.add_forum_channel(PAIRINGS, "pairings")
            h.add_member(TD, "director")
            for player in entrants:
                h.add_member(player.discord_id, player.name.lower())
            for name, _, user, _ in PRESEEDED:
                h.add_member(user, name.lower())
            h.clock = clock.now
            h.breaches_expected = True  # told in result.json (`refused_by_discord`), not raised
            h.keep_history = False  # the transcript and the journal keep what matters
            h.keep_in_memory = KEEP_IN_MEMORY  # the journal has the older messages
            sim = Simulation(
                bot, h, fake, clock, seed, entrants, progress, log, out / "transcript.md"
            )
            h.use_journal(out / "discord.jsonl", fsync=False)  # what "Discord" has seen
            sim.requests = requests
            fake.keep_requests = faults  # the fault checks read request times and statuses
            if faults:
                sim.faults = Faults(h, fake, seed, closed_dm_user=entrants[1].discord_id)
            if resume:
                await sim.restore_profiles()
            await sim.register_everyone()
            await sim.publish_first_round()
            for number in range(1, 61):
                if not await sim.play_week(number):
                    break
            await sim.step_at("end:hour", lambda: clock.now() + timedelta(hours=1))
            # the last retries of the outbox
            await sim.step_at("end:day", lambda: clock.now() + timedelta(days=1))
            result = await championship_result(sim, seed)
            sim.transcript.close()
        await lichess.aclose()
    requests.close()
    (out / "result.json").write_text(
        json.dumps(result, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    log.finish()
    return result


def run_cli(
    players: int,
    seed: int,
    out: Path,
    *,
    faults: bool = False,
    fresh: bool = False,
    edition: str = DEFAULT_PRESET,
) -> int:
    """The terminal side: a progress bar per stage (by the stage rows' names: "Qualification",
    "Upper pool", "Grand Final") with its rounds counted against the stage's total, then a
    short summary. Ctrl-C stops it with one line: the same command goes on where it stopped
    (`simulate` resumes from the step log), so a traceback would only hide that."""
    import asyncio

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console()
    log = StepLog(out / "progress.jsonl", seed=seed, players=players, edition=edition)
    if log.other_edition is not None and not fresh and not faults:
        print(OtherEdition(out, log.other_edition, edition), file=sys.stderr)  # one line
        return 2  # bot.cli.EXIT_USAGE
    started = time.perf_counter()
    # Drawn only once the first round is out (an empty live display printed blank lines
    # through registration), and gone at the end: the summary says the rest.
    bar = Progress(
        TextColumn("{task.description:<24}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("rounds"),
        console=console,
        transient=True,
    )
    tasks: dict[str, Any] = {}

    def progress(stage: str, label: str, number: int, total: int | None) -> None:
        if not tasks:
            bar.start()
        if stage not in tasks:
            tasks[stage] = bar.add_task(stage, total=total)
        bar.update(tasks[stage], completed=number, total=total, description=label)

    if not fresh and not faults and log.resumable:
        console.print(f"Going on with the unfinished run in {out} (--fresh starts over)")
    try:
        result = asyncio.run(
            simulate(players, seed, out, progress, faults=faults, fresh=fresh, edition=edition)
        )
    except KeyboardInterrupt:
        bar.stop()
        print(
            f"Stopped. Run the same command to go on where it stopped ({out}; --fresh "
            "starts over).",
            file=sys.stderr,
        )
        return 130  # the shell's code for a stop by Ctrl-C (128 + SIGINT)
    finally:
        bar.stop()
    wall = time.perf_counter() - started
    rounds = ", ".join(f"{k} {v}" for k, v in result["rounds"].items())
    console.print(f"Rounds: {rounds}")
    console.print(f"Challenger: {result['challenger']} · Champion: {result['champion']}")
    console.print(
        f"Messages sent: {result['messages']} · Lichess requests: {result['lichess_requests']}"
        f" · wall time {wall:.1f} s"
    )
    if result["faults"]:
        injected = ", ".join(f"{k} ×{v}" for k, v in result["faults"].items())
        console.print(f"Faults injected: {injected}")
    console.print(f"Wrote {out / 'transcript.md'} and {out / 'result.json'}")
    return 0


__all__ = ["RecordedMessage", "run_cli", "simulate"]
