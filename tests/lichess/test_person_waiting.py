"""A person never waits out Lichess's 429 pause: a command that needs Lichess while the bot
is pausing answers at once that Lichess is busy and when to try again; the periodic jobs
still wait the full pause (DESIGN rule 6)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config, Secrets
from bot.lichess.client import LichessClient
from tests.conftest import GUILD_ID, TD_ROLE_ID, add_player
from tests.fakes.lichess import FakeLichess
from tests.harness import DiscordHarness, discord_harness
from tests.running import ALICE

PAUSE = 60.0


class RecordingPause:
    """A pause clock that records every wait instead of sleeping (no wall-clock in tests)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: list[float] = []

    def time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


@asynccontextmanager
async def pausing_bot(
    config: Config, clock: FakeClock, fake: FakeLichess, pause: RecordingPause
) -> AsyncIterator[tuple[ChampionshipBot, DiscordHarness]]:
    lichess = LichessClient(
        base_url=fake.base_url, timeout=5.0, rate_limit_pause=PAUSE, pause_clock=pause
    )
    bot = ChampionshipBot(
        config,
        Secrets(),
        clock=clock,
        lichess=lichess,
        sync_commands=False,
        check_setup=False,
        start_scheduler=False,
    )
    async with discord_harness(
        bot, run_setup_hook=True, guild_id=GUILD_ID, td_role_id=TD_ROLE_ID
    ) as h:
        h.add_member(ALICE, "alice")
        yield bot, h


async def test_register_during_the_pause_answers_at_once(
    config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    pause = RecordingPause()
    async with pausing_bot(config, clock, fake, pause) as (bot, h):
        fake.fail_next("/api/user/", 429)  # a job's call meets the 429: the pause begins
        user = await bot.lichess.get_user("Alice")
        assert user.username == "Alice" and pause.waits == [PAUSE]  # a job waits it out
        fake.fail_next("/api/user/", 429)
        pause.waits.clear()
        asked = fake.count("/api/user/")
        record = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        assert record.ephemeral and "Lichess asked the bot to slow down" in record.text
        assert "try again in a minute" in record.text and "Nothing was changed" in record.text
        assert pause.waits == []  # the player was not kept waiting
        assert fake.count("/api/user/") == asked + 1  # asked once, refused, not retried

        pause.now += 10  # still inside the pause: not even one request
        again = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        assert "slow down" in again.text and fake.count("/api/user/") == asked + 1
        assert pause.waits == []

        pause.now += PAUSE  # the pause is over: the command works
        done = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        assert "slow down" not in done.text and "Verify" in str(done.responses), done.text
