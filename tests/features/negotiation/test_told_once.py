"""Issue 32, "told twice, told wrong": an offer is named by its number among its offerer's
offers in the match (never the global row id, which reads as a count toward rule V.C's
three), `/accept offer:N` takes that number, and a player the offers deadline put at fault
is not reminded to "accept or make a counter-offer" (rule V.E decides for them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.clock import FakeClock
from bot.config import Config
from tests.factories import ROUND_THREAD
from tests.features.negotiation.test_cog import setup_round, tick
from tests.running import ALICE, BOB, RunningBot


async def test_offers_are_numbered_per_player_and_match_and_accepted_by_that_number(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        await h.slash("offer", user=BOB, options={"times": "tue 08:00"})
        await h.slash("offer", user=ALICE, options={"times": "tue 18:00, wed 12:00"})
        posts = [m.text for m in h.in_channel(ROUND_THREAD) if "offers" in m.text]
        assert "(Bob's 1st offer)" in posts[-3], posts
        assert "(Alice's 1st offer)" in posts[-2] and "(Alice's 2nd offer)" in posts[-1]
        view = await h.slash("match", user=BOB)
        assert "- 2nd offer:" in view.text and "offer 3" not in view.text, view.text

        accepted = await h.slash("accept", user=BOB, options={"offer": 2})
        assert accepted.ephemeral, accepted.text
        fixed = h.in_channel(ROUND_THREAD)[-1].text
        assert "2019-10-02 12:00 UTC" in fixed and "offer accepted" in fixed, fixed


async def test_a_player_short_of_offers_is_not_told_to_counter_offer(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    """Bob made one offer by the deadline (rule V.C): Alice's offers, unanswered, fall due
    in the same sweep as the deadline. Bob hears only what is true for him: Alice
    chooses (rule V.E), told once with the time."""
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        await h.slash("offer", user=BOB, options={"times": "tue 08:00"})
        clock.set(datetime(2019, 10, 2, 23, 0, tzinfo=UTC))
        await h.slash("offer", user=ALICE, options={"times": "thu 18:00, fri 12:00, sat 20:00"})
        clock.advance(timedelta(hours=25))  # past the deadline and Alice's day to answer
        await tick(bot)
        await tick(bot)
        assert not [m for m in h.dms_to(BOB) if "counter-offer" in m.text], h.dms_to(BOB)
        assert not [m for m in h.in_channel(ROUND_THREAD) if "still unanswered" in m.text]
        assert "/choose" in h.dms_to(ALICE)[-1].text
