"""A Discord server set up the way the bot needs it, in the recorded Discord, and ways to
break it one thing at a time; `acwc` driven against it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

import discord
import pytest
from discord.ext import commands

from bot import cli
from bot.app import ChampionshipBot
from bot.config import DiscordConfig
from bot.doctor.permissions import BOT_PERMISSIONS
from tests.harness import DiscordHarness, discord_harness

GUILD, TD_ROLE = 1000, 2000
PAIRINGS, ANNOUNCE, ALERTS, VOICE = 4001, 4002, 4003, 4004
TD, DEPUTY = 900, 901
APP_ID = 9000
GOOD = DiscordConfig(
    guild_id=GUILD,
    td_user_ids=(TD,),
    td_role_id=TD_ROLE,
    pairings_channel_id=PAIRINGS,
    announcement_channel_id=ANNOUNCE,
    td_alert_channel_id=ALERTS,
)
World = Callable[[DiscordHarness], None]


def build(h: DiscordHarness) -> None:
    """A forum for the pairings, an announcement channel, a text channel for TD alerts, a
    voice channel, the TD; the bot holds the role the invite made, with its permissions."""
    h.add_forum_channel(PAIRINGS, "pairings")
    h.add_channel(ANNOUNCE, "announcements", 5)
    h.add_text_channel(ALERTS, "td-alerts")
    h.add_channel(VOICE, "lounge", 2)
    h.add_member(TD, "director")


def as_yaml(cfg: DiscordConfig) -> str:
    """The `discord:` section of a config file."""
    lines = ["discord:"]
    for key, value in cfg.model_dump().items():
        if value is not None:
            lines.append(f"  {key}: {list(value) if isinstance(value, tuple) else value}")
    return "\n".join(lines) + "\n"


@asynccontextmanager
async def server(world: World | None = None) -> AsyncIterator[tuple[commands.Bot, DiscordHarness]]:
    """A client (not connected) whose REST is the recorded Discord of the server above."""
    client = commands.Bot(command_prefix="!", intents=discord.Intents.default())
    async with discord_harness(
        client, guild_id=GUILD, td_role_id=TD_ROLE, bot_permissions=BOT_PERMISSIONS.value
    ) as h:
        build(h)
        if world is not None:
            world(h)
        yield client, h


def client_factory(world: World | None = None) -> Callable[[], object]:
    """For `bot.doctor.command.rest_client`: the doctor's client talks to the server above."""

    @asynccontextmanager
    async def connect() -> AsyncIterator[discord.Client]:
        async with server(world) as (client, _):
            yield client

    return connect


def run_acwc(
    monkeypatch: pytest.MonkeyPatch,
    argv: Sequence[str],
    world: World | None = None,
    *,
    harnesses: list[DiscordHarness] | None = None,
) -> int:
    """`acwc ... run` as a TD runs it, against the server above: the bot logs in, starts
    (setup_hook) and delivers what it queued; `harnesses` gets each run's recorded Discord."""

    def run_against_discord(self: ChampionshipBot, token: str, **_: object) -> None:
        async def start() -> None:  # the harness closes the bot, as Client.run does
            async with discord_harness(
                self, guild_id=GUILD, td_role_id=TD_ROLE, bot_permissions=BOT_PERMISSIONS.value
            ) as h:
                build(h)
                if world is not None:
                    world(h)
                if harnesses is not None:
                    harnesses.append(h)
                await self.setup_hook()  # Client.login runs it after logging in
                await self.deliver()

        asyncio.run(start())

    monkeypatch.setattr(ChampionshipBot, "run", run_against_discord)
    monkeypatch.setattr("db.schema.migrate_in_child", lambda url: None)
    monkeypatch.setattr("bot.app.gc.freeze", lambda: None)  # a live bot's, not a test's
    monkeypatch.setenv("DISCORD_TOKEN", "discord-token-123")
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        return cli.main(list(argv))
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)


def this_years_edition() -> str:
    """A config's edition part as a TD's would be: a year whose registration is still to
    come (`acwc doctor` warns about a past one) and that year's pre-seeded players."""
    year = datetime.now(UTC).year + 1
    return (
        f"preset: acwc-2019\ntournament:\n  year: {year}\n"
        "players:\n  previous_champion: NewChamp\n  pre_seeded:\n"
        "    - {lichess: NewChamp, role: champion, stage: final}\n"
    )


def config_file(tmp_path: Path, cfg: DiscordConfig, *, extra: str = "") -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(this_years_edition() + as_yaml(cfg) + extra, encoding="utf-8")
    return path
