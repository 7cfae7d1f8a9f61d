"""Match-day test data: matches with an agreed time, players on the fake Lichess, games."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.config import Config
from db.engine import transaction
from db.models import (
    Game,
    Match,
    MatchState,
    OutboxMessage,
    Player,
    StageKind,
)
from tests.factories import (
    ROUND_DEADLINE,
    ROUND_START,
    ROUND_THREAD,
    SeededRound,
    open_stage,
    seed_round,
)
from tests.fakes.lichess import FakeLichess

AGREED = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)
PLAYERS = [(101, "Alice"), (102, "Bob"), (104, "Carol"), (105, "Dave")]


async def schedule(
    sessions: async_sessionmaker[AsyncSession], match_id: int, at: datetime = AGREED
) -> None:
    async with transaction(sessions) as session:
        match = await session.get(Match, match_id)
        assert match is not None
        match.agreed_time, match.state = at, MatchState.SCHEDULED


async def swiss_match(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    fake: FakeLichess,
    players: Sequence[tuple[int | None, str]] = PLAYERS,
    scheduled: int = 1,
) -> SeededRound:
    """A Swiss round (4 players by default) whose first `scheduled` matches are agreed."""
    seeded = await seed_round(sessions, config, players)
    for _, name in players:
        fake.add_user(name, created_at=datetime(2017, 1, 1, tzinfo=UTC))
    for match_id in seeded.match_ids[:scheduled]:
        await schedule(sessions, match_id)
    return seeded


async def agreed_single_match(
    session: AsyncSession, kind: StageKind, a: Player, b: Player, deadline: datetime
) -> int:
    """A running one-round stage of `kind` whose only match, a against b, is agreed for AGREED
    (the players must be flushed already)."""
    round_ = await open_stage(
        session, kind, [a.id, b.id], deadline=deadline, thread_id=ROUND_THREAD
    )
    match = Match(
        round_id=round_.id,
        player_a_id=a.id,
        player_b_id=b.id,
        state=MatchState.SCHEDULED,
        agreed_time=AGREED,
        td_assigns=False,
        score_a=0.0,
        score_b=0.0,
    )
    session.add(match)
    await session.flush()
    return match.id


async def candidates_match(
    sessions: async_sessionmaker[AsyncSession], fake: FakeLichess, a: str, b: str
) -> int:
    """A Candidates round with one scheduled match (rule III.F: all games are played)."""
    async with transaction(sessions) as session:
        pa = Player(lichess_id=a.lower(), lichess_username=a, created_at=ROUND_START)
        pb = Player(lichess_id=b.lower(), lichess_username=b, created_at=ROUND_START)
        session.add_all([pa, pb])
        await session.flush()
        match_id = await agreed_single_match(session, StageKind.CANDIDATES, pa, pb, ROUND_DEADLINE)
    for name in (a, b):
        fake.add_user(name, created_at=datetime(2017, 1, 1, tzinfo=UTC))
    return match_id


def play(
    fake: FakeLichess,
    number: int,
    *,
    a: str = "Alice",
    b: str = "Bob",
    result_a: float = 1.0,
    **changes: Any,
) -> dict[str, Any]:
    """Game `number` (1-based) of the match, colours alternating, ten minutes apart."""
    white, black = (a, b) if number % 2 else (b, a)
    if result_a == 0.5:
        winner, status = None, "draw"
    else:
        a_won = result_a == 1.0
        winner = (
            ("white" if white == a else "black") if a_won else ("black" if white == a else "white")
        )
        status = "variantEnd"
    created = AGREED + timedelta(minutes=2 + 10 * (number - 1))
    options: dict[str, Any] = {
        "white": white,
        "black": black,
        "created_at": created,
        "last_move_at": created + timedelta(minutes=8),
        "winner": winner,
        "status": status,
    }
    options.update(changes)
    return fake.add_game(**options)


async def match_row(sessions: async_sessionmaker[AsyncSession], match_id: int) -> Match:
    async with sessions() as session:
        match = await session.get(Match, match_id)
        assert match is not None
        return match


async def games_of(sessions: async_sessionmaker[AsyncSession], match_id: int) -> list[Game]:
    async with sessions() as session:
        return list(
            (
                await session.scalars(
                    select(Game).where(Game.match_id == match_id).order_by(Game.number)
                )
            ).all()
        )


async def outbox(sessions: async_sessionmaker[AsyncSession]) -> list[OutboxMessage]:
    async with sessions() as session:
        return list(await session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))
