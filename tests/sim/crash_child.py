"""The process the survival test kills: one Swiss round of eight, from the pairs agreeing
their times with /offer and /accept through the real command tree to the last result, played
by the bot's own periodic jobs moment by moment, from whatever the database already holds.

Run as `python -m tests.sim.crash_child --db URL --lichess URL --journal PATH --progress
PATH [--phase-file PATH] [--kill-in PHASE --kill-after N]`. It prints READY once the bot
is up and FINISHED at the end. What is missing is derived from the database (a pair with
no agreed time negotiates; a moment not yet marked done runs), so work interrupted by a kill
is simply done again after the restart.

The phase it is in (`command`, `deadlines`, `results`, `outbox`) is written to the phase
file as it enters it. With `--kill-in PHASE --kill-after N` the process SIGKILLs itself at
its N-th database statement in that phase: in the middle of a command's, a due action's, a
poll's or a flush's work, wherever that statement falls.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event, select

from acwc_sim.harness import RecordedRequest, discord_harness
from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import DiscordConfig, Secrets, load_config
from bot.lichess.client import LichessClient
from db.models import Match, MatchState, OfferState, Player, Stage, TimeOffer
from tests.factories import ROUND_THREAD, seed_round

GUILD, TD, ALERTS, ANNOUNCE = 9500, 9501, 9502, 9503
PLAYERS = [
    (9600 + i, name)
    for i, name in enumerate(["Ann", "Ben", "Cid", "Dee", "Eli", "Fin", "Gus", "Hal"])
]
FIRST = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)  # board k plays at 18:00 + k hours
MOMENTS = [FIRST - timedelta(minutes=20) + timedelta(minutes=10 * k) for k in range(36)]
NEGOTIATE_AT = datetime(2019, 9, 30, 10, 0, tzinfo=UTC)  # the round's Monday morning
PHASES = ("command", "deadlines", "results", "outbox")


class Phases:
    """Where the child is, for the parent to see, and where it is to kill itself."""

    def __init__(self, file: Path | None, kill_in: str | None, kill_after: int) -> None:
        self.file, self.kill_in, self.kill_after = file, kill_in, kill_after
        self.current = ""
        self.statements = 0

    def enter(self, phase: str) -> None:
        self.current = phase
        if self.file is not None:
            self.file.write_text(phase)

    def on_statement(self, *_: Any) -> None:
        if self.kill_in is not None and self.current == self.kill_in:
            self.statements += 1
            if self.statements >= self.kill_after:
                os.kill(os.getpid(), signal.SIGKILL)


def agreed(board: int) -> datetime:
    return FIRST + timedelta(hours=board - 1)


async def negotiate(bot: ChampionshipBot, h: Any, phases: Phases) -> None:
    """Each pair agrees its time: the first player offers it, the second accepts. Only what
    the database does not show yet is done, so a command cut off by a kill is redone."""
    assert bot.sessions is not None
    async with bot.sessions() as session:
        waiting = (
            await session.scalars(
                select(Match)
                .where(Match.state == MatchState.NEGOTIATING, Match.player_b_id.is_not(None))
                .order_by(Match.board)
            )
        ).all()
        players = {p.id: p.discord_id for p in await session.scalars(select(Player))}
        offered = set(
            await session.scalars(
                select(TimeOffer.match_id).where(TimeOffer.state == OfferState.OPEN)
            )
        )
    for match in waiting:
        a, b = players[match.player_a_id], players[match.player_b_id or 0]
        if match.id not in offered:
            phases.enter("command")
            when = f"{agreed(match.board):%Y-%m-%d %H:%M}"
            made = await h.slash("offer", user=a, options={"times": when})
            assert made.ephemeral and "<t:" in made.text, made.text
        phases.enter("command")
        taken = await h.slash("accept", user=b)
        assert taken.ephemeral and taken.text.startswith("Done"), taken.text


async def main(db: str, lichess_url: str, journal: Path, progress: Path, phases: Phases) -> None:
    config = load_config(None, environ={"LICHESS_BASE_URL": lichess_url, "DATABASE_URL": db})
    config = config.model_copy(
        update={
            "discord": DiscordConfig(
                guild_id=GUILD,
                td_user_ids=(TD,),
                td_alert_channel_id=ALERTS,
                announcement_channel_id=ANNOUNCE,
            )
        }
    )
    done = int(progress.read_text()) if progress.exists() else -1  # noqa: ASYNC240
    clock = FakeClock(NEGOTIATE_AT if done < 0 else MOMENTS[done])
    lichess = LichessClient(base_url=lichess_url, timeout=5.0, rate_limit_pause=0.05)
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
        h.use_journal(journal)

        async def slow_answer(req: RecordedRequest) -> Any:
            """Discord takes the message at once but answers late: a kill in between is the
            window where a send is done and not yet noted (the outbox must not post twice)."""
            answer = h._default_rest(req, [])
            await asyncio.sleep(0.02)
            return answer

        h.on_request("POST", "/channels/{channel_id}/messages", slow_answer)
        for channel, name in ((ALERTS, "td-alerts"), (ANNOUNCE, "news"), (ROUND_THREAD, "r1")):
            h.add_text_channel(channel, name)
        h.add_member(TD, "director")
        for user, name in PLAYERS:
            h.add_member(user, name.lower())
        assert bot.sessions is not None and bot.engine is not None
        async with bot.sessions() as session:
            started = await session.scalar(select(Stage.id))
        if started is None:
            await seed_round(bot.sessions, config, PLAYERS)
        event.listen(bot.engine.sync_engine, "before_cursor_execute", phases.on_statement)
        print("READY", flush=True)
        if done < 0:
            await negotiate(bot, h, phases)
        for k, moment in enumerate(MOMENTS):
            if k <= done:
                continue
            clock.set(moment)
            for name in ("deadlines", "results", "outbox"):
                phases.enter(name)
                job, _ = bot.periodic_jobs()[name]
                await job()
            tmp = progress.with_suffix(".tmp")
            tmp.write_text(str(k))
            os.replace(tmp, progress)
    await lichess.aclose()
    print("FINISHED", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    for flag in ("--db", "--lichess", "--journal", "--progress"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--phase-file", type=Path)
    parser.add_argument("--kill-in", choices=PHASES)
    parser.add_argument("--kill-after", type=int, default=1)
    args = parser.parse_args()
    phases = Phases(args.phase_file, args.kill_in, args.kill_after)
    asyncio.run(main(args.db, args.lichess, Path(args.journal), Path(args.progress), phases))
