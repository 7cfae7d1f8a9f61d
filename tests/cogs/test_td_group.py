"""/td: one group, one subgroup per feature, each TD-only; every command has one name."""

from __future__ import annotations

from datetime import UTC, datetime

from discord import app_commands

from bot.clock import FakeClock
from bot.config import Config
from db.models import Match, MatchState
from tests.conftest import TD_ID
from tests.factories import ROUND_THREAD, seed_round
from tests.running import ALICE, BOB, ROLE_TD, RunningBot

SUBGROUPS = {
    "registration": {"list", "show", "approve", "reject", "open", "close"},
    "round": {"start", "publish", "set-score"},
    "negotiation": {"assign-time", "fault"},
    "results": {"void-game"},
    "armageddon": {"rps"},
    "incident": {"overrule"},
    "discipline": {"disqualify", "reinstate"},
    "fairplay": {"reports", "report-state"},
    "console": {"audit"},
}


async def test_one_subgroup_per_feature_and_nothing_else(running_bot: RunningBot) -> None:
    """The flat aliases of earlier versions are gone: /td holds the feature subgroups only."""
    async with running_bot() as (bot, _):
        td = bot.tree.get_command("td")
        assert isinstance(td, app_commands.Group)
        children = {c.name: c for c in td.commands}
        assert set(children) == set(SUBGROUPS) | {"setup"}  # /td setup stands alone
        for name, commands in SUBGROUPS.items():
            group = children[name]
            assert isinstance(group, app_commands.Group)
            assert {c.name for c in group.commands} == commands


async def test_a_td_command_is_td_only(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    command = "td round set-score"
    clock.set(datetime(2019, 9, 30, 9, 0, tzinfo=UTC))
    async with running_bot() as (bot, h):
        h.add_text_channel(ROUND_THREAD, "round-1")
        assert bot.sessions is not None
        players = [(ALICE, "Alice"), (BOB, "Bob"), (None, "Carol"), (None, "Dave")]
        seeded = await seed_round(bot.sessions, config, players)
        options = {"match": seeded.match_ids[0], "score_a": 6.0, "score_b": 0.0}
        refused = await h.slash(command, user=ALICE, options=options)
        assert refused.ephemeral and "tournament director" in refused.text, refused.text
        async with bot.sessions() as session:
            match = await session.get(Match, seeded.match_ids[0])
            assert match is not None and match.state is MatchState.NEGOTIATING
        done = await h.slash(command, user=ROLE_TD, options=options)
        assert done.ephemeral and "6–0 recorded" in done.text, done.text
        async with bot.sessions() as session:
            match = await session.get(Match, seeded.match_ids[0])
            assert match is not None and match.state is MatchState.FINISHED
        again = await h.slash(command, user=TD_ID, options=options)
        assert again.ephemeral, again.text
