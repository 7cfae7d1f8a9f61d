"""Match-day incidents (rule VI) with a fake clock, due actions and the fake Lichess server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.due import DueActionRunner
from bot.errors import NotAllowed, WrongStage
from bot.features.incidents.core import NOSHOW_CHECK_VIEW, NOSHOW_CHOICE_VIEW
from bot.lichess import LichessClient
from bot.wiring import Services
from db.engine import transaction
from db.models import (
    Game,
    IncidentState,
    Match,
    MatchIncident,
    MatchState,
    OutboxKind,
    OutboxMessage,
    Player,
    TDDecision,
)
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.factories import ROUND_DEADLINE, SeededRound, seed_round, wired
from tests.fakes.lichess import FakeLichess

ALICE, BOB, CAROL, DAVE = 101, 102, 103, 104
AGREED = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)


@pytest.fixture
def services(
    sessions: async_sessionmaker[AsyncSession],
    lichess: LichessClient,
    config: Config,
    clock: FakeClock,
) -> Services:
    return wired(sessions, config, clock, lichess)


@pytest.fixture
def service(services: Services, clock: FakeClock) -> Services:
    """Rule VI's services (no-shows, breaks, the TD's overrule), at the match's start."""
    clock.set(AGREED + timedelta(minutes=3))
    return services


@pytest.fixture
def runner(
    sessions: async_sessionmaker[AsyncSession],
    clock: FakeClock,
    services: Services,
) -> DueActionRunner:
    runner = DueActionRunner(sessions, clock)
    # The timers only: game links (a sweep step of the results feature) are not under test.
    for owner in (services.noshows, services.breaks, services.deadlines, services.rounds):
        for kind, handler in owner.due_handlers().items():
            runner.register(kind, handler)
    return runner


@pytest.fixture
async def seeded(
    sessions: async_sessionmaker[AsyncSession], config: Config, fake: FakeLichess
) -> SeededRound:
    for name in ("Alice", "Bob", "Carol", "Dave"):
        fake.add_user(name, created_at=datetime(2017, 1, 1, tzinfo=UTC))
    seeded = await seed_round(
        sessions, config, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")]
    )
    async with transaction(sessions) as session:
        for match_id in seeded.match_ids:
            m = await session.get(Match, match_id)
            assert m is not None
            m.agreed_time, m.state = AGREED, MatchState.SCHEDULED
    return seeded


async def get(sessions: async_sessionmaker[AsyncSession], cls: type, ident: int) -> object:
    async with sessions() as session:
        row: object = await session.get(cls, ident)
    assert row is not None
    return row


async def match(sessions: async_sessionmaker[AsyncSession], ident: int) -> Match:
    row = await get(sessions, Match, ident)
    assert isinstance(row, Match)
    return row


async def incident(sessions: async_sessionmaker[AsyncSession], ident: int) -> MatchIncident:
    row = await get(sessions, MatchIncident, ident)
    assert isinstance(row, MatchIncident)
    return row


async def messages(sessions: async_sessionmaker[AsyncSession]) -> list[OutboxMessage]:
    async with sessions() as session:
        return list((await session.scalars(select(OutboxMessage).order_by(OutboxMessage.id))).all())


def to_td(rows: list[OutboxMessage]) -> list[str]:
    return [m.content for m in rows if m.kind is OutboxKind.DM and m.target_id == TD_ID]


def dms(rows: list[OutboxMessage], user: int) -> list[OutboxMessage]:
    return [m for m in rows if m.kind is OutboxKind.DM and m.target_id == user]


async def confirmed_noshow(service: Services, runner: DueActionRunner, clock: FakeClock) -> int:
    reported = await service.noshows.noshow(discord_id=ALICE)
    clock.advance(timedelta(minutes=10))
    assert await runner.sweep() >= 1
    result = await service.noshows.still_absent(discord_id=ALICE, incident_id=reported.incident_id)
    assert result.state is IncidentState.CONFIRMED and result.view == NOSHOW_CHOICE_VIEW
    return reported.incident_id


