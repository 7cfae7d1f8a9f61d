"""/td setup through the real command tree: the channels and the TD role are picked with
Discord's select menus, stored, applied at once and after a restart, and shown with where
each value comes from; a value picked in Discord wins over the config file."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from bot.config import Config
from bot.doctor.permissions import BOT_PERMISSIONS
from db.models import AuditEntry, Round
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID, TD_ROLE_ID
from tests.factories import seed_round
from tests.harness.discord import DiscordHarness, InteractionRecord
from tests.running import ALICE, BOB, RunningBot

PAIRINGS, OTHER_ANNOUNCE, NEW_ROLE = 4300, 4301, 2100
PICK = "acwc:setup:"


def channel_pick(channel_id: int, kind: int) -> dict[str, Any]:
    return {"channels": {str(channel_id): {"id": str(channel_id), "type": kind}}}


async def pick(
    h: DiscordHarness, field: str, values: list[int], user: int = TD_ID, kind: int = 0
) -> InteractionRecord:
    """Choose in the panel's menu as Discord sends it: the ids, and the resolved channels."""
    record = await h.press(PICK + field, user=user, values=[str(v) for v in values])
    return record


async def test_the_panel_shows_each_setting_and_where_it_comes_from(
    running_bot: RunningBot,
) -> None:
    async with running_bot() as (_, h):
        panel = await h.slash("td setup", user=TD_ID)
        assert panel.ephemeral
        text = panel.text
        assert f"**Announcements channel**: <#{ANNOUNCE_CHANNEL}> · from the config file" in text
        assert "**Pairings channel**: not set: no pairings post" in text
        assert f"**TD role**: <@&{TD_ROLE_ID}> · from the config file" in text
        assert "wins over the config file" in text
        assert "Integrations" in text  # how a TD who holds only the role gets to see /td
        assert "**Checks**" in text and "✗ Pairings channel: not configured" in text, text
        components = next(r.components for r in panel.responses if r.components)
        kinds = [row["components"][0]["type"] for row in components]
        assert kinds == [8, 8, 8, 6]  # three channel menus, one role menu
        announce = components[0]["components"][0]
        [default] = announce["default_values"]
        assert (str(default["id"]), default["type"]) == (str(ANNOUNCE_CHANNEL), "channel")
        pairings = components[1]["components"][0]
        assert sorted(pairings["channel_types"]) == [0, 15]  # text or forum


async def test_a_picked_channel_is_used_at_once_and_after_a_restart(
    running_bot: RunningBot, config: Config
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(PAIRINGS, "pairings")
        h.set_bot_permissions(BOT_PERMISSIONS.value)  # as the invite link gives them
        await h.slash("td setup", user=TD_ID)
        assert bot.sessions is not None
        await seed_round(bot.sessions, config, [(ALICE, "Alice"), (BOB, "Bob")], thread_id=None)
        done = await pick(h, "pairings_channel_id", [PAIRINGS])
        assert done.refusal is None
        assert f"**Pairings channel**: <#{PAIRINGS}> · set here" in done.text
        assert "✓ Pairings channel" in done.text, done.text
        assert h.in_channel(PAIRINGS), "the waiting round is posted in the picked channel"
        async with bot.sessions() as session:
            round_ = await session.scalar(select(Round))
            entry = await session.scalar(
                select(AuditEntry).where(AuditEntry.action == "server_setting")
            )
        assert round_ is not None and round_.thread_id is not None
        assert entry is not None and entry.actor_id == TD_ID
        await pick(h, "announcement_channel_id", [OTHER_ANNOUNCE])
    async with running_bot() as (bot, h):
        assert bot.config.discord.pairings_channel_id == PAIRINGS
        panel = await h.slash("td setup", user=TD_ID)
        assert (
            f"**Announcements channel**: <#{OTHER_ANNOUNCE}> · set here "
            f"(the config file says <#{ANNOUNCE_CHANNEL}>)" in panel.text
        )
        back = await pick(h, "announcement_channel_id", [])  # cleared: the file's again
        assert f"<#{ANNOUNCE_CHANNEL}> · from the config file" in back.text
        assert bot.config.discord.announcement_channel_id == ANNOUNCE_CHANNEL


async def test_a_picked_role_makes_its_holders_tds(running_bot: RunningBot) -> None:
    async with running_bot() as (_, h):
        h.add_member(BOB + 50, "newtd", roles=[NEW_ROLE])
        refused = await h.slash("td console audit", user=BOB + 50)
        assert "tournament director" in refused.text
        await h.slash("td setup", user=TD_ID)
        await pick(h, "td_role_id", [NEW_ROLE])
        allowed = await h.slash("td console audit", user=BOB + 50)
        assert allowed.refusal is None, allowed.text


async def test_only_the_td_or_a_server_manager_may_set_up(running_bot: RunningBot) -> None:
    async with running_bot() as (bot, h):
        refused = await h.slash("td setup", user=ALICE)
        assert refused.ephemeral and "tournament director" in refused.text
        await h.slash("td setup", user=TD_ID)
        stranger = await pick(h, "pairings_channel_id", [PAIRINGS], user=ALICE)
        assert stranger.refusal is not None and "server manager" in stranger.refusal
        assert bot.config.discord.pairings_channel_id is None
