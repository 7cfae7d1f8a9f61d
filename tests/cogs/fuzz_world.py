"""The world the fuzz and permission tests share: one running bot on a temporary database
with a Swiss round of two matches, the TD, the players and a stranger, plus the hostile values
hypothesis draws from and the checks every answer must pass."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands
from hypothesis import strategies as st

from acwc_sim.fake_lichess import fake_lichess
from acwc_sim.harness import DiscordHarness, InteractionRecord, discord_harness
from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import DiscordConfig, Secrets, load_config
from bot.lichess.client import LichessClient
from cogs.errors import UNEXPECTED
from tests.factories import ROUND_THREAD, SeededRound, seed_round

GUILD, TD, ALERTS, ANNOUNCE, ROLE = 9100, 9101, 9102, 9103, 9104
PLAYERS = [(9201, "Alice"), (9202, "Bob"), (9203, "Carol"), (9204, "Dave")]
STRANGER = 9299

HOSTILE = [
    "@everyone",
    "@here",
    f"<@&{ROLE}> look",
    "**bold** __under__ `code` ||spoiler|| > quote",
    "\u202eevil RTL text\u202c",
    "\u0000\u200b\ufeff",
    "9999-12-31 23:59",
    "0001-01-01 00:00 +05:00",
    "wed 25:61",
    "tomorrow at 6pm CEST",
    "nobody",
    "-1",
    "1e308",
    "x" * 4000,
    "Bob",
    "alice",
    "https://lichess.org/abcdEFGH",
    "",
    " ",
]


def text_values() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(HOSTILE), st.text(max_size=80), st.text(min_size=1000, max_size=4000)
    )


def value_for(param: app_commands.Parameter) -> st.SearchStrategy[Any]:
    """A value Discord could send for this option (its type, its choices), chosen to hurt."""
    if param.choices:
        return st.sampled_from([c.value for c in param.choices])
    kind = param.type
    if kind is discord.AppCommandOptionType.integer:
        extremes = st.sampled_from([0, -1, 2**53, 2**63, 10**40, -(10**40)])
        return st.one_of(extremes, st.integers(-(2**70), 2**70), st.integers(0, 50))
    if kind is discord.AppCommandOptionType.number:
        extremes = st.sampled_from([1e308, -1e308, float("nan"), float("inf"), 3.25, 10.5])
        return st.one_of(
            extremes, st.floats(allow_nan=True, allow_infinity=True), st.floats(-20, 20)
        )
    if kind is discord.AppCommandOptionType.boolean:
        return st.booleans()
    if kind is discord.AppCommandOptionType.user:
        return st.sampled_from([TD, STRANGER, *(u for u, _ in PLAYERS)])
    return text_values()


def draw_options(
    data: st.DataObject, command: app_commands.Command[Any, ..., Any]
) -> dict[str, Any]:
    """Each required option, and some optional ones, with a hostile value."""
    options: dict[str, Any] = {}
    for param in command.parameters:
        if not param.required and data.draw(st.booleans()):
            continue
        options[param.display_name] = data.draw(value_for(param), label=param.display_name)
    return options


def leaf_commands(tree: app_commands.CommandTree[Any]) -> list[app_commands.Command[Any, ..., Any]]:
    found: list[app_commands.Command[Any, ..., Any]] = []

    def walk(item: Any) -> None:
        if isinstance(item, app_commands.Group):
            for child in item.commands:
                walk(child)
        elif isinstance(item, app_commands.Command):
            found.append(item)

    for command in tree.get_commands():
        walk(command)
    return sorted(found, key=lambda c: c.qualified_name)


@dataclass
class World:
    """The running bot of a test module and what the tests drive it with."""

    loop: asyncio.AbstractEventLoop
    bot: ChampionshipBot
    h: DiscordHarness
    commands: list[app_commands.Command[Any, ..., Any]]
    db: Path
    seeded: SeededRound

    def run(self, coro: Any) -> InteractionRecord:
        """Run one interaction to its end on the world's loop."""
        record: InteractionRecord = self.loop.run_until_complete(coro)
        return record