# --- /noshow --------------------------------------------------------------------------------


async def test_noshow_claimed_forfeits_the_match(
    sessions: async_sessionmaker[AsyncSession],
    service: Services,
    runner: DueActionRunner,
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    reported = await service.noshows.noshow(discord_id=ALICE)
    first = to_td(await messages(sessions))
    assert len(first) == 1 and "first message" in first[0] and "no game" in first[0]
    assert dms(await messages(sessions), BOB)  # Bob is warned
    # Too early to confirm; the due action asks after the grace period.
    with pytest.raises(WrongStage):
        await service.noshows.still_absent(discord_id=ALICE, incident_id=reported.incident_id)
    clock.advance(timedelta(minutes=10))
    await runner.sweep()
    asked = [m for m in dms(await messages(sessions), ALICE) if m.view]
    assert asked and asked[-1].view == {
        "kind": NOSHOW_CHECK_VIEW,
        "args": {"incident_id": reported.incident_id},
    }
    await service.noshows.still_absent(discord_id=ALICE, incident_id=reported.incident_id)
    td = to_td(await messages(sessions))
    assert any("second message" in c for c in td)
    claimed = await service.noshows.claim_win(discord_id=ALICE, incident_id=reported.incident_id)
    assert claimed.state is IncidentState.CLAIMED and not claimed.disqualified
    m = await match(sessions, seeded.match_ids[0])
    assert m.state is MatchState.FORFEITED
    assert m.forfeit_winner_id == seeded.player_ids["Alice"]
    rows = await messages(sessions)
    assert any("overrule" in c for c in to_td(rows))
    # the forfeit once, in the round's thread mentioning both players: no DM copies, and a
    # match result is not stage news (it used to go to all three: the defect)
    told = [m.content for m in rows if "wins by forfeit" in m.content and m.target_id != TD_ID]
    assert len(told) == 1 and f"<@{ALICE}> wins by forfeit against <@{BOB}>" in told[0], told
    assert not [m for m in rows if m.target_id == ANNOUNCE_CHANNEL and "forfeit" in m.content]


async def test_td_overrules_a_claimed_noshow(
    sessions: async_sessionmaker[AsyncSession],
    service: Services,
    runner: DueActionRunner,
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    ident = await confirmed_noshow(service, runner, clock)
    await service.noshows.claim_win(discord_id=ALICE, incident_id=ident)
    result = await service.overrules.overrule(
        td_id=TD_ID, incident_id=ident, reason="Bob's internet"
    )
    assert result.state is IncidentState.CANCELLED
    m = await match(sessions, seeded.match_ids[0])
    assert m.state is MatchState.NEGOTIATING and m.forfeit_winner_id is None
    async with sessions() as session:
        decision = await session.scalar(select(TDDecision).where(TDDecision.kind == "overrule"))
        assert decision is not None and decision.reason == "Bob's internet"
    with pytest.raises(WrongStage):
        await service.overrules.overrule(td_id=TD_ID, incident_id=ident, reason="again")


async def test_noshow_rescheduled_and_agreed(
    sessions: async_sessionmaker[AsyncSession],
    services: Services,
    service: Services,
    runner: DueActionRunner,
    clock: FakeClock,
    config: Config,
    seeded: SeededRound,
) -> None:
    ident = await confirmed_noshow(service, runner, clock)
    await service.noshows.reschedule(discord_id=ALICE, incident_id=ident)
    m = await match(sessions, seeded.match_ids[0])
    assert m.state is MatchState.NEGOTIATING and m.agreed_time is None
    with pytest.raises(WrongStage):  # no claim while rescheduling
        await service.noshows.claim_win(discord_id=ALICE, incident_id=ident)
    await services.offers.offer(discord_id=ALICE, text="2019-10-04 18:00")
    await services.agreements.accept(discord_id=BOB)
    clock.set(ROUND_DEADLINE)
    await runner.sweep()
    assert (await incident(sessions, ident)).state is IncidentState.RESOLVED
    assert (await match(sessions, seeded.match_ids[0])).state is MatchState.SCHEDULED


async def test_noshow_rescheduled_and_failed_is_forfeited_at_the_deadline(
    sessions: async_sessionmaker[AsyncSession],
    service: Services,
    runner: DueActionRunner,
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    ident = await confirmed_noshow(service, runner, clock)
    result = await service.noshows.reschedule(discord_id=ALICE, incident_id=ident)
    assert "forfeited in your favour" in result.text
    clock.set(ROUND_DEADLINE)
    await runner.sweep()
    assert (await incident(sessions, ident)).state is IncidentState.CLAIMED
    m = await match(sessions, seeded.match_ids[0])
    assert m.state is MatchState.FORFEITED
    assert m.forfeit_winner_id == seeded.player_ids["Alice"]


async def test_a_game_between_them_cancels_the_claim(
    sessions: async_sessionmaker[AsyncSession],
    service: Services,
    runner: DueActionRunner,
    clock: FakeClock,
    fake: FakeLichess,
    seeded: SeededRound,
) -> None:
    ident = await confirmed_noshow(service, runner, clock)
    fake.add_game(
        white="Bob",
        black="Alice",
        created_at=AGREED + timedelta(minutes=14),
        last_move_at=AGREED + timedelta(minutes=20),
    )
    result = await service.noshows.claim_win(discord_id=ALICE, incident_id=ident)
    assert result.state is IncidentState.CANCELLED and "lichess" in result.text.lower()
    assert (await match(sessions, seeded.match_ids[0])).state is MatchState.SCHEDULED
    # Bob was warned he might lose by forfeit, the TD got the report: both hear it is off.
    rows = await messages(sessions)
    withdrawn = [m.content for m in dms(rows, BOB) if "is withdrawn" in m.content]
    assert len(withdrawn) == 1 and "Nothing is forfeited" in withdrawn[0], withdrawn
    assert "a game between you" in withdrawn[0] and "Swiss round 1, board 1" in withdrawn[0]
    # the TD's text names the claim by who, what, where and when (issue 32: it said
    # "Claim 1", a row id; this assertion asserted it)
    told = [t for t in to_td(rows) if "is withdrawn" in t]
    assert len(told) == 1 and "Nothing to decide" in told[0], told
    assert "no-show claim Alice made against Bob (Swiss round 1, board 1, reported" in told[0]
    assert f"Claim {ident}" not in told[0]
    # Alice's own button called it off: her reply told her, so no DM on top of it
    assert not [m for m in dms(rows, ALICE) if "is withdrawn" in m.content]


async def test_a_claim_called_off_for_the_claimant_is_told_to_both_in_their_words(
    sessions: async_sessionmaker[AsyncSession],
    service: Services,
    seeded: SeededRound,
) -> None:
    """Issue 32: Alice says Bob showed up. Bob reads that Alice says he showed up (it said
    "the opponent showed up": he is the opponent who did)."""
    reported = await service.noshows.noshow(discord_id=ALICE)
    await service.noshows.arrived(discord_id=ALICE, incident_id=reported.incident_id)
    rows = await messages(sessions)
    (to_bob,) = [m.content for m in dms(rows, BOB) if "is withdrawn" in m.content]
    assert "Alice says you showed up" in to_bob and "opponent showed up" not in to_bob
    (to_td_text,) = [t for t in to_td(rows) if "is withdrawn" in t]
    assert "Alice says Bob showed up" in to_td_text


async def test_noshow_refused_when_games_exist_or_outside_the_window(
    service: Services, clock: FakeClock, fake: FakeLichess, seeded: SeededRound
) -> None:
    clock.set(AGREED - timedelta(minutes=1))
    with pytest.raises(WrongStage, match="only be reported after"):
        await service.noshows.noshow(discord_id=ALICE)
    clock.set(AGREED + timedelta(minutes=121))
    with pytest.raises(WrongStage, match="within 120 minutes"):
        await service.noshows.noshow(discord_id=ALICE)
    clock.set(AGREED + timedelta(minutes=30))
    fake.add_game(white="Alice", black="Bob", created_at=AGREED + timedelta(minutes=1))
    with pytest.raises(WrongStage, match="not a no-show"):
        await service.noshows.noshow(discord_id=ALICE)


async def test_only_the_reporter_answers_and_only_players_report(
    service: Services,
    runner: DueActionRunner,
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    with pytest.raises(NotAllowed):
        await service.noshows.noshow(discord_id=999)
    reported = await service.noshows.noshow(discord_id=ALICE)
    clock.advance(timedelta(minutes=10))
    await runner.sweep()
    for intruder in (BOB, CAROL):
        with pytest.raises(NotAllowed):
            await service.noshows.still_absent(
                discord_id=intruder, incident_id=reported.incident_id
            )
    with pytest.raises(WrongStage):  # one open report per match
        await service.noshows.noshow(discord_id=BOB)


# --- /break ---------------------------------------------------------------------------------


async def test_break_once_then_refused_and_end_announced(
    sessions: async_sessionmaker[AsyncSession],
    service: Services,
    runner: DueActionRunner,
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    result = await service.breaks.take_break(discord_id=ALICE)
    assert result.state is IncidentState.OPEN
    rows = await messages(sessions)
    # once, in the thread mentioning the opponent (their copy): no DM repeats it
    took = [m.content for m in rows if "takes their break" in m.content]
    assert len(took) == 1 and took[0].startswith(f"<@{BOB}> "), took
    assert not [m for m in dms(rows, BOB) if "takes their break" in m.content]
    with pytest.raises(WrongStage, match="already used your break"):
        await service.breaks.take_break(discord_id=ALICE)
    await service.breaks.take_break(discord_id=BOB)  # Bob still has his
    clock.advance(timedelta(minutes=10))
    await runner.sweep()
    rows = await messages(sessions)
    over = [m.content for m in rows if "break is over" in m.content]
    assert len(over) == 2, over  # Alice's and Bob's, each mentioning both players
    assert all(f"<@{ALICE}>" in m and f"<@{BOB}>" in m for m in over), over
    assert not [m for m in dms(rows, ALICE) + dms(rows, BOB) if "break is over" in m.content]
    assert (await incident(sessions, result.incident_id)).state is IncidentState.RESOLVED
    with pytest.raises(WrongStage):
        await service.breaks.take_break(discord_id=ALICE)


async def test_break_before_the_match_is_refused(
    service: Services, clock: FakeClock, seeded: SeededRound
) -> None:
    clock.set(AGREED - timedelta(hours=1))
    with pytest.raises(WrongStage, match="not started"):
        await service.breaks.take_break(discord_id=ALICE)


# --- /left ----------------------------------------------------------------------------------


async def test_left_then_claim_after_the_return_period(
    sessions: async_sessionmaker[AsyncSession],
    service: Services,
    runner: DueActionRunner,
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    reported = await service.breaks.left(discord_id=ALICE)
    assert not to_td(await messages(sessions))  # Bob still had his break
    with pytest.raises(WrongStage, match="still has time"):
        await service.noshows.claim_win(discord_id=ALICE, incident_id=reported.incident_id)
    clock.advance(timedelta(minutes=10))
    await runner.sweep()
    offered = [m for m in dms(await messages(sessions), ALICE) if m.view]
    assert offered and "claim" in offered[-1].content.lower()
    # It counted as Bob's break.
    with pytest.raises(WrongStage, match="already used your break"):
        await service.breaks.take_break(discord_id=BOB)
    result = await service.noshows.claim_win(discord_id=ALICE, incident_id=reported.incident_id)
    assert result.state is IncidentState.CLAIMED
    m = await match(sessions, seeded.match_ids[0])
    assert m.state is MatchState.FORFEITED
    assert m.forfeit_winner_id == seeded.player_ids["Alice"]


async def test_left_with_the_break_used_tells_the_td(
    sessions: async_sessionmaker[AsyncSession],
    service: Services,
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    await service.breaks.take_break(discord_id=BOB)
    clock.advance(timedelta(minutes=30))
    await service.breaks.left(discord_id=ALICE)
    assert any("already used their break" in c for c in to_td(await messages(sessions)))


async def test_left_claim_cancelled_by_a_new_game(
    sessions: async_sessionmaker[AsyncSession],
    service: Services,
    runner: DueActionRunner,
    clock: FakeClock,
    fake: FakeLichess,
    seeded: SeededRound,
) -> None:
    reported = await service.breaks.left(discord_id=ALICE)
    fake.add_game(white="Alice", black="Bob", created_at=clock.now() + timedelta(minutes=5))
    clock.advance(timedelta(minutes=10))
    await runner.sweep()
    result = await service.noshows.claim_win(discord_id=ALICE, incident_id=reported.incident_id)
    assert result.state is IncidentState.CANCELLED
    assert (await match(sessions, seeded.match_ids[0])).state is MatchState.SCHEDULED


async def test_a_player_who_came_back_is_not_claimed_against(
    sessions: async_sessionmaker[AsyncSession],
    service: Services,
    runner: DueActionRunner,
    clock: FakeClock,
    seeded: SeededRound,
) -> None:
    """Rule VI.E: the claim is for a player who does not come back in time. A game of the
    match read after the report (the results job attributed it) means Bob came back: when the
    ten minutes end, Alice is not offered the win, and the report closes, Bob and the TD told
    why (the simulation found the bot offering the claim mid-game)."""
    reported = await service.breaks.left(discord_id=ALICE)
    ids = seeded.player_ids
    async with transaction(sessions) as session:
        session.add(
            Game(
                match_id=seeded.match_ids[0],
                lichess_id="backgame",
                number=3,
                white_player_id=ids["Bob"],
                black_player_id=ids["Alice"],
                status="started",
                winner=None,
                result_a=0.5,
                created_at=clock.now() + timedelta(minutes=4),
            )
        )
    clock.advance(timedelta(minutes=10))
    await runner.sweep()
    sent = await messages(sessions)
    assert not [m for m in dms(sent, ALICE) if m.view]  # no Claim the win
    assert (await incident(sessions, reported.incident_id)).state is IncidentState.CANCELLED
    # each is told in their own words, the claimant too (issue 32: she was never told)
    (to_alice,) = [m.content for m in dms(sent, ALICE) if "is withdrawn" in m.content]
    assert "Your left-the-match claim against Bob" in to_alice and "Bob came back" in to_alice
    (to_bob,) = [m.content for m in dms(sent, BOB) if "is withdrawn" in m.content]
    assert "made against you" in to_bob and "you came back" in to_bob
    assert any("Bob came back" in t for t in to_td(sent))


# --- forfeits per player (rule VI.F) ----------------------------------------------------------


async def test_td_disqualifies_and_reinstates_by_name(
    sessions: async_sessionmaker[AsyncSession],
    services: Services,
    seeded: SeededRound,
) -> None:
    service = services.discipline
    name = await service.td_disqualify(
        td_id=TD_ID, player_name="bob", reason="booster", engine=False
    )
    assert name == "Bob"
    bob = await get(sessions, Player, seeded.player_ids["Bob"])
    assert isinstance(bob, Player) and bob.disqualified_at is not None
    m = await match(sessions, seeded.match_ids[0])
    assert m.state is MatchState.FORFEITED and m.forfeit_winner_id == seeded.player_ids["Alice"]
    await service.td_reinstate(td_id=TD_ID, player_name="Bob")
    assert (await match(sessions, seeded.match_ids[0])).state is MatchState.SCHEDULED
