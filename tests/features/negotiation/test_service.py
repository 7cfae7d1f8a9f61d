"""Match-time negotiation (rule V) against a migrated SQLite file and a fake clock."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.due import DueActionRunner, DueKind
from bot.errors import InvalidInput, NotAllowed, UserFacingError, WrongStage
from bot.features.negotiation.text import nth
from bot.timefmt import discord_time
from bot.wiring import Services
from db.models import (
    AuditEntry,
    DueAction,
    Match,
    MatchState,
    OfferKind,
    OfferState,
    OutboxKind,
    OutboxMessage,
    TDDecision,
    TimeOffer,
)
from tests.conftest import TD_ID
from tests.factories import ROUND_THREAD, SeededRound, seed_round, wired

ALICE, BOB, CAROL, DAVE = 101, 102, 103, 104
MONDAY = datetime(2019, 9, 30, 9, 0, tzinfo=UTC)
TUE_18 = datetime(2019, 10, 1, 18, 0, tzinfo=UTC)
WED_12 = datetime(2019, 10, 2, 12, 0, tzinfo=UTC)
WED_18 = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)
THU_20 = datetime(2019, 10, 3, 20, 0, tzinfo=UTC)
SAT_18 = datetime(2019, 10, 5, 18, 0, tzinfo=UTC)


@pytest.fixture
def service(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> Services:
    clock.set(MONDAY)
    return wired(sessions, config, clock)


@pytest.fixture
def runner(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, service: Services
) -> DueActionRunner:
    runner = DueActionRunner(sessions, clock)
    for kind, handler in service.deadlines.due_handlers().items():
        runner.register(kind, handler)
    return runner


@pytest.fixture
async def seeded(sessions: async_sessionmaker[AsyncSession], config: Config) -> SeededRound:
    return await seed_round(
        sessions, config, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")]
    )


async def match(sessions: async_sessionmaker[AsyncSession], match_id: int) -> Match:
    async with sessions() as session:
        row = await session.get(Match, match_id)
        assert row is not None
        return row


async def offers(sessions: async_sessionmaker[AsyncSession]) -> list[TimeOffer]:
    async with sessions() as session:
        return list((await session.scalars(select(TimeOffer).order_by(TimeOffer.id))).all())


async def outbox(sessions: async_sessionmaker[AsyncSession]) -> list[OutboxMessage]:
    async with sessions() as session:
        return list((await session.scalars(select(OutboxMessage).order_by(OutboxMessage.id))).all())


async def dms(sessions: async_sessionmaker[AsyncSession], user: int) -> list[str]:
    return [
        m.content for m in await outbox(sessions) if m.kind is OutboxKind.DM and m.target_id == user
    ]


async def channel_posts(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    """What the round thread got, in order."""
    return [
        m.content
        for m in await outbox(sessions)
        if m.kind is OutboxKind.CHANNEL and m.target_id == ROUND_THREAD
    ]


async def pending(sessions: async_sessionmaker[AsyncSession], kind: str) -> list[DueAction]:
    async with sessions() as session:
        return list(
            (
                await session.scalars(
                    select(DueAction).where(
                        DueAction.kind == kind,
                        DueAction.done_at.is_(None),
                        DueAction.cancelled_at.is_(None),
                    )
                )
            ).all()
        )


async def count(sessions: async_sessionmaker[AsyncSession], model: type) -> int:
    async with sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


# --- offers and agreement ----------------------------------------------------------------------


async def test_offers_accepted_on_monday(
    service: Services, sessions: async_sessionmaker[AsyncSession], seeded: SeededRound
) -> None:
    result = await service.offers.offer(
        discord_id=ALICE, text="2019-10-01 18:00, wed 12:00, thu 20:00"
    )
    assert [o.time for o in result.offers] == [TUE_18, WED_12, THU_20]
    assert result.opponent == "Bob" and result.still_owed == 0
    assert len(await pending(sessions, DueKind.OFFER_UNANSWERED)) == 3

    rows = await outbox(sessions)
    thread_posts = [m for m in rows if m.kind is OutboxKind.CHANNEL]
    assert [m.target_id for m in thread_posts] == [ROUND_THREAD] * 3
    assert discord_time(TUE_18) in thread_posts[0].content
    # each offer once: the thread post mentions Bob and carries the Accept button; no DM copy
    assert all(f"<@{BOB}>" in m.content for m in thread_posts)
    assert not [m for m in rows if m.kind is OutboxKind.DM and m.target_id == BOB]
    first = {"kind": "offer_accept", "args": {"offer_id": result.offers[0].id}}
    assert thread_posts[0].view == first

    agreement = await service.agreements.accept(discord_id=BOB, offer_id=result.offers[1].id)
    assert agreement.time == WED_12 and agreement.previous is None

    m = await match(sessions, seeded.match_ids[0])
    assert m.agreed_time == WED_12 and m.state is MatchState.SCHEDULED
    states = [o.state for o in await offers(sessions)]
    assert states == [OfferState.SUPERSEDED, OfferState.ACCEPTED, OfferState.SUPERSEDED]
    assert await pending(sessions, DueKind.OFFER_UNANSWERED) == []
    reminders = await pending(sessions, DueKind.MATCH_REMINDER)
    assert sorted(r.due_at for r in reminders) == [
        WED_12 - timedelta(hours=24),
        WED_12 - timedelta(hours=1),
    ]
    fixed = (await channel_posts(sessions))[-1]
    assert discord_time(WED_12) in fixed and f"<@{ALICE}>" in fixed and f"<@{BOB}>" in fixed
    for user in (ALICE, BOB):  # the mention is their one copy
        assert not any(discord_time(WED_12) in text for text in await dms(sessions, user))
    async with sessions() as session:
        actions = (await session.scalars(select(AuditEntry.action))).all()
    assert actions.count("time_offer") == 3 and "match_time_set" in actions


async def test_accept_without_id_takes_the_single_open_offer(
    service: Services, sessions: async_sessionmaker[AsyncSession], seeded: SeededRound
) -> None:
    await service.offers.offer(discord_id=ALICE, text="tue 18:00")
    agreement = await service.agreements.accept(discord_id=BOB)
    assert agreement.time == TUE_18


async def test_accept_without_id_lists_several_open_offers(
    service: Services, seeded: SeededRound
) -> None:
    result = await service.offers.offer(discord_id=ALICE, text="tue 18:00, wed 18:00")
    with pytest.raises(InvalidInput) as info:
        await service.agreements.accept(discord_id=BOB)
    for offer in result.offers:  # numbered per player and match, not by row id (issue 32)
        assert f"Alice's {nth(offer.number)} offer: {discord_time(offer.time)}" in (
            info.value.message
        )
        assert f"offer {offer.id}" not in info.value.message


async def test_no_open_offer_to_accept(service: Services, seeded: SeededRound) -> None:
    await service.offers.offer(discord_id=ALICE, text="tue 18:00")
    with pytest.raises(InvalidInput, match="no open offer"):
        await service.agreements.accept(discord_id=ALICE)  # only her own offer is open


@pytest.mark.parametrize(
    ("earlier", "text", "reason"),
    [
        (None, "mon 08:00", "is in the past"),
        (None, "sun 23:00", "is too late"),
        (None, "2019-09-29 18:00", "is in the past"),
        ("tue 18:00", "2019-10-01 18:00", "You already offered"),
        (None, "tue 18:00, 2019-10-01T18:00Z", "given twice"),
        ("tue 18:00", "tue 20:00", "less than 3 hours apart (rule V.D)"),
        ("tue 08:00, tue 12:00", "tue 18:00", "at most 2 per date (rule V.D)"),
        (None, "10/02 6pm", "Accepted formats"),
        (None, "tomorrow 18:00", "Accepted formats"),
    ],
)
async def test_refused_offers_change_nothing(
    service: Services,
    sessions: async_sessionmaker[AsyncSession],
    seeded: SeededRound,
    earlier: str | None,
    text: str,
    reason: str,
) -> None:
    if earlier:
        await service.offers.offer(discord_id=ALICE, text=earlier)
    before = (await count(sessions, TimeOffer), await count(sessions, OutboxMessage))
    with pytest.raises(InvalidInput) as info:
        await service.offers.offer(discord_id=ALICE, text=text)
    assert reason in info.value.message
    assert "UTC" in info.value.message or "Accepted" in info.value.message
    assert (await count(sessions, TimeOffer), await count(sessions, OutboxMessage)) == before


async def test_rule_v_d_problem_shows_discord_times(service: Services, seeded: SeededRound) -> None:
    await service.offers.offer(discord_id=ALICE, text="tue 18:00")
    with pytest.raises(InvalidInput) as info:
        await service.offers.offer(discord_id=ALICE, text="tue 20:00")
    assert discord_time(TUE_18) in info.value.message
    assert discord_time(TUE_18 + timedelta(hours=2)) in info.value.message


async def test_last_possible_start_is_accepted(service: Services, seeded: SeededRound) -> None:
    result = await service.offers.offer(discord_id=ALICE, text="sun 21:59")
    assert result.offers[0].time == datetime(2019, 10, 6, 21, 59, tzinfo=UTC)


async def test_offer_after_agreement_points_to_reschedule(
    service: Services, seeded: SeededRound
) -> None:
    await service.offers.offer(discord_id=ALICE, text="tue 18:00")
    await service.agreements.accept(discord_id=BOB)
    with pytest.raises(WrongStage, match="/reschedule"):
        await service.offers.offer(discord_id=BOB, text="wed 18:00")


async def test_not_your_match(service: Services, seeded: SeededRound) -> None:
    result = await service.offers.offer(discord_id=ALICE, text="tue 18:00")
    with pytest.raises(NotAllowed, match="Only Bob can accept"):
        await service.agreements.accept(discord_id=CAROL, offer_id=result.offers[0].id)
    with pytest.raises(NotAllowed, match="yourself"):
        await service.agreements.accept(discord_id=ALICE, offer_id=result.offers[0].id)
    with pytest.raises(NotAllowed, match="not a player"):
        await service.agreements.accept(discord_id=999, offer_id=result.offers[0].id)
    with pytest.raises(NotAllowed, match="not a player"):
        await service.offers.offer(discord_id=999, text="tue 18:00")


async def test_a_bye_has_nothing_to_negotiate(
    sessions: async_sessionmaker[AsyncSession], config: Config, service: Services
) -> None:
    await seed_round(sessions, config, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")])
    with pytest.raises(WrongStage, match="bye"):
        await service.offers.offer(discord_id=CAROL, text="tue 18:00")
    view = await service.offers.match_view(discord_id=CAROL)
    assert view.opponent is None


async def test_two_simultaneous_accepts_end_with_one_agreed_time(
    service: Services, sessions: async_sessionmaker[AsyncSession], seeded: SeededRound
) -> None:
    alice_offer = (await service.offers.offer(discord_id=ALICE, text="tue 18:00")).offers[0]
    bob_offer = (await service.offers.offer(discord_id=BOB, text="wed 18:00")).offers[0]
    results = await asyncio.gather(
        service.agreements.accept(discord_id=BOB, offer_id=alice_offer.id),
        service.agreements.accept(discord_id=ALICE, offer_id=bob_offer.id),
        return_exceptions=True,
    )
    won = [r for r in results if not isinstance(r, BaseException)]
    lost = [r for r in results if isinstance(r, BaseException)]
    assert len(won) == 1 and len(lost) == 1, results
    assert isinstance(lost[0], WrongStage)
    agreed = (await match(sessions, seeded.match_ids[0])).agreed_time
    assert agreed == won[0].time
    assert discord_time(agreed) in lost[0].message
    states = sorted(o.state.value for o in await offers(sessions))
    assert states == ["accepted", "superseded"]
    async with sessions() as session:
        sets = await session.scalar(
            select(func.count()).where(AuditEntry.action == "match_time_set")
        )
    assert sets == 1


async def test_match_view(service: Services, seeded: SeededRound) -> None:
    await service.offers.offer(discord_id=ALICE, text="tue 18:00, wed 12:00")
    await service.offers.offer(discord_id=BOB, text="thu 20:00")
    view = await service.offers.match_view(discord_id=BOB)
    assert view.me == "Bob" and view.opponent == "Alice"
    assert view.my_offers_owed == 2 and view.opponent_offers_owed == 1
    assert view.offers_due == datetime(2019, 10, 3, tzinfo=UTC)
    assert [o.mine for o in view.offers] == [False, False, True]
    assert view.agreed_time is None and view.chooser is None


# --- deadlines ----------------------------------------------------------------------------------


async def test_unanswered_offer_reminded_once(
    service: Services,
    runner: DueActionRunner,
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    await service.offers.offer(discord_id=ALICE, text="thu 20:00")
    clock.advance(timedelta(hours=23))
    await runner.sweep()
    assert await dms(sessions, BOB) == []  # the offer itself is the thread post mentioning Bob
    clock.advance(timedelta(hours=1))
    await runner.sweep()
    await runner.sweep()
    bob = await dms(sessions, BOB)
    assert len(bob) == 1 and "still unanswered" in bob[0] and discord_time(THU_20) in bob[0]


async def test_answered_offer_is_not_reminded(
    service: Services,
    runner: DueActionRunner,
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    await service.offers.offer(discord_id=ALICE, text="thu 20:00, fri 20:00")
    await service.agreements.accept(discord_id=BOB, offer_id=(await offers(sessions))[0].id)
    clock.advance(timedelta(hours=25))
    await runner.sweep()
    assert not any("unanswered" in t for t in await dms(sessions, BOB))


async def test_two_offers_by_wednesday_then_opponent_chooses(
    service: Services,
    runner: DueActionRunner,
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    await service.offers.offer(discord_id=ALICE, text="tue 18:00, wed 12:00, thu 20:00")
    await service.offers.offer(discord_id=BOB, text="tue 08:00, wed 20:00")
    clock.set(datetime(2019, 10, 3, 0, 0, 30, tzinfo=UTC))
    await runner.sweep()
    m = await match(sessions, seeded.match_ids[0])
    assert m.chooser_id == seeded.player_ids["Alice"] and not m.td_assigns
    assert any("/choose" in t for t in await dms(sessions, ALICE))
    # Bob hears it once, from the post fixing Alice's time (issue 32: no DM before it)
    assert not any("rule V.E" in t for t in await dms(sessions, BOB))

    with pytest.raises(NotAllowed, match="Only Alice"):
        await service.offers.choose(discord_id=BOB, text="sat 18:00")
    with pytest.raises(InvalidInput, match="in the past"):
        await service.offers.choose(discord_id=ALICE, text="wed 18:00")
    agreement = await service.offers.choose(discord_id=ALICE, text="sat 18:00")
    assert agreement.time == SAT_18 and agreement.kind is OfferKind.CHOSEN
    m = await match(sessions, seeded.match_ids[0])
    assert m.agreed_time == SAT_18 and m.state is MatchState.SCHEDULED
    fixed = (await channel_posts(sessions))[-1]
    assert "binds them (rule V.E)" in fixed and discord_time(SAT_18) in fixed
    assert f"<@{BOB}>" in fixed and not any(
        discord_time(SAT_18) in t for t in await dms(sessions, BOB)
    )
    # the weekend check sees an agreed match and stays silent
    clock.set(datetime(2019, 10, 5, 0, 1, tzinfo=UTC))
    before = len(await dms(sessions, TD_ID))
    await runner.sweep()
    assert len(await dms(sessions, TD_ID)) == before


async def test_both_short_then_td_assigns(
    service: Services,
    runner: DueActionRunner,
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    await service.offers.offer(discord_id=ALICE, text="tue 18:00")
    clock.set(datetime(2019, 10, 3, 0, 1, tzinfo=UTC))
    await runner.sweep()
    m = await match(sessions, seeded.match_ids[0])
    assert m.td_assigns and m.chooser_id is None
    td = await dms(sessions, TD_ID)
    # both matches of the round had no offers or too few
    pick = "`match:` “Swiss round 1, board 1: Alice vs Bob”"  # the list's name, no row id
    assert any("/td negotiation assign-time" in t and pick in t for t in td)
    assert any(discord_time(TUE_18) in t for t in td)  # the offer history
    with pytest.raises(NotAllowed, match="TD assigns"):
        await service.offers.choose(discord_id=ALICE, text="sat 18:00")
    agreement = await service.rulings.assign_time(td_id=TD_ID, match_id=m.id, text="sat 18:00")
    assert agreement.kind is OfferKind.ASSIGNED
    assert (await match(sessions, m.id)).agreed_time == SAT_18
    fixed = (await channel_posts(sessions))[-1]
    assert discord_time(SAT_18) in fixed and f"<@{BOB}>" in fixed and f"<@{ALICE}>" in fixed
    # the post says why the TD set it: the offers neither made (rule V.F), not V.F/V.I
    assert "assigned by the TD, as neither player made 3 offers by the deadline (rule V.F)" in (
        fixed
    ), fixed
    assert "V.I" not in fixed


async def test_weekend_without_agreement_goes_to_the_td(
    service: Services,
    runner: DueActionRunner,
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    await service.offers.offer(discord_id=ALICE, text="tue 18:00, wed 12:00, thu 20:00")
    await service.offers.offer(discord_id=BOB, text="tue 08:00, wed 20:00, thu 12:00")
    clock.set(datetime(2019, 10, 5, 0, 0, 5, tzinfo=UTC))
    await runner.sweep()
    match_id = seeded.match_ids[0]
    pick = "`match:` “Swiss round 1, board 1: Alice vs Bob”"  # the list's name, no row id
    td = [t for t in await dms(sessions, TD_ID) if pick in t]
    assert len(td) == 1 and "/td negotiation fault" in td[0] and "rule V.H" in td[0]
    assert td[0].count("Alice's") == 3 and td[0].count("Bob's") == 3
    assert "Bob's 3rd offer (offer)" in td[0]
    m = await match(sessions, match_id)
    assert m.chooser_id is None and not m.td_assigns


async def test_td_rules_a_player_at_fault(
    service: Services,
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    match_id = seeded.match_ids[0]
    with pytest.raises(InvalidInput, match="not a player of this match"):
        await service.rulings.rule_fault(td_id=TD_ID, match_id=match_id, player_name="Carol")
    ruling = await service.rulings.rule_fault(td_id=TD_ID, match_id=match_id, player_name="bob")
    assert ruling.at_fault == "Bob" and ruling.chooser == "Alice"
    m = await match(sessions, match_id)
    assert m.chooser_id == seeded.player_ids["Alice"]
    assert "/choose" in (await dms(sessions, ALICE))[-1]
    # Bob is told once, by the post of Alice's time, which says the ruling binds him
    assert not [t for t in await dms(sessions, BOB) if "at fault" in t]
    assert await count(sessions, TDDecision) == 1
    await service.offers.choose(discord_id=ALICE, text="sat 18:00")
    assert (await match(sessions, match_id)).agreed_time == SAT_18


async def test_td_rules_nobody_at_fault(
    service: Services, sessions: async_sessionmaker[AsyncSession], seeded: SeededRound
) -> None:
    match_id = seeded.match_ids[0]
    ruling = await service.rulings.rule_fault(td_id=TD_ID, match_id=match_id, player_name="nobody")
    assert ruling.at_fault is None
    assert (await match(sessions, match_id)).td_assigns
    told = (await dms(sessions, TD_ID))[-1]
    assert "/td negotiation assign-time`, `match:` “Swiss round 1, board 1: Alice vs Bob”" in told
    await service.rulings.assign_time(td_id=TD_ID, match_id=match_id, text="2019-10-05 18:00")
    assert (await match(sessions, match_id)).agreed_time == SAT_18
    fixed = (await channel_posts(sessions))[-1]  # why the TD set it: the ruling (V.H, V.I)
    assert "who found neither player at fault for the failed negotiation (rules V.H, V.I)" in (
        fixed
    ), fixed


async def test_unknown_match_for_the_td(service: Services, seeded: SeededRound) -> None:
    with pytest.raises(InvalidInput, match="no match 999"):
        await service.rulings.assign_time(td_id=TD_ID, match_id=999, text="sat 18:00")


async def test_match_reminders_once_each_and_not_after_a_reschedule(
    service: Services,
    runner: DueActionRunner,
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    await service.offers.offer(discord_id=ALICE, text="thu 20:00")
    await service.agreements.accept(discord_id=BOB)
    clock.set(THU_20 - timedelta(hours=24))
    await runner.sweep()
    await runner.sweep()
    # one post in the match's thread for both players (docs/MESSAGES.md), no DM
    reminders = [t for t in await channel_posts(sessions) if t.startswith("Reminder: ")]
    assert len(reminders) == 1 and discord_time(THU_20) in reminders[0]
    assert f"<@{ALICE}>" in reminders[0] and f"<@{BOB}>" in reminders[0]
    assert not [t for t in await dms(sessions, ALICE) if t.startswith("Reminder: ")]

    # Bob moves the match to Saturday; the old 1-hour reminder must stay silent.
    with pytest.raises(WrongStage, match="/offer"):
        await service.offers.reschedule(discord_id=CAROL, text="sat 18:00")
    proposal = await service.offers.reschedule(discord_id=BOB, text="sat 18:00")
    assert (await match(sessions, seeded.match_ids[0])).agreed_time == THU_20  # not yet
    with pytest.raises(NotAllowed):
        await service.agreements.accept(discord_id=BOB, offer_id=proposal.offer.id)
    agreement = await service.agreements.accept(discord_id=ALICE, offer_id=proposal.offer.id)
    assert agreement.previous == THU_20 and agreement.time == SAT_18
    clock.set(THU_20 - timedelta(minutes=30))
    await runner.sweep()
    reminders = [t for t in await channel_posts(sessions) if t.startswith("Reminder: ")]
    assert len(reminders) == 1
    clock.set(SAT_18 - timedelta(minutes=59))
    await runner.sweep()
    reminders = [t for t in await channel_posts(sessions) if t.startswith("Reminder: ")]
    assert len(reminders) == 3 and discord_time(SAT_18) in reminders[-1]


async def test_refusals_are_user_facing(service: Services, seeded: SeededRound) -> None:
    """Every refusal is a UserFacingError, so the cogs turn it into an ephemeral reply."""
    with pytest.raises(UserFacingError):
        await service.offers.reschedule(discord_id=ALICE, text="sat 18:00")
    with pytest.raises(UserFacingError):
        await service.offers.choose(discord_id=ALICE, text="sat 18:00")
