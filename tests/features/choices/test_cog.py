"""The TD's autocomplete through the real command tree: every option naming a row offers a
pick list, the values are what the options take, and only the TD sees them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from discord import app_commands

from bot.config import Config
from db.models import IncidentKind, RegistrationState, ReportState
from tests.conftest import TD_ID
from tests.factories import ROUND_THREAD, seed_round
from tests.features.choices.rows import add_game, add_incident, add_registration, add_report
from tests.results_helpers import AGREED
from tests.running import ALICE, BOB, ROLE_TD, RunningBot

PLAYERS = [(ALICE, "Alice"), (BOB, "Bob"), (None, "Carol"), (None, "Dave")]
# Every option of a /td command that names one of these gets a pick list.
PICKED = {"match", "player", "registration", "report", "game", "incident"}


def leaves(group: app_commands.Group) -> Iterator[app_commands.Command[Any, ..., Any]]:
    for command in group.commands:
        if isinstance(command, app_commands.Group):
            yield from leaves(command)
        else:
            yield command


async def test_every_td_option_naming_a_row_or_a_player_has_a_pick_list(
    running_bot: RunningBot,
) -> None:
    async with running_bot() as (bot, _):
        td = bot.tree.get_command("td")
        assert isinstance(td, app_commands.Group)
        picked = {
            f"{command.qualified_name} {param.name}": param.autocomplete
            for command in leaves(td)
            for param in command.parameters
            if param.name in PICKED
        }
        assert picked and all(picked.values()), picked
        for expected in (
            "td round set-score match",
            "td negotiation assign-time match",
            "td negotiation fault match",
            "td negotiation fault player",
            "td results void-game game",
            "td incident overrule incident",
            "td discipline disqualify player",
            "td discipline reinstate player",
            "td fairplay report-state report",
            "td registration show registration",
            "td registration approve registration",
            "td registration reject registration",
            "td console audit match",
            "td console audit player",
        ):
            assert expected in picked, sorted(picked)


async def test_set_score_offers_the_matches_and_takes_the_picked_one(
    running_bot: RunningBot, config: Config
) -> None:
    command = "td round set-score"
    async with running_bot() as (bot, h):
        h.add_text_channel(ROUND_THREAD, "round-1")
        assert bot.sessions is not None
        seeded = await seed_round(bot.sessions, config, PLAYERS)
        first = seeded.match_ids[0]
        offered = await h.autocomplete(command, user=TD_ID, option="match", current="alice")
        assert offered == [
            {"name": "Swiss round 1, board 1: Alice vs Bob (negotiating)", "value": first}
        ]
        assert isinstance(offered[0]["value"], int)  # an integer option takes an integer
        both = await h.autocomplete(
            command, user=ROLE_TD, option="match", current="", options={"score_a": 6.0}
        )
        assert [choice["value"] for choice in both] == seeded.match_ids
        picked = {"match": offered[0]["value"], "score_a": 6.0, "score_b": 0.0}
        done = await h.slash(command, user=TD_ID, options=picked)
        assert (
            done.ephemeral and "Swiss round 1, board 1 (Alice vs Bob): 6–0 recorded" in done.text
        ), done.text
        typed = {"match": seeded.match_ids[1], "score_a": 5.5, "score_b": 4.5}
        still = await h.slash(command, user=TD_ID, options=typed)  # a typed number still works
        assert "5.5–4.5 recorded" in still.text, still.text


@pytest.mark.parametrize(
    ("command", "option"),
    [
        ("td round set-score", "match"),
        ("td discipline disqualify", "player"),
        ("td registration show", "registration"),
        ("td results void-game", "game"),
        ("td console audit", "match"),
        ("td discipline reinstate", "player"),
    ],
)
async def test_nobody_but_the_td_gets_choices(
    running_bot: RunningBot, config: Config, command: str, option: str
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        seeded = await seed_round(bot.sessions, config, PLAYERS)
        await add_registration(bot.sessions, "Zed")
        await add_game(bot.sessions, seeded.match_ids[0], "abcdEFGH", 1, at=AGREED)
        assert await h.autocomplete(command, user=TD_ID, option=option, current="")
        assert await h.autocomplete(command, user=ALICE, option=option, current="") == []


async def test_disqualify_offers_the_players_by_lichess_name(
    running_bot: RunningBot, config: Config
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        await seed_round(bot.sessions, config, PLAYERS)
        command = "td discipline disqualify"
        offered = await h.autocomplete(command, user=TD_ID, option="player", current="BO")
        assert offered == [{"name": "Bob · registered", "value": "Bob"}]


async def test_registration_show_offers_the_registrations(
    running_bot: RunningBot, config: Config
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        approved = await add_registration(bot.sessions, "alice", RegistrationState.APPROVED)
        pending = await add_registration(bot.sessions, "bob", seed=2150.0)
        offered = await h.autocomplete(
            "td registration show", user=TD_ID, option="registration", current=""
        )
        assert offered == [
            {"name": f"registration {pending}: bob (pending, seed 2150)", "value": pending},
            {"name": f"registration {approved}: alice (approved, seed 2150)", "value": approved},
        ]
        shown = await h.slash(
            "td registration show", user=TD_ID, options={"registration": offered[0]["value"]}
        )
        assert shown.ephemeral and "bob" in shown.text, shown.text


async def test_void_game_offers_the_recorded_games(running_bot: RunningBot, config: Config) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        seeded = await seed_round(bot.sessions, config, PLAYERS)
        match_id = seeded.match_ids[0]
        await add_game(bot.sessions, match_id, "abcdEFGH", 1, at=AGREED)
        command = "td results void-game"
        offered = await h.autocomplete(command, user=TD_ID, option="game", current="efg")
        assert offered == [
            {"name": "abcdEFGH: Alice–Bob game 1 (Swiss round 1, board 1)", "value": "abcdEFGH"}
        ]


async def test_every_autocomplete_of_the_tree_answers_the_td_only(
    running_bot: RunningBot, config: Config
) -> None:
    """Autocomplete skips the /td groups' checks: each callback must refuse by itself. Every
    option with autocomplete in the tree is asked by the TD (who gets choices) and by a
    player (who gets none under /td; a player command's choices, such as /timezone's zone
    names, are for everyone)."""
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        seeded = await seed_round(bot.sessions, config, PLAYERS)
        await add_registration(bot.sessions, "Zed")
        await add_game(bot.sessions, seeded.match_ids[0], "abcdEFGH", 1, at=AGREED)
        await add_incident(bot.sessions, seeded.match_ids[0], IncidentKind.NO_SHOW)
        await add_report(bot.sessions, BOB, "Alice", ReportState.OPEN)
        filled = {"match": seeded.match_ids[0]}
        asked = []
        for top in bot.tree.get_commands():
            commands = leaves(top) if isinstance(top, app_commands.Group) else [top]
            for command in commands:
                for param in command.parameters:
                    if not param.autocomplete:
                        continue
                    name = command.qualified_name
                    names = {p.name for p in command.parameters} - {param.name}
                    others = {k: v for k, v in filled.items() if k in names}
                    ask = {"option": param.name, "current": "", "options": others}
                    assert await h.autocomplete(name, user=TD_ID, **ask), (name, param.name)
                    if name.startswith("td "):
                        assert await h.autocomplete(name, user=ALICE, **ask) == [], name
                    else:  # a player's command (/timezone's zone names): everyone is helped
                        assert await h.autocomplete(name, user=ALICE, **ask), name
                    asked.append(f"{name} {param.name}")
        assert "td negotiation fault player" in asked and len(asked) >= 14
        assert "timezone zone" in asked
