"""A decided match played on to its full length (`stages.played_on`): the 2021 and 2022 Finals
went to all 12 games at 7-5. The later games are recorded and shown; the result stands."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.features.matches.types import PLAYED_ON
from bot.features.results.stage_rules import AFTER_END
from bot.wiring import Services
from db.models import Game, MatchState, OutboxMessage
from tests.factories import ROUND_THREAD
from tests.fakes.lichess import FakeLichess
from tests.features.results.test_final import add_games, final_match, poll, state, thread
from tests.results_helpers import AGREED
from tests.running import RunningBot

# 7-3 after ten games decides the Final (3 + 2 cannot reach 7); games 11 and 12 make it 7-5
RESULTS = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0]
BASE = [(120, 5)] * 12


def played_on(config: Config, *stages: str) -> Config:
    return config.model_copy(
        update={"stages": config.stages.model_copy(update={"played_on": stages})}
    )


@pytest.fixture
async def bot_playing_on(
    running_bot: RunningBot, clock: FakeClock, config: Config
) -> AsyncIterator[Services]:
    clock.set(AGREED)
    async with running_bot(played_on(config, "final")) as (bot, _):
        yield bot.svc


async def games(sessions: async_sessionmaker[AsyncSession], match_id: int) -> list[Game]:
    async with sessions() as session:
        rows = await session.scalars(
            select(Game).where(Game.match_id == match_id).order_by(Game.number)
        )
        return list(rows)


async def td_alerts(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    """Every message the bot wrote that is not in the match's thread (the TD's notes among them)."""
    async with sessions() as session:
        rows = await session.scalars(
            select(OutboxMessage).where(OutboxMessage.target_id != ROUND_THREAD)
        )
        return [r.content for r in rows]


async def test_a_decided_final_played_to_twelve_games_is_recorded_in_full(
    bot_playing_on: Services,
    sessions: async_sessionmaker[AsyncSession],
    fake: FakeLichess,
    clock: FakeClock,
) -> None:
    match_id = await final_match(sessions, fake)
    await poll(bot_playing_on, clock, 0)  # the game link
    add_games(fake, RESULTS[:10], clocks=BASE[:10])
    await poll(bot_playing_on, clock, 130)
    match = await state(sessions, match_id)
    assert match.state is MatchState.FINISHED and (match.score_a, match.score_b) == (7, 3)

    # the finalists play on; the next polls still read their games
    add_games(fake, RESULTS[10:], first=11, clocks=BASE[10:])
    await poll(bot_playing_on, clock, 160)
    match = await state(sessions, match_id)
    assert match.state is MatchState.FINISHED
    assert (match.score_a, match.score_b, match.points_a, match.points_b) == (7, 3, 1, 0)
    stored = await games(sessions, match_id)
    assert [g.counted for g in stored] == [True] * 10 + [False, False]
    assert [g.voided_reason for g in stored[10:]] == [PLAYED_ON, PLAYED_ON]
    board = [t for t in await thread(sessions) if t.startswith("📊")][-1]
    # the Final's board groups games by block; the games played on are listed apart
    assert "Played on (the result stands): [11](" in board
    assert "Played on after the decision: 7–5 over all 12 games." in board
    assert not any("was already over" in alert for alert in await td_alerts(sessions))

    # the record is complete: no more requests for this match
    asked = len(fake.requests)
    await poll(bot_playing_on, clock, 200)
    assert len(fake.requests) == asked


async def test_without_the_setting_later_games_are_not_recorded(
    running_bot: RunningBot,
    sessions: async_sessionmaker[AsyncSession],
    fake: FakeLichess,
    clock: FakeClock,
    config: Config,
) -> None:
    clock.set(AGREED)
    async with running_bot(played_on(config, "swiss")) as (bot, _):
        match_id = await final_match(sessions, fake)
        await poll(bot.svc, clock, 0)
        add_games(fake, RESULTS, clocks=BASE)
        await poll(bot.svc, clock, 160)
    stored = await games(sessions, match_id)
    assert [g.voided_reason for g in stored[10:]] == [AFTER_END, AFTER_END]
    match = await state(sessions, match_id)
    assert (match.score_a, match.score_b) == (7, 3)
    assert any("was already over" in alert for alert in await td_alerts(sessions))
