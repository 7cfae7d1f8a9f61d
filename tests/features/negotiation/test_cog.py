"""Match-time negotiation through the real command tree, the fake clock and the due actions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config
from bot.timefmt import discord_time
from db.models import Match
from tests.conftest import TD_ID
from tests.factories import ROUND_THREAD, SeededRound, seed_round
from tests.harness import DiscordHarness
from tests.running import ALICE, BOB, RunningBot

CAROL, DAVE = 104, 105
MONDAY = datetime(2019, 9, 30, 9, 0, tzinfo=UTC)
TUE_18 = datetime(2019, 10, 1, 18, 0, tzinfo=UTC)
THU_20 = datetime(2019, 10, 3, 20, 0, tzinfo=UTC)
SAT_18 = datetime(2019, 10, 5, 18, 0, tzinfo=UTC)


async def setup_round(
    bot: ChampionshipBot, h: DiscordHarness, config: Config, clock: FakeClock
) -> SeededRound:
    clock.set(MONDAY)
    h.add_text_channel(ROUND_THREAD, "round-1")
    h.add_member(CAROL, "carol")
    h.add_member(DAVE, "dave")
    assert bot.sessions is not None
    return await seed_round(
        bot.sessions, config, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")]
    )


def accept_id(message: object, h: DiscordHarness) -> str:
    buttons = h.buttons(message)  # type: ignore[arg-type]
    assert [b["label"] for b in buttons] == ["Accept"]
    return str(buttons[0]["custom_id"])


async def agreed(
    sessions: async_sessionmaker[AsyncSession] | None, match_id: int
) -> datetime | None:
    assert sessions is not None
    async with sessions() as session:
        match = await session.get(Match, match_id)
        assert match is not None
        return match.agreed_time


async def tick(bot: ChampionshipBot) -> None:
    assert bot.due is not None and bot.outbox is not None
    await bot.due.sweep()
    await bot.outbox.flush()


async def test_offer_accepted_by_button_on_monday(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        rec = await h.slash("offer", user=ALICE, options={"times": "tue 18:00, thu 20:00"})
        assert rec.ephemeral and discord_time(TUE_18) in rec.text, rec.text
        posts = h.in_channel(ROUND_THREAD)
        assert len(posts) == 2 and discord_time(TUE_18) in posts[0].text
        assert discord_time(THU_20) in posts[1].text
        # one copy each (docs/MESSAGES.md): the thread post mentions Bob, and no DM repeats it
        assert all(f"<@{BOB}>" in p.text for p in posts)
        assert h.dms_to(BOB) == []

        button = accept_id(posts[0], h)
        assert button.startswith("acwc:offer:accept:")
        # a third person and the offerer cannot accept
        carol = await h.press(button, user=CAROL, message=posts[0])
        assert carol.ephemeral and "Only Bob can accept" in carol.text
        alice = await h.press(button, user=ALICE, message=posts[0])
        assert alice.ephemeral and "yourself" in alice.text
        assert await agreed(bot.sessions, seeded.match_ids[0]) is None

        pressed = await h.press(button, user=BOB, message=posts[0])
        assert pressed.ephemeral and discord_time(TUE_18) in pressed.text, pressed.text
        assert await agreed(bot.sessions, seeded.match_ids[0]) == TUE_18
        fixed = h.in_channel(ROUND_THREAD)[-1].text
        assert "fixed" in fixed and discord_time(TUE_18) in fixed
        assert f"<@{ALICE}>" in fixed and f"<@{BOB}>" in fixed
        assert h.dms_to(ALICE) == [] and h.dms_to(BOB) == []  # the mention is their copy

        # the other offer is superseded: its button now refuses with the agreed time
        late = await h.press(accept_id(posts[1], h), user=BOB, message=posts[1])
        assert "no longer open" in late.text and discord_time(TUE_18) in late.text

        view = await h.slash("match", user=ALICE)
        assert view.ephemeral and "Agreed time: " + discord_time(TUE_18) in view.text


async def test_accept_command_and_refusals(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        bad = await h.slash("offer", user=ALICE, options={"times": "10/02 6pm"})
        assert bad.ephemeral and "Accepted formats" in bad.text and not bad.errors
        gap = await h.slash("offer", user=ALICE, options={"times": "tue 18:00, tue 19:00"})
        assert gap.ephemeral and "rule V.D" in gap.text
        assert h.in_channel(ROUND_THREAD) == []

        await h.slash("offer", user=ALICE, options={"times": "tue 18:00"})
        stranger = await h.slash("accept", user=CAROL)
        assert stranger.ephemeral and "no open offer" in stranger.text
        rec = await h.slash("accept", user=BOB)
        assert rec.ephemeral and discord_time(TUE_18) in rec.text
        assert await agreed(bot.sessions, seeded.match_ids[0]) == TUE_18
        again = await h.slash("offer", user=BOB, options={"times": "wed 18:00"})
        assert "/reschedule" in again.text

        # reschedule: Bob proposes, Alice accepts with the button
        moved = await h.slash("reschedule", user=BOB, options={"time": "sat 18:00"})
        assert moved.ephemeral and discord_time(SAT_18) in moved.text
        proposal = h.in_channel(ROUND_THREAD)[-1]
        assert "proposes to move" in proposal.text
        await h.press(accept_id(proposal, h), user=ALICE, message=proposal)
        assert await agreed(bot.sessions, seeded.match_ids[0]) == SAT_18
        assert "moved from" in h.in_channel(ROUND_THREAD)[-1].text


async def test_rule_v_d_binds_the_three_offers_that_count_not_a_fourth(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    """While Alice owes offers, one within 3 hours of an earlier offer is refused (rule V.D);
    once her 3 offers are made she owes nothing, and a 4th close to an earlier one is made."""
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        await h.slash("offer", user=ALICE, options={"times": "tue 18:00, wed 18:00"})
        owed = await h.slash("offer", user=ALICE, options={"times": "tue 19:00"})
        assert owed.ephemeral and "Offer refused" in owed.text and "rule V.D" in owed.text
        assert "less than 3 hours apart" in owed.text, owed.text
        third = await h.slash("offer", user=ALICE, options={"times": "thu 20:00"})
        assert "Offer refused" not in third.text, third.text
        view = await h.slash("match", user=ALICE)
        assert "you 0" in view.text, view.text

        fourth = await h.slash("offer", user=ALICE, options={"times": "tue 19:00"})
        assert "Offer refused" not in fourth.text, fourth.text
        tue_19 = TUE_18 + timedelta(hours=1)
        assert discord_time(tue_19) in fourth.text, fourth.text
        assert discord_time(tue_19) in h.in_channel(ROUND_THREAD)[-1].text
        # Bob still owes 3: his own second offer within 3 hours of his first is refused.
        await h.slash("offer", user=BOB, options={"times": "wed 08:00"})
        bob = await h.slash("offer", user=BOB, options={"times": "wed 10:00"})
        assert bob.ephemeral and "rule V.D" in bob.text, bob.text


async def test_closed_dms_fall_back_to_the_thread(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        h.dm_closed.add(BOB)
        await h.slash("offer", user=ALICE, options={"times": "thu 20:00"})
        clock.advance(timedelta(hours=24))
        await tick(bot)  # the unanswered-offer reminder is a DM: Bob's are closed
        await tick(bot)
        reminder = [m for m in h.in_channel(ROUND_THREAD) if "still unanswered" in m.text]
        assert len(reminder) == 1 and f"<@{BOB}>" in reminder[0].text
        assert h.buttons(reminder[0]) and h.dms_to(BOB) == []


async def test_two_offers_by_wednesday_and_the_opponent_chooses(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        await h.slash("offer", user=ALICE, options={"times": "tue 18:00, wed 12:00, thu 20:00"})
        await h.slash("offer", user=BOB, options={"times": "tue 08:00, wed 20:00"})
        clock.set(datetime(2019, 10, 3, 0, 1, tzinfo=UTC))
        await tick(bot)
        assert "/choose" in h.dms_to(ALICE)[-1].text
        # Bob is told once, by the post that fixes the time (below): no "you will be told"
        # DM first (issue 32; this test asserted that DM before)
        assert not [m for m in h.dms_to(BOB) if "rule V.E" in m.text]
        view = await h.slash("match", user=BOB)
        assert "Alice chooses" in view.text and "you 1" in view.text

        refused = await h.slash("choose", user=BOB, options={"time": "sat 18:00"})
        assert refused.ephemeral and "Only Alice" in refused.text
        chosen = await h.slash("choose", user=ALICE, options={"time": "sat 18:00"})
        assert chosen.ephemeral and discord_time(SAT_18) in chosen.text
        assert await agreed(bot.sessions, seeded.match_ids[0]) == SAT_18
        # the agreement's one copy: the thread post, mentioning Bob, says the choice binds him
        fixed = h.in_channel(ROUND_THREAD)[-1].text
        assert f"<@{BOB}>" in fixed and "this choice binds them (rule V.E)" in fixed, fixed
        assert not [m for m in h.dms_to(BOB) if discord_time(SAT_18) in m.text]


async def test_both_fail_and_the_td_assigns(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        match_id = seeded.match_ids[0]
        clock.set(datetime(2019, 10, 3, 0, 1, tzinfo=UTC))
        await tick(bot)
        pick = "`match:` “Swiss round 1, board 1: Alice vs Bob”"  # the list's name, no row id
        td = [m for m in h.dms_to(TD_ID) if pick in m.text]
        assert len(td) == 1 and "/td negotiation assign-time" in td[0].text

        player = await h.slash(
            "td negotiation assign-time",
            user=ALICE,
            options={"match": match_id, "time": "sat 18:00"},
        )
        assert player.ephemeral and "tournament director" in player.text
        rec = await h.slash(
            "td negotiation assign-time",
            user=TD_ID,
            options={"match": match_id, "time": "sat 18:00"},
        )
        assert rec.ephemeral and discord_time(SAT_18) in rec.text, rec.text
        assert await agreed(bot.sessions, match_id) == SAT_18
        fixed = h.in_channel(ROUND_THREAD)[-1].text
        assert discord_time(SAT_18) in fixed and "assigned by the TD" in fixed
        assert f"<@{ALICE}>" in fixed and f"<@{BOB}>" in fixed


async def test_weekend_without_agreement_and_each_td_ruling(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        for user, times in (
            (ALICE, "tue 18:00, wed 12:00, thu 20:00"),
            (BOB, "tue 08:00, wed 20:00, thu 12:00"),
            (CAROL, "tue 18:00, wed 12:00, thu 20:00"),
            (DAVE, "tue 08:00, wed 20:00, thu 12:00"),
        ):
            rec = await h.slash("offer", user=user, options={"times": times})
            assert "Offered" in rec.text, rec.text
        clock.set(datetime(2019, 10, 5, 0, 0, 10, tzinfo=UTC))
        await tick(bot)
        first, second = seeded.match_ids
        td = h.dms_to(TD_ID)
        assert len(td) == 2 and all("/td negotiation fault" in m.text for m in td)

        unknown = await h.slash(
            "td negotiation fault", user=TD_ID, options={"match": first, "player": "Zed"}
        )
        assert "not a player of this match" in unknown.text
        rec = await h.slash(
            "td negotiation fault", user=TD_ID, options={"match": first, "player": "Bob"}
        )
        assert rec.ephemeral and "Alice has been asked" in rec.text
        assert "/choose" in h.dms_to(ALICE)[-1].text
        await h.slash("choose", user=ALICE, options={"time": "sat 18:00"})
        assert await agreed(bot.sessions, first) == SAT_18
        # the post names the rule that let Alice choose: the TD's ruling (V.H, V.I), not the
        # missed offers of rule V.E (Bob made his)
        fixed = next(m.text for m in reversed(h.in_channel(ROUND_THREAD)) if "fixed" in m.text)
        assert "(chosen under rule V.I)" in fixed, fixed
        assert "the TD found Bob at fault (rule V.H), this choice binds them (rule V.I)" in fixed
        assert "rule V.E" not in fixed

        rec = await h.slash(
            "td negotiation fault", user=TD_ID, options={"match": second, "player": "nobody"}
        )
        assert "nobody at fault" in rec.text
        told = h.dms_to(TD_ID)[-1].text
        assert "/td negotiation assign-time`, `match:` “Swiss round 1, board 2: " in told, told
        await h.slash(
            "td negotiation assign-time", user=TD_ID, options={"match": second, "time": "sun 12:00"}
        )
        assert await agreed(bot.sessions, second) == datetime(2019, 10, 6, 12, tzinfo=UTC)


async def test_unanswered_offer_reminder(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        await h.slash("offer", user=ALICE, options={"times": "thu 20:00"})
        clock.advance(timedelta(hours=24))
        await tick(bot)
        await tick(bot)
        reminders = [m for m in h.dms_to(BOB) if "still unanswered" in m.text]
        assert len(reminders) == 1 and discord_time(THU_20) in reminders[0].text
        pressed = await h.press(accept_id(reminders[0], h), user=BOB, message=reminders[0])
        assert discord_time(THU_20) in pressed.text


async def test_offers_made_together_are_reminded_together(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    """Three offers in one /offer, none answered for a day: one reminder listing the three
    (it was three DMs at once), and none again for them the next day."""
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        await h.slash("offer", user=ALICE, options={"times": "thu 20:00, fri 14:00, sat 12:00"})
        clock.advance(timedelta(hours=24))
        await tick(bot)
        await tick(bot)
        reminders = [m for m in h.dms_to(BOB) if "still unanswered" in m.text]
        assert len(reminders) == 1, [m.text for m in reminders]
        assert "3 offers are still unanswered" in reminders[0].text
        assert all(f"({n} offer)" in reminders[0].text for n in ("1st", "2nd", "3rd"))
        clock.advance(timedelta(hours=24))
        await tick(bot)
        assert len([m for m in h.dms_to(BOB) if "still unanswered" in m.text]) == 1


async def test_reminders_sent_once_across_a_restart(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        await h.slash("offer", user=ALICE, options={"times": "thu 20:00"})
        offer_button = accept_id(h.in_channel(ROUND_THREAD)[0], h)
    async with running_bot() as (bot, h):
        # the Accept button still works after a restart
        h.add_member(CAROL, "carol")
        pressed = await h.press(offer_button, user=BOB)
        assert discord_time(THU_20) in pressed.text, pressed.text
        clock.set(THU_20 - timedelta(hours=1))
        assert bot.due is not None
        assert await bot.due.sweep() >= 2  # both reminders ran; the bot "dies" before sending
        assert not [m for m in h.in_channel(ROUND_THREAD) if m.text.startswith("Reminder: ")]
    async with running_bot() as (bot, h):
        await tick(bot)
        await tick(bot)
        # one post in the match's thread per reminder, mentioning both players
        reminders = [m for m in h.in_channel(ROUND_THREAD) if m.text.startswith("Reminder: ")]
        assert len(reminders) == 2, [m.text for m in h.in_channel(ROUND_THREAD)]
        for user in (ALICE, BOB):
            assert all(f"<@{user}>" in m.text for m in reminders)
        assert all(discord_time(THU_20) in m.text for m in reminders)
        # the time once in UTC: "starts <t:…:R>, at <t:…:F> (… UTC)", not UTC twice
        assert all(m.text.count("UTC") == 1 for m in reminders), reminders[0].text
    async with running_bot() as (bot, h):
        await tick(bot)
        assert h.dms_to(ALICE) == [] and h.dms_to(BOB) == []
        assert not [m for m in h.in_channel(ROUND_THREAD) if m.text.startswith("Reminder: ")]


async def test_without_a_thread_the_offer_and_the_agreement_come_by_dm(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    """The thread post is each player's one copy; a round without a thread (no pairings
    channel) would leave them untold, so then the same messages come by DM."""
    async with running_bot() as (bot, h):
        clock.set(MONDAY)
        assert bot.sessions is not None
        seeded = await seed_round(
            bot.sessions, config, [(ALICE, "Alice"), (BOB, "Bob")], thread_id=None
        )
        await h.slash("offer", user=ALICE, options={"times": "tue 18:00"})
        offer = h.dms_to(BOB)
        assert len(offer) == 1 and discord_time(TUE_18) in offer[0].text
        pressed = await h.press(accept_id(offer[0], h), user=BOB, message=offer[0], dm=True)
        assert discord_time(TUE_18) in pressed.text
        assert await agreed(bot.sessions, seeded.match_ids[0]) == TUE_18
        for user in (ALICE, BOB):
            fixed = h.dms_to(user)[-1].text
            assert "fixed" in fixed and discord_time(TUE_18) in fixed, fixed
