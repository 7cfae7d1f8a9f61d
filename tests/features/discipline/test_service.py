"""Forfeits, disqualification and reinstatement (rules VI.F, VIII) on a migrated SQLite file."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor
from bot.clock import FakeClock
from bot.config import Config
from bot.errors import InvalidInput, WrongStage
from bot.events import EventBus
from bot.features.discipline import service as discipline
from db.engine import transaction
from db.models import (
    AuditEntry,
    Match,
    MatchState,
    OutboxKind,
    OutboxMessage,
    Player,
    Round,
    RoundState,
    Stage,
    StageKind,
    StageState,
)
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.factories import ROUND_DEADLINE, ROUND_START, SeededRound, seed_round, stage_row, wired
from tests.running import RunningBot

ALICE, BOB, CAROL, DAVE = 101, 102, 103, 104
NOW = datetime(2019, 10, 2, 18, 30, tzinfo=UTC)
TD = Actor.td(TD_ID)


@pytest.fixture
def events(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> EventBus:
    """The wired bus: a forfeit that decides a round's last match closes the round."""
    return wired(sessions, config, clock).rounds.events


@pytest.fixture
async def seeded(sessions: async_sessionmaker[AsyncSession], config: Config) -> SeededRound:
    return await seed_round(
        sessions, config, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")]
    )


async def get_match(sessions: async_sessionmaker[AsyncSession], match_id: int) -> Match:
    async with sessions() as session:
        row = await session.get(Match, match_id)
        assert row is not None
        return row


async def get_player(sessions: async_sessionmaker[AsyncSession], player_id: int) -> Player:
    async with sessions() as session:
        row = await session.get(Player, player_id)
        assert row is not None
        return row


async def outbox(sessions: async_sessionmaker[AsyncSession]) -> list[OutboxMessage]:
    async with sessions() as session:
        return list((await session.scalars(select(OutboxMessage))).all())


async def audit(sessions: async_sessionmaker[AsyncSession], action: str) -> list[AuditEntry]:
    async with sessions() as session:
        return list(
            (await session.scalars(select(AuditEntry).where(AuditEntry.action == action))).all()
        )


async def add_round(
    sessions: async_sessionmaker[AsyncSession],
    stage_id: int,
    number: int,
    pairs: list[tuple[int, int]],
) -> list[int]:
    """Another published round of the same stage, with negotiating matches."""
    async with transaction(sessions) as session:
        round_ = Round(
            stage_id=stage_id,
            number=number,
            state=RoundState.PUBLISHED,
            starts_at=ROUND_START,
            deadline=ROUND_DEADLINE,
            published_at=ROUND_START,
            thread_id=4000 + number,
        )
        session.add(round_)
        await session.flush()
        matches = [
            Match(
                round_id=round_.id,
                player_a_id=a,
                player_b_id=b,
                board=board,
                state=MatchState.NEGOTIATING,
                td_assigns=False,
                score_a=0.0,
                score_b=0.0,
            )
            for board, (a, b) in enumerate(pairs, start=1)
        ]
        session.add_all(matches)
        await session.flush()
        return [m.id for m in matches]


async def finish(
    sessions: async_sessionmaker[AsyncSession], match_id: int, score: tuple[float, float]
) -> None:
    async with transaction(sessions) as session:
        m = await session.get(Match, match_id)
        assert m is not None
        m.state = MatchState.FINISHED
        m.score_a, m.score_b = score
        m.points_a, m.points_b = (1.0, 0.0) if score[0] > score[1] else (0.0, 1.0)
        m.finished_at = NOW


