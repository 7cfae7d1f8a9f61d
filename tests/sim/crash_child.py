"""The process the survival test kills: one Swiss round of eight, played to its end by the
bot's own periodic jobs, moment by moment, from whatever the database already holds.

Run as `python -m tests.sim.crash_child --db URL --lichess URL --journal PATH --progress
PATH`. It prints READY once the bot is up and FINISHED at the end. Each moment's jobs are
idempotent, so a moment interrupted by a kill is simply run again after the restart.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import DiscordConfig, Secrets, load_config
from bot.lichess.client import LichessClient
from bot.sim.harness import RecordedRequest, discord_harness
from db.engine import transaction
from db.models import Match, MatchState, Round, Stage
from tests.factories import ROUND_THREAD, seed_round

GUILD, TD, ALERTS, ANNOUNCE = 9500, 9501, 9502, 9503
PLAYERS = [
    (9600 + i, name)
    for i, name in enumerate(["Ann", "Ben", "Cid", "Dee", "Eli", "Fin", "Gus", "Hal"])
]
FIRST = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)  # board k plays at 18:00 + k hours
MOMENTS = [FIRST - timedelta(minutes=20) + timedelta(minutes=10 * k) for k in range(36)]


def agreed(board: int) -> datetime:
    return FIRST + timedelta(hours=board - 1)


async def main(db: str, lichess_url: str, journal: Path, progress: Path) -> None:
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
    clock = FakeClock(MOMENTS[max(done, 0)])
    lichess = LichessClient(base_url=lichess_url, timeout=5.0, rate_limit_pause=0.05)
    bot = ChampionshipBot(
        config, Secrets(), clock=clock, lichess=lichess, sync_commands=False, start_scheduler=False
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
        assert bot.sessions is not None
        async with bot.sessions() as session:
            started = await session.scalar(select(Stage.id))
        if started is None:
            await seed_round(bot.sessions, config, PLAYERS)
        async with transaction(bot.sessions) as session:  # idempotent: only what is missing
            first = select(Round.id).where(Round.number == 1)
            unagreed = select(Match).where(Match.agreed_time.is_(None), Match.round_id.in_(first))
            for match in await session.scalars(unagreed):
                if match.state is MatchState.NEGOTIATING and match.player_b_id is not None:
                    match.agreed_time, match.state = agreed(match.board), MatchState.SCHEDULED
        print("READY", flush=True)
        for k, moment in enumerate(MOMENTS):
            if k <= done:
                continue
            clock.set(moment)
            for name in ("deadlines", "results", "outbox"):
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
    args = parser.parse_args()
    asyncio.run(main(args.db, args.lichess, Path(args.journal), Path(args.progress)))
