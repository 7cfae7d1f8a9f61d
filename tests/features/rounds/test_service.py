"""The Swiss week by week: start, publish, scores, the next round, deadlines."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor
from bot.clock import FakeClock
from bot.config import Config
from bot.due import DueActionRunner
from bot.errors import InvalidInput, WrongStage
from bot.features.rounds.service import RoundService
from db.models import (
    DueAction,
    Match,
    MatchState,
    OutboxMessage,
    Player,
    Round,
    RoundState,
    Stage,
    StageState,
)
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.entrants import add_entrants
from tests.factories import wired


@pytest.fixture
def rounds(sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock):
    return wired(sessions, config, clock).rounds


async def matches_of(sessions, number: int) -> list[Match]:
    async with sessions() as session:
        round_ = await session.scalar(select(Round).where(Round.number == number))
        assert round_ is not None
        return list(
            (
                await session.scalars(
                    select(Match).where(Match.round_id == round_.id).order_by(Match.board)
                )
            ).all()
        )


async def names(sessions, match: Match) -> tuple[str, str | None]:
    async with sessions() as session:
        a = await session.get(Player, match.player_a_id)
        b = await session.get(Player, match.player_b_id) if match.player_b_id else None
        assert a is not None
        return a.lichess_username, b.lichess_username if b else None


async def test_preview_changes_nothing_and_orders_by_seeding(
    rounds: RoundService, sessions, clock
) -> None:
    await add_entrants(sessions, clock, 8)
    start = await rounds.preview_start()
    assert start.can_publish and not start.pending
    preview = start.preview
    assert preview is not None
    assert preview.total_rounds == 6  # log2(8) = 3, "up" as in the 2019 examples, + 2
    assert [(line.player_a, line.player_b) for line in preview.lines] == [
        ("P01", "P05"),
        ("P02", "P06"),
        ("P03", "P07"),
        ("P04", "P08"),
    ]
    assert preview.starts_at == datetime(2019, 9, 30, tzinfo=UTC)
    assert preview.deadline == datetime(2019, 10, 6, 23, 59, 59, tzinfo=UTC)
    async with sessions() as session:
        assert (await session.scalars(select(Stage))).all() == []


async def test_start_publishes_round_one_with_due_actions(
    rounds: RoundService, sessions, clock
) -> None:
    await add_entrants(sessions, clock, 7)
    published = await rounds.start(td_id=TD_ID)
    assert published.round_id is not None
    matches = await matches_of(sessions, 1)
    assert [await names(sessions, m) for m in matches] == [
        ("P01", "P04"),
        ("P02", "P05"),
        ("P03", "P06"),
        ("P07", None),
    ]
    bye = matches[-1]
    assert bye.state is MatchState.BYE and bye.points_a == 1.0
    async with sessions() as session:
        kinds = sorted((await session.scalars(select(DueAction.kind))).all())
        announcements = (
            await session.scalars(
                select(OutboxMessage).where(OutboxMessage.target_id == ANNOUNCE_CHANNEL)
            )
        ).all()
    assert kinds.count("round_deadline") == 1 and kinds.count("next_round") == 1
    assert len(announcements) == 1 and "round 1 of 5 is out" in announcements[0].content
    assert "Bye (no opponent this round): P07" in announcements[0].content
    with pytest.raises(WrongStage, match="already started"):
        await rounds.start(td_id=TD_ID)


async def test_needs_two_players(rounds: RoundService, sessions, clock) -> None:
    await add_entrants(sessions, clock, 1)
    with pytest.raises(WrongStage, match="at least 2"):
        await rounds.preview_start()


async def test_scores_close_the_round_and_pair_the_next_one_early(
    rounds: RoundService, sessions, clock
) -> None:
    await add_entrants(sessions, clock, 8)
    await rounds.start(td_id=TD_ID)
    first = await matches_of(sessions, 1)
    with pytest.raises(InvalidInput, match="not a finished match"):
        await rounds.set_score(td_id=TD_ID, match_id=first[0].id, score_a=5, score_b=4, reason=None)
    with pytest.raises(InvalidInput, match="not a possible match score"):
        await rounds.set_score(td_id=TD_ID, match_id=first[0].id, score_a=7, score_b=5, reason=None)
    for match in first[:-1]:
        result = await rounds.set_score(
            td_id=TD_ID, match_id=match.id, score_a=5.5, score_b=2, reason="typed in"
        )
        assert result.next_round is None
    last = await rounds.set_score(
        td_id=TD_ID, match_id=first[-1].id, score_a=5, score_b=5, reason=None
    )
    assert last.round_finished and last.next_round is not None
    assert last.next_round.number == 2
    second = await matches_of(sessions, 2)
    pairs = [await names(sessions, m) for m in second]
    # Winners P01-P03 (1 point) and the drawn P04/P08 (0.5) and losers: no rematch.
    firsts = {("P01", "P05"), ("P02", "P06"), ("P03", "P07"), ("P04", "P08")}
    assert not firsts & {tuple(p) for p in pairs}
    assert pairs[0] == ("P01", "P02")
    async with sessions() as session:
        round_one = await session.scalar(select(Round).where(Round.number == 1))
        round_two = await session.scalar(select(Round).where(Round.number == 2))
    assert round_one is not None and round_one.state is RoundState.FINISHED
    assert round_two is not None and round_two.starts_at == datetime(2019, 10, 7, tzinfo=UTC)


async def test_confirm_before_publish_waits_for_the_td(
    sessions, config: Config, clock: FakeClock
) -> None:
    confirm = config.model_copy(
        update={"swiss": config.swiss.model_copy(update={"confirm_before_publish": True})}
    )
    service = wired(sessions, confirm, clock).rounds
    await add_entrants(sessions, clock, 4)
    # 4 players: a round robin (Swiss rounds would be >= players - 1).
    published = await service.start(td_id=TD_ID)
    assert published.total_rounds == 3
    for match in await matches_of(sessions, 1):
        result = await service.set_score(
            td_id=TD_ID, match_id=match.id, score_a=6, score_b=4, reason=None
        )
    assert result.round_finished and result.next_round is None
    published = await service.publish_next(actor=Actor.td(TD_ID))
    assert published.number == 2


async def test_round_deadline_lists_open_matches_to_the_td(
    rounds: RoundService, sessions, clock: FakeClock
) -> None:
    await add_entrants(sessions, clock, 4)
    await rounds.start(td_id=TD_ID)
    runner = DueActionRunner(sessions, clock)
    for kind, handler in rounds.due_handlers().items():
        runner.register(kind, handler)
    clock.set(datetime(2019, 10, 7, 0, 0, 1, tzinfo=UTC))
    await runner.sweep()
    async with sessions() as session:
        alerts = (
            await session.scalars(select(OutboxMessage).where(OutboxMessage.target_id == TD_ID))
        ).all()
    assert any("2 matches without a result" in a.content for a in alerts)
    assert any("/td round set-score" in a.content for a in alerts)
    assert any("Round 2 cannot be paired yet" in a.content for a in alerts)
    async with sessions() as session:
        assert len((await session.scalars(select(Round))).all()) == 1


async def test_last_round_finishes_the_stage(rounds: RoundService, sessions, clock) -> None:
    await add_entrants(sessions, clock, 2)
    await rounds.start(td_id=TD_ID)
    [match] = await matches_of(sessions, 1)
    result = await rounds.set_score(
        td_id=TD_ID, match_id=match.id, score_a=4, score_b=6, reason=None
    )
    assert result.stage_finished
    async with sessions() as session:
        stage = await session.scalar(select(Stage))
    assert stage is not None and stage.state is StageState.FINISHED
    with pytest.raises(WrongStage):
        await rounds.publish_next(actor=Actor.td(TD_ID))


async def test_candidates_scores_must_be_played_out(rounds: RoundService, sessions, fake) -> None:
    from tests.results_helpers import candidates_match

    match_id = await candidates_match(sessions, fake, "Cand1", "Cand2")
    with pytest.raises(InvalidInput, match=r"played out, rule III\.F\.2"):
        await rounds.set_score(td_id=TD_ID, match_id=match_id, score_a=5.5, score_b=0, reason=None)
    result = await rounds.set_score(
        td_id=TD_ID, match_id=match_id, score_a=6, score_b=4, reason=None
    )
    # the only match of this one-round Candidates is decided, so the stage is over
    assert result.next_round is None and result.stage_finished
    async with sessions() as session:
        match = await session.get(Match, match_id)
    assert match is not None and (match.points_a, match.points_b) == (1.0, 0.0)