async def test_first_forfeit_is_recorded_second_disqualifies_and_td_reinstates(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    seeded: SeededRound,
    events: EventBus,
) -> None:
    ids = seeded.player_ids
    # Two rounds open at once so Bob can forfeit twice and still have an open match.
    round3 = await add_round(
        sessions, seeded.stage_id, 3, [(ids["Bob"], ids["Dave"]), (ids["Alice"], ids["Carol"])]
    )
    round2 = await add_round(
        sessions, seeded.stage_id, 2, [(ids["Alice"], ids["Bob"]), (ids["Carol"], ids["Dave"])]
    )
    first = seeded.match_ids[0]  # Alice - Bob
    async with transaction(sessions) as session:
        dq = await discipline.forfeit_match(
            session,
            config,
            events,
            match_id=first,
            winner_id=ids["Alice"],
            reason="no-show",
            actor=TD,
            now=NOW,
        )
    assert dq is False
    m = await get_match(sessions, first)
    assert (m.state, m.forfeit_winner_id, m.points_a, m.points_b) == (
        MatchState.FORFEITED,
        ids["Alice"],
        1.0,
        0.0,
    )
    assert (await get_player(sessions, ids["Bob"])).disqualified_at is None
    async with sessions() as session:
        assert await discipline.count_forfeits(session, ids["Bob"]) == 1

    async with transaction(sessions) as session:
        dq = await discipline.forfeit_match(
            session,
            config,
            events,
            match_id=round2[0],
            winner_id=ids["Alice"],
            reason="left",
            actor=TD,
            now=NOW,
        )
    assert dq is True
    bob = await get_player(sessions, ids["Bob"])
    assert bob.disqualified_at == NOW
    assert "VI.F" in (bob.disqualification_reason or "")
    # Bob's other open match goes to Dave (VIII.A.1) and does not count as a forfeit.
    other = await get_match(sessions, round3[0])
    assert (other.state, other.forfeit_winner_id, other.points_a, other.points_b) == (
        MatchState.FORFEITED,
        ids["Dave"],
        0.0,
        1.0,
    )
    async with sessions() as session:
        assert await discipline.count_forfeits(session, ids["Bob"]) == 2
    messages = await outbox(sessions)
    announced = [m.content for m in messages if m.target_id == ANNOUNCE_CHANNEL]
    assert any("Bob** is disqualified" in c and "VI.F" in c for c in announced)
    td = [m.content for m in messages if m.kind is OutboxKind.DM and m.target_id == TD_ID]
    assert any("is disqualified" in c and "/td discipline reinstate" in c for c in td)
    assert len(await audit(sessions, "player_disqualified")) == 1

    async with transaction(sessions) as session:
        await discipline.reinstate(session, config, player_id=ids["Bob"], actor=TD, now=NOW)
    bob = await get_player(sessions, ids["Bob"])
    assert bob.disqualified_at is None and bob.disqualification_reason is None
    restored = await get_match(sessions, round3[0])
    assert restored.state is MatchState.NEGOTIATING
    assert restored.forfeit_winner_id is None and restored.points_a is None
    # The two forfeits themselves stand.
    assert (await get_match(sessions, first)).state is MatchState.FORFEITED
    assert len(await audit(sessions, "player_reinstated")) == 1
    async with transaction(sessions) as session:
        with pytest.raises(WrongStage):
            await discipline.reinstate(session, config, player_id=ids["Bob"], actor=TD, now=NOW)


async def test_forfeit_of_a_decided_match_is_refused(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    seeded: SeededRound,
    events: EventBus,
) -> None:
    await finish(sessions, seeded.match_ids[0], (5.5, 2.0))
    async with transaction(sessions) as session:
        with pytest.raises(WrongStage):
            await discipline.forfeit_match(
                session,
                config,
                events,
                match_id=seeded.match_ids[0],
                winner_id=seeded.player_ids["Bob"],
                reason="x",
                actor=TD,
                now=NOW,
            )


async def test_last_forfeit_closes_the_round_and_pairs_the_next(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    seeded: SeededRound,
    events: EventBus,
) -> None:
    await finish(sessions, seeded.match_ids[1], (6.0, 1.0))
    async with transaction(sessions) as session:
        await discipline.forfeit_match(
            session,
            config,
            events,
            match_id=seeded.match_ids[0],
            winner_id=seeded.player_ids["Alice"],
            reason="no-show",
            actor=TD,
            now=NOW,
        )
    async with sessions() as session:
        rounds = (await session.scalars(select(Round).order_by(Round.number))).all()
        assert [r.number for r in rounds] == [1, 2]
        assert rounds[0].state is RoundState.FINISHED


async def test_engine_mark_adjudicates_finished_swiss_matches(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    seeded: SeededRound,
    events: EventBus,
) -> None:
    ids = seeded.player_ids
    await finish(sessions, seeded.match_ids[0], (6.0, 2.0))  # Alice beat Bob
    await finish(sessions, seeded.match_ids[1], (5.5, 1.0))  # Carol beat Dave
    async with transaction(sessions) as session:
        await discipline.disqualify(
            session,
            config,
            events,
            player_id=ids["Alice"],
            reason="Lichess tosViolation",
            engine_mark=True,
            actor=TD,
            now=NOW,
        )
    m = await get_match(sessions, seeded.match_ids[0])
    assert (m.state, m.points_a, m.points_b, m.score_a, m.score_b) == (
        MatchState.FINISHED,
        0.0,
        1.0,
        6.0,
        2.0,
    )
    untouched = await get_match(sessions, seeded.match_ids[1])
    assert (untouched.points_a, untouched.points_b) == (1.0, 0.0)
    why = await audit(sessions, "match_adjudicated")
    assert len(why) == 1 and "VIII.A.2" in why[0].details["why"]
    announced = [m.content for m in await outbox(sessions) if m.target_id == ANNOUNCE_CHANNEL]
    assert any("engine mark" in c for c in announced)
    async with transaction(sessions) as session:
        with pytest.raises(WrongStage):
            await discipline.disqualify(
                session,
                config,
                events,
                player_id=ids["Alice"],
                reason="again",
                engine_mark=False,
                actor=TD,
                now=NOW,
            )
    # Reinstating puts the board result back.
    async with transaction(sessions) as session:
        await discipline.reinstate(session, config, player_id=ids["Alice"], actor=TD, now=NOW)
    m = await get_match(sessions, seeded.match_ids[0])
    assert (m.points_a, m.points_b) == (1.0, 0.0)