def open_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """One running bot for all the examples of a module: a round with two matches (Alice
    against Bob, Carol against Dave), the TD, and a stranger who is not registered."""
    loop = asyncio.new_event_loop()
    stack = contextlib.AsyncExitStack()
    db: Path = tmp_path_factory.mktemp("fuzz") / "fuzz.sqlite3"

    async def start() -> tuple[ChampionshipBot, DiscordHarness, SeededRound]:
        fake = await stack.enter_async_context(fake_lichess(seed=7))
        for _, name in PLAYERS:
            fake.add_user(name, created_at=datetime(2017, 1, 1, tzinfo=UTC))
        environ = {"LICHESS_BASE_URL": fake.base_url, "DATABASE_URL": f"sqlite+aiosqlite:///{db}"}
        config = load_config(None, environ=environ).model_copy(
            update={
                "discord": DiscordConfig(
                    guild_id=GUILD,
                    td_user_ids=(TD,),
                    td_alert_channel_id=ALERTS,
                    announcement_channel_id=ANNOUNCE,
                )
            }
        )
        clock = FakeClock(datetime(2019, 10, 1, 12, 0, tzinfo=UTC))
        lichess = LichessClient(base_url=fake.base_url, timeout=5.0, rate_limit_pause=0.05)
        stack.push_async_callback(lichess.aclose)
        bot = ChampionshipBot(
            config, Secrets(), clock=clock, lichess=lichess, sync_commands=False,
            check_setup=False, start_scheduler=False,
        )  # fmt: skip
        h = await stack.enter_async_context(
            discord_harness(bot, run_setup_hook=True, guild_id=GUILD)
        )
        for channel, name in ((ALERTS, "td-alerts"), (ANNOUNCE, "news"), (ROUND_THREAD, "r1")):
            h.add_text_channel(channel, name)
        h.add_role(ROLE, "players")
        h.add_member(TD, "director")
        h.add_member(STRANGER, "stranger")
        for user, name in PLAYERS:
            h.add_member(user, name.lower())
        assert bot.sessions is not None
        seeded = await seed_round(bot.sessions, config, PLAYERS)
        return bot, h, seeded

    bot, h, seeded = loop.run_until_complete(start())
    yield World(loop, bot, h, leaf_commands(bot.tree), db, seeded)
    loop.run_until_complete(stack.aclose())
    loop.close()


def add_offer_and_report(world: World) -> None:
    """Rows buttons can name: Alice's offer #1 to Bob, and Bob's cheat report #1 on Carol."""
    alice, bob = PLAYERS[0][0], PLAYERS[1][0]
    offer = world.run(world.h.slash("offer", user=alice, options={"times": "wed 18:00"}))
    assert offer.refusal is None, offer.text
    opened = world.run(world.h.slash("report", user=bob))
    assert opened.responses[0].kind == "modal"
    fields = {"accused": "Carol", "links": "", "description": "engine moves"}
    report = world.run(world.h.submit_modal(opened.responses[0].custom_id, fields, user=bob))
    assert report.refusal is None, report.text


def database_rows(db: Path) -> list[str]:
    """Every row of every table, as SQL text: equal lists mean nothing was written."""
    with contextlib.closing(sqlite3.connect(db)) as connection:
        return list(connection.iterdump())


def assert_refusal_changed_nothing(
    record: InteractionRecord, before: list[str], after: list[str], what: str
) -> None:
    """A refusal leaves every row as it was; one the rules put on record for the TD
    (`ReportedAttempt`) adds only its audit entry and the TD's message."""
    if record.refusal_reported:
        added = set(after) - set(before)
        assert set(before) <= set(after), (what, record.refusal)
        assert added and all(row.startswith(REPORT_ROWS) for row in added), (what, added)
    else:
        assert after == before, (what, record.refusal)


REPORT_ROWS = ('INSERT INTO "audit_log" ', 'INSERT INTO "outbox" ')


def assert_clear_private_answer(record: InteractionRecord, what: str) -> None:
    """An answer came, privately; no traceback, no generic error, no ping of @everyone or a
    role in anything the bot sent or answered."""
    assert record.responses, f"{what} left the user without an answer"
    assert not record.errors, record.errors
    assert UNEXPECTED not in record.text, (what, record.text)
    for response in record.responses:
        if response.kind in ("message", "deferred", "followup"):
            assert response.ephemeral, (what, response.text[:200])
        assert_no_mass_mentions(response.raw, what)
    for message in record.messages:  # what the interaction made the bot post
        assert_no_mass_mentions(message.raw, what)


def assert_no_mass_mentions(payload: dict[str, Any], what: str) -> None:
    mentions = payload.get("allowed_mentions")
    if mentions is None and "content" not in payload:
        return  # no text of its own (a deferral, a modal)
    mentions = mentions or {}
    assert mentions.get("parse", []) in (["users"], []), (what, mentions)
    assert not mentions.get("roles"), (what, mentions)
    assert not mentions.get("everyone"), (what, mentions)
