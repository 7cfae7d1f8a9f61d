"""Every slash command the bot syncs stays inside Discord's documented limits, with room to
grow; a tree Discord would refuse stops `acwc run` with one line naming the command and the
limit.

The limits (Discord developer documentation, application commands): 4,000 characters of
names, descriptions and choice names and values per command, over all its groups,
subcommands, options and choices; 25 options, subcommands or groups per level; 25 choices;
names 1-32 lowercase letters, digits, `-`, `_`, `'`; descriptions 1-100 characters; 100
commands per scope.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands

from bot import cli
from bot.app import ChampionshipBot
from bot.command_limits import command_problems, command_size, tree_problems
from bot.config import Config, Secrets
from bot.doctor.permissions import BOT_PERMISSIONS
from bot.lichess.client import LichessClient
from bot.startup import StartupRefused
from tests.conftest import GUILD_ID
from tests.fakes.lichess import FakeLichess
from tests.harness import discord_harness
from tests.running import RunningBot

ROOM = 0.9  # no command may use more than 90% of Discord's 4,000 characters
BUDGET = int(4000 * ROOM)


def payloads(bot: ChampionshipBot) -> list[dict[str, Any]]:
    return [command.to_dict(bot.tree) for command in bot.tree.get_commands()]


async def test_every_command_is_well_inside_discords_limits(running_bot: RunningBot) -> None:
    async with running_bot() as (bot, _):
        synced = payloads(bot)
        assert tree_problems(synced) == []
        sizes = {p["name"]: command_size(p) for p in synced}
        over = {name: size for name, size in sizes.items() if size > BUDGET}
        assert over == {}, f"over {BUDGET} characters (90% of 4,000): {over}"
        assert len(synced) <= 100


async def test_the_flat_aliases_of_earlier_versions_would_not_fit(
    running_bot: RunningBot,
) -> None:
    """The tree of the previous version (every grouped /td command also under its flat name)
    fails the budget: the check above would have caught the start-up failure."""
    async with running_bot() as (bot, _):
        td = bot.tree.get_command("td")
        assert isinstance(td, app_commands.Group)
        flat = [
            ("registration", "list", "registrations"),
            ("round", "set-score", "set-score"),
            ("negotiation", "assign-time", "assign-time"),
            ("negotiation", "fault", "fault"),
            ("results", "void-game", "void-game"),
            ("incident", "overrule", "overrule"),
            ("discipline", "disqualify", "disqualify"),
            ("discipline", "reinstate", "reinstate"),
            ("fairplay", "reports", "reports"),
            ("fairplay", "report-state", "report-state"),
            ("console", "audit", "audit"),
        ]
        for group_name, name, alias in flat:
            group = td.get_command(group_name)
            assert isinstance(group, app_commands.Group)
            command = group.get_command(name)
            assert isinstance(command, app_commands.Command)
            copy = app_commands.Command(
                name=alias, description=command.description, callback=command.callback
            )
            td.add_command(copy)
        swiss = app_commands.Group(name="swiss", description="swiss (also under /td round)")
        round_group = td.get_command("round")
        assert isinstance(round_group, app_commands.Group)
        for name in ("start", "publish"):
            command = round_group.get_command(name)
            assert isinstance(command, app_commands.Command)
            swiss.add_command(
                app_commands.Command(
                    name=name, description=command.description, callback=command.callback
                )
            )
        td.add_command(swiss)
        old = td.to_dict(bot.tree)
        assert command_size(old) > 4000
        assert any("Discord allows 4,000" in p for p in command_problems(old))


# --- the checker, on payloads whose figures are counted by hand -------------------------------


def command(name: str = "cmd", description: str = "d", **extra: Any) -> dict[str, Any]:
    return {"type": 1, "name": name, "description": description, **extra}


def option(name: str, kind: int = 3, *, required: bool = False, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "name": name, "description": "d", "required": required, **extra}


def test_names_descriptions_choice_names_and_values_all_count() -> None:
    choices = [{"name": "Open", "value": "open"}, {"name": "Upheld", "value": "upheld"}]
    state = option("state", choices=choices)
    payload = command("report", "Set it", options=[state])
    # report 6 + "Set it" 6 + state 5 + d 1 + Open 4 + open 4 + Upheld 6 + upheld 6
    assert command_size(payload) == 38
    group = {"type": 2, "name": "fairplay", "description": "Fair play", "options": []}
    sub = {"type": 1, "name": "reports", "description": "List", "options": [state]}
    group["options"] = [sub]
    nested = command("td", "TD", options=[group])
    # td 2 + TD 2 + fairplay 8 + "Fair play" 9 + reports 7 + List 4 + state option 26
    assert command_size(nested) == 58


def test_four_thousand_characters_pass_and_one_more_is_refused() -> None:
    def sized(total: int) -> dict[str, Any]:
        """c, d, one option o/d (4 characters), then choices of up to 100 + 100 to fill."""
        choices, left = [], total - 4
        while left > 0:
            name = f"{len(choices):02d}" + "n" * (min(100, left) - 2)
            value = "v" * min(100, left - len(name))
            choices.append({"name": name, "value": value})
            left -= len(name) + len(value)
        return command("c", "d", options=[option("o", choices=choices)])

    assert command_size(sized(4000)) == 4000 and command_problems(sized(4000)) == []
    assert command_size(sized(4001)) == 4001
    assert command_problems(sized(4001)) == [
        "/c: 4,001 characters of names, descriptions and choices (Discord allows 4,000 per command)"
    ]


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (command("Offer"), "must be lowercase"),
        (command("two words"), "may hold only"),
        (command("x" * 33), "is 33 characters (1 to 32)"),
        (command(description=""), "the description is 0 characters"),
        (command(description="y" * 101), "the description is 101 characters"),
        (command(options=[option(f"o{i}") for i in range(26)]), "26 options or subcommands"),
        (command(options=[option("a"), option("b", required=True)]), "required option"),
        (command(options=[option("a"), option("a")]), "share a name"),
        (
            command(options=[option("s", kind=1), option("plain")]),
            "mixes subcommands with plain options",
        ),
        (
            command(options=[option("g", kind=2, options=[option("plain")])]),
            "subcommands only",
        ),
        (
            command(options=[option("s", kind=1, options=[option("t", kind=1)])]),
            "may not hold subcommands",
        ),
        (
            command(
                options=[option("c", choices=[{"name": f"n{i}", "value": i} for i in range(26)])]
            ),
            "26 choices (at most 25)",
        ),
        (
            command(options=[option("c", choices=[{"name": "n" * 101, "value": "v"}])]),
            "is 101 characters",
        ),
        (
            command(options=[option("c", choices=[{"name": "n", "value": "v" * 101}])]),
            "is over 100",
        ),
    ],
)
def test_what_discord_refuses_is_named(payload: dict[str, Any], expected: str) -> None:
    problems = command_problems(payload)
    assert any(expected in problem for problem in problems), problems


def test_what_discord_accepts_passes() -> None:
    fine = command(
        "td-round_x'",
        "d" * 100,
        options=[
            option("g", kind=2, options=[option(f"s{i}", kind=1) for i in range(25)]),
            option("t", kind=1, options=[option("need", required=True), option("maybe")]),
        ],
    )
    assert command_problems(fine) == []


def test_a_hundred_commands_per_scope() -> None:
    assert tree_problems([command(f"c{i}") for i in range(100)]) == []
    assert tree_problems([command(f"c{i}") for i in range(101)]) == [
        "101 slash commands (Discord allows 100 per scope)"
    ]


# --- start-up against a Discord that applies the limits ----------------------------------------


def oversized() -> app_commands.Command[Any, ..., None]:
    """A command of 25 options with 25 long choices each: valid in shape, far over 4,000."""

    async def callback(interaction: discord.Interaction, pick: str) -> None:
        return None

    huge = app_commands.Command(name="huge", description="Too big", callback=callback)
    long_choices = [
        app_commands.Choice(name=f"{i:02d}" + "n" * 90, value=f"{i:02d}" + "v" * 90)
        for i in range(25)
    ]
    param = huge._params["pick"]
    param.choices = long_choices
    return huge


def syncing_bot(config: Config, fake: FakeLichess) -> ChampionshipBot:
    lichess = LichessClient(base_url=fake.base_url, timeout=5.0, rate_limit_pause=0.05)
    return ChampionshipBot(
        config,
        Secrets(),
        lichess=lichess,
        sync_commands=True,
        check_setup=False,
        start_scheduler=False,
    )


async def refused_start(bot: ChampionshipBot) -> str:
    """Start `bot` with an oversized command in its tree; the StartupRefused message."""
    bot.tree.add_command(oversized())
    try:
        with pytest.raises(StartupRefused) as refused:
            async with discord_harness(bot, run_setup_hook=True, guild_id=GUILD_ID):
                pass
    finally:
        await bot.close()  # as Client.run does when the start fails
    return str(refused.value)


async def test_the_bot_syncs_its_tree_to_a_discord_that_applies_the_limits(
    config: Config, fake: FakeLichess
) -> None:
    bot = syncing_bot(config, fake)
    async with discord_harness(bot, run_setup_hook=True, guild_id=GUILD_ID) as h:
        synced = [r for r in h.requests if r.method == "PUT" and r.path.endswith("/commands")]
        assert len(synced) == 1
        assert {c["name"] for c in synced[0].json} >= {"td", "offer", "accept", "help"}


async def test_a_tree_discord_would_refuse_stops_the_start_in_one_line(
    config: Config, fake: FakeLichess
) -> None:
    message = await refused_start(syncing_bot(config, fake))
    assert "\n" not in message
    assert "/huge" in message and "Discord allows 4,000 per command" in message


async def test_a_sync_discord_refuses_stops_the_start_with_its_reason(
    config: Config, fake: FakeLichess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even past the bot's own check, Discord's 50035 answer becomes one line, not a
    traceback: the command by name and Discord's reason."""
    monkeypatch.setattr("bot.startup.tree_problems", lambda payloads: [])
    message = await refused_start(syncing_bot(config, fake))
    assert "\n" not in message
    assert "'huge'" in message and "Command exceeds maximum size (4000)" in message