async def test_plain_disqualification_keeps_finished_results(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    seeded: SeededRound,
    events: EventBus,
) -> None:
    await finish(sessions, seeded.match_ids[0], (6.0, 2.0))
    async with transaction(sessions) as session:
        await discipline.disqualify(
            session,
            config,
            events,
            player_id=seeded.player_ids["Alice"],
            reason="public accusation (VII.A)",
            engine_mark=False,
            actor=TD,
            now=NOW,
        )
    m = await get_match(sessions, seeded.match_ids[0])
    assert (m.points_a, m.points_b) == (1.0, 0.0)
    assert not await audit(sessions, "match_adjudicated")


async def test_candidates_disqualification_disregards_every_match(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    seeded: SeededRound,
    events: EventBus,
) -> None:
    ids = seeded.player_ids
    async with transaction(sessions) as session:
        swiss = await session.get(Stage, seeded.stage_id)
        assert swiss is not None
        swiss.state = StageState.FINISHED
        stage = stage_row(StageKind.CANDIDATES, state=StageState.RUNNING, seeding=[])
        session.add(stage)
        await session.flush()
        candidates_stage = stage.id
    played = await add_round(
        sessions, candidates_stage, 1, [(ids["Alice"], ids["Bob"]), (ids["Carol"], ids["Dave"])]
    )
    pending = await add_round(sessions, candidates_stage, 2, [(ids["Carol"], ids["Alice"])])
    await finish(sessions, played[0], (6.0, 4.0))
    await finish(sessions, played[1], (5.0, 5.0))
    async with transaction(sessions) as session:
        await discipline.disqualify(
            session,
            config,
            events,
            player_id=ids["Alice"],
            reason="cheating (VII.B)",
            engine_mark=False,
            actor=TD,
            now=NOW,
        )
    for match_id in (played[0], pending[0]):
        m = await get_match(sessions, match_id)
        assert m.state is MatchState.FORFEITED
        assert m.forfeit_winner_id is None and m.points_a is None and m.points_b is None
    other = await get_match(sessions, played[1])
    assert other.state is MatchState.FINISHED
    assert len(await audit(sessions, "match_disregarded")) == 2
    # The Swiss is over: its matches stay as they were.
    assert (await get_match(sessions, seeded.match_ids[0])).state is MatchState.NEGOTIATING


async def test_two_accounts_of_one_person_are_disqualified_in_one_ruling(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    seeded: SeededRound,
    events: EventBus,
) -> None:
    from bot.features.discipline.td import DisciplineService
    from db.models import TDDecision

    service = wired(sessions, config, clock).discipline
    assert isinstance(service, DisciplineService)
    with pytest.raises(InvalidInput):
        await service.td_disqualify(
            td_id=1, player_name="Bob", reason="two accounts", engine=False, also="bob"
        )
    names = await service.td_disqualify(
        td_id=1, player_name="Bob", reason="two accounts", engine=False, also="Dave"
    )
    assert names == "Bob and Dave"
    ids = seeded.player_ids
    for name in ("Bob", "Dave"):
        player = await get_player(sessions, ids[name])
        assert player.disqualified_at is not None
        assert "rule II.C.4" in (player.disqualification_reason or "")
    async with sessions() as session:
        rows = (await session.scalars(select(TDDecision))).all()
    assert sorted(r.subject_id for r in rows) == sorted([ids["Bob"], ids["Dave"]])


async def test_two_accounts_through_the_td_command(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        seeded = await seed_round(
            bot.sessions, config, [(None, "Alice"), (None, "Bob"), (None, "Carol"), (None, "Dave")]
        )
        options = {"player": "Bob", "reason": "one person", "also": "Dave"}
        done = await h.slash("td discipline disqualify", user=TD_ID, options=options)
        assert done.ephemeral and "Bob and Dave are disqualified" in done.text, done.text
        for name in ("Bob", "Dave"):
            player = await get_player(bot.sessions, seeded.player_ids[name])
            assert player.disqualified_at is not None


async def test_a_withdrawal_names_the_walkover_it_causes_and_no_row_id(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    seeded: SeededRound,
    events: EventBus,
) -> None:
    """Issue 32: the announcement says which match the opponent wins; the TD's note and the
    opponent's DM name the match by its place, never "player 17" or "match 34"."""
    alice = seeded.player_ids["Alice"]
    async with transaction(sessions) as session:
        await discipline.withdraw(session, config, events, player_id=alice, actor=TD, now=NOW)
    messages = await outbox(sessions)
    (announced,) = [m.content for m in messages if m.target_id == ANNOUNCE_CHANNEL]
    assert "**Alice** has withdrawn" in announced
    assert "**Bob** wins their match (Swiss round 1, board 1) by forfeit" in announced
    (td,) = [m.content for m in messages if m.kind is OutboxKind.DM and m.target_id == TD_ID]
    assert "Alice withdrew. Matches changed: Swiss round 1, board 1." in td, td
    assert not re.search(r"(?i)(player|match) \d", td), td
    to_bob = [m.content for m in messages if m.kind is OutboxKind.DM and m.target_id == BOB]
    assert to_bob == [
        "🏳️ Alice withdrew: you win your match against them (Swiss round 1, board 1) by "
        "forfeit (rule VIII.A.1). It counts in the standings at once; nothing to play."
    ]
