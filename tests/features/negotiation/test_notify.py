"""/notify: a player mutes the reminder DMs (before a match, an unanswered offer) and keeps
every decision that concerns them, through the real command tree and the due actions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.clock import FakeClock
from bot.config import Config
from tests.factories import ROUND_THREAD
from tests.features.negotiation.test_cog import THU_20, accept_id, setup_round, tick
from tests.running import ALICE, BOB, RunningBot

REMINDER = "Reminder: "


async def test_muted_reminders_reach_only_the_player_who_wants_them(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        off = await h.slash("notify", user=ALICE, options={"reminders": "off"})
        assert off.ephemeral and "Reminders are **off**" in off.text, off.text
        again = await h.slash("notify", user=ALICE, options={"reminders": "off"})
        assert "already **off**" in again.text
        await h.slash("offer", user=BOB, options={"times": "thu 20:00"})
        offer = h.in_channel(ROUND_THREAD)[-1]
        await h.press(accept_id(offer, h), user=ALICE, message=offer)
        for hours in (24, 1):
            clock.set(THU_20 - timedelta(hours=hours))
            await tick(bot)
        # one post in the match's thread each time, mentioning only Bob; no DM
        posts = [m for m in h.in_channel(ROUND_THREAD) if m.text.startswith(REMINDER)]
        assert len(posts) == 2 and all(f"<@{BOB}>" in m.text for m in posts)
        assert not [m for m in posts if f"<@{ALICE}>" in m.text]
        assert not [m for m in h.dms_to(ALICE) + h.dms_to(BOB) if m.text.startswith(REMINDER)]


async def test_a_muted_unanswered_offer_is_not_reminded_and_on_turns_it_back(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        await h.slash("notify", user=BOB, options={"reminders": "off"})
        await h.slash("offer", user=ALICE, options={"times": "thu 20:00"})
        clock.advance(timedelta(hours=24))
        await tick(bot)
        assert not [m for m in h.dms_to(BOB) if "still unanswered" in m.text]

        on = await h.slash("notify", user=BOB, options={"reminders": "on"})
        assert on.ephemeral and "Reminders are **on**" in on.text, on.text
        await h.slash("offer", user=ALICE, options={"times": "fri 20:00"})
        clock.advance(timedelta(hours=24))
        await tick(bot)
        reminded = [m for m in h.dms_to(BOB) if "still unanswered" in m.text]
        assert len(reminded) == 1 and "(2nd offer)" in reminded[0].text, reminded


async def test_muting_reminders_never_mutes_a_decision(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    """Rule V.E: Bob missed his offers; Alice chooses. Both muted their reminders, and both
    are still told: Alice that she chooses, Bob (once, issue 32) by the post that fixes the
    time, which mentions him and says her choice binds him."""
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        for user in (ALICE, BOB):
            await h.slash("notify", user=user, options={"reminders": "off"})
        await h.slash("offer", user=ALICE, options={"times": "tue 18:00, wed 12:00, thu 20:00"})
        await h.slash("offer", user=BOB, options={"times": "tue 08:00"})
        clock.set(datetime(2019, 10, 3, 0, 1, tzinfo=UTC))
        await tick(bot)
        assert "/choose" in h.dms_to(ALICE)[-1].text
        await h.slash("choose", user=ALICE, options={"time": "sat 18:00"})
        fixed = h.in_channel(ROUND_THREAD)[-1].text
        assert f"<@{BOB}>" in fixed and "this choice binds them (rule V.E)" in fixed, fixed


async def test_notify_needs_a_player(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        h.add_member(999, "stranger")
        rec = await h.slash("notify", user=999, options={"reminders": "off"})
        assert rec.ephemeral and "not a player" in rec.text, rec.text
