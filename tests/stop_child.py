"""The process the clean-stop test stops with a real SIGTERM: a bot in the middle of
delivering a batch of posts, each of which Discord answers slowly.

Run as `python -m tests.stop_child --db URL --journal PATH [--again]`. The first run queues
the posts, starts the flush as the periodic job would, prints READY when the first post is
on its way and then waits in `ChampionshipBot.serve` (the gateway replaced by a long sleep)
for the signal. `--again` is the next start on the same database and "Discord" (the journal,
with Discord's nonce memory gone: the stop was long): it flushes and prints FINISHED.
"""

from __future__ import annotations

import argparse
import asyncio
import faulthandler
import signal
import sys
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acwc_sim.harness import RecordedRequest, discord_harness
from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import DiscordConfig, Secrets, load_config
from bot.outbox import enqueue_channel
from db.engine import transaction

GUILD, CHANNEL, POSTS = 9700, 9701, 6
NOW = datetime(2019, 10, 1, 12, 0, tzinfo=UTC)


async def main(db: str, journal: Path, again: bool) -> None:
    """The run; an error is printed at once (asyncio.run's cleanup comes before its own
    report, and the test wants to see the error even if that cleanup hangs)."""
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR2, _print_tasks)
    try:
        await _run(db, journal, again)
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        raise


def _print_tasks() -> None:
    """SIGUSR2: every task and where it waits (the test asks when the child hangs)."""
    for task in asyncio.all_tasks():
        task.print_stack(file=sys.stderr)
    sys.stderr.flush()


async def _run(db: str, journal: Path, again: bool) -> None:
    config = load_config(None, environ={"DATABASE_URL": db})
    server = DiscordConfig(guild_id=GUILD, announcement_channel_id=CHANNEL)
    config = config.model_copy(update={"discord": server})
    bot = ChampionshipBot(
        config, Secrets(), clock=FakeClock(NOW), sync_commands=False, check_setup=False
    )
    bot.start_scheduler = False
    async with discord_harness(bot, run_setup_hook=True, guild_id=GUILD) as h:
        h.use_journal(journal)
        h.forget_nonces()
        h.add_text_channel(CHANNEL, "announcements")
        assert bot.sessions is not None and bot.outbox is not None
        if again:
            await bot.outbox.flush(limit=None)
            print("FINISHED", flush=True)
            return
        async with transaction(bot.sessions) as session:
            for n in range(POSTS):
                enqueue_channel(session, channel_id=CHANNEL, now=NOW, content=f"post {n}")

        async def slow(req: RecordedRequest) -> Any:
            answer = h._default_rest(req, [])
            print("READY", flush=True)  # a post is on its way: now is the time to stop us
            await asyncio.sleep(0.3)
            return answer

        h.on_request("POST", "/channels/{channel_id}/messages", slow)

        async def connected(token: str) -> None:
            assert bot.outbox is not None
            flush = asyncio.create_task(bot.outbox.flush(limit=None))
            bot.jobs_in_flight.add(flush)  # as the periodic job would
            await asyncio.sleep(3600)  # the gateway, until the bot closes

        bot.start = connected  # type: ignore[method-assign]
        await bot.serve("token")  # SIGTERM: drain, then close
        print("STOPPED", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True)
    parser.add_argument("--journal", required=True, type=Path)
    parser.add_argument("--again", action="store_true")
    args = parser.parse_args()
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # the test's view of a hang
    asyncio.run(main(args.db, args.journal, args.again))
