"""A real ChampionshipBot driven through the Discord harness, on a temp DB and fake Lichess.

The `running_bot` fixture is registered for every test by tests/conftest.py."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import pytest

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config, Secrets
from bot.lichess.client import LichessClient
from tests.conftest import GUILD_ID, TD_ALERT_CHANNEL, TD_ID, TD_ROLE_ID
from tests.fakes.lichess import FakeLichess
from tests.harness import DiscordHarness, discord_harness

ALICE, BOB, ROLE_TD = 101, 102, 103

RunningBot = Callable[..., AbstractAsyncContextManager[tuple[ChampionshipBot, DiscordHarness]]]


@pytest.fixture
def running_bot(config: Config, clock: FakeClock, fake: FakeLichess) -> RunningBot:
    """Start a bot (a new process, as far as the bot can tell) on the shared DB and config."""

    @asynccontextmanager
    async def start(
        cfg: Config | None = None,
        *,
        token: str | None = None,
        lichess: LichessClient | None = None,
    ) -> AsyncIterator[tuple[ChampionshipBot, DiscordHarness]]:
        lichess = lichess or LichessClient(
            base_url=fake.base_url, token=token, timeout=5.0, rate_limit_pause=0.05
        )
        bot = ChampionshipBot(
            cfg or config,
            Secrets(),
            clock=clock,
            lichess=lichess,
            sync_commands=False,
            check_setup=False,
            start_scheduler=False,
        )
        async with discord_harness(
            bot, run_setup_hook=True, guild_id=GUILD_ID, td_role_id=TD_ROLE_ID
        ) as harness:
            harness.add_text_channel(TD_ALERT_CHANNEL, "td-alerts")
            harness.add_member(TD_ID, "director")
            harness.add_member(ROLE_TD, "deputy", roles=[TD_ROLE_ID])
            harness.add_member(ALICE, "alice")
            harness.add_member(BOB, "bob")
            yield bot, harness

    return start
