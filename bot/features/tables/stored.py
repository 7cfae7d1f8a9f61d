"""The stored rows every table reads: a stage's published rounds, their matches in board
order, the players by id, the games that count. Plain functions over a session, shared by
the service's tables and the bracket (`bracket_reading.py`)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from db.models import Game, Match, Player, Round, RoundState, Stage

__all__ = ["counted_games", "players_by_id", "published_rounds", "round_matches"]


async def published_rounds(session: AsyncSession, stage: Stage) -> list[Round]:
    """The stage's published rounds (and finished ones), in order."""
    return list(
        (
            await session.scalars(
                select(Round)
                .where(Round.stage_id == stage.id, Round.state != RoundState.DRAFT)
                .order_by(Round.number)
            )
        ).all()
    )


async def players_by_id(session: AsyncSession, ids: Iterable[int]) -> dict[int, Player]:
    rows = await session.scalars(select(Player).where(Player.id.in_(list(ids))))
    return {p.id: p for p in rows}


async def round_matches(session: AsyncSession, rounds: list[Round]) -> list[Match]:
    """The rounds' matches, round by round, in board order."""
    return list(
        (
            await session.scalars(
                select(Match)
                .where(Match.round_id.in_([r.id for r in rounds]))
                .order_by(Match.round_id, Match.board)
            )
        ).all()
    )


async def counted_games(session: AsyncSession, match_ids: Iterable[int]) -> dict[int, list[Game]]:
    """The games that count (rule VI.G) of each match, in order."""
    counted: dict[int, list[Game]] = {}
    rows = await session.scalars(
        select(Game)
        .where(Game.match_id.in_(list(match_ids)), Game.counted.is_(True))
        .order_by(Game.number, Game.id)
    )
    for game in rows:
        counted.setdefault(game.match_id, []).append(game)
    return counted