def test_acwc_run_says_it_in_one_line_and_exits_non_zero(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fake: FakeLichess,
    tmp_path: Path,
) -> None:
    """`acwc run` as a TD runs it: the bot logs in, its tree is refused, one line, exit 1.

    The server is set up right (the setup checks at start pass), so the tree is what stops it.
    """
    pairings = 3002
    config_file = tmp_path / "config.yaml"
    config_file.write_text(
        f"discord:\n  guild_id: {GUILD_ID}\n  pairings_channel_id: {pairings}\n", encoding="utf-8"
    )

    def run_against_discord(self: ChampionshipBot, token: str, **_: object) -> None:
        async def start() -> None:  # as Client.run: `async with self` closes the bot
            self.tree.add_command(oversized())
            try:
                async with discord_harness(
                    self,
                    run_setup_hook=True,
                    guild_id=GUILD_ID,
                    channels={"pairings": pairings},
                    bot_permissions=BOT_PERMISSIONS.value,
                ):
                    pass
            finally:
                await self.close()

        asyncio.run(start())

    monkeypatch.setattr(ChampionshipBot, "run", run_against_discord)
    monkeypatch.setattr("db.schema.migrate_in_child", lambda url: None)
    monkeypatch.setenv("DISCORD_TOKEN", "discord-token-123")
    monkeypatch.setenv("LICHESS_BASE_URL", fake.base_url)
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'acwc.sqlite3'}")
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        assert cli.main(["--config", str(config_file), "run"]) == cli.EXIT_FAILURE
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if " ERROR " in line]
    assert len(errors) == 1, err
    assert "/huge" in errors[0] and "4,000" in errors[0] and "Traceback" not in err
