"""The reads /schedule and the calendar feeds share: names, counted games, and how often a
match's time was set (one `match_time_set` audit row per agreement or change: negotiation
writes it, and it gives each calendar event its SEQUENCE)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.features.matches.text import game_link
from db.models import AuditEntry, Game, Player

# The audit row negotiation writes each time a match's time is agreed, chosen or assigned.
TIME_SET = "match_time_set"
MATCH_SUBJECT = "match"


async def names(session: AsyncSession, ids: set[int]) -> dict[int, str]:
    """Each player's Lichess name by their row."""
    if not ids:
        return {}
    rows = await session.execute(
        select(Player.id, Player.lichess_username).where(Player.id.in_(ids))
    )
    return {pid: name for pid, name in rows}


async def counted_games(session: AsyncSession, match_ids: Sequence[int]) -> dict[int, list[str]]:
    """Each match's counted games as Lichess links, in the order they were played (a voided
    game is left out: it is not part of the result)."""
    games: dict[int, list[str]] = defaultdict(list)
    if not match_ids:
        return games
    rows = await session.execute(
        select(Game.match_id, Game.lichess_id)
        .where(Game.match_id.in_(match_ids), Game.counted.is_(True))
        .order_by(Game.match_id, Game.number, Game.id)
    )
    for match_id, lichess_id in rows:
        games[match_id].append(game_link(lichess_id))
    return games


async def times_set(session: AsyncSession, match_ids: Sequence[int]) -> dict[int, int]:
    """How many times each match's time was set (0: never agreed)."""
    if not match_ids:
        return {}
    rows = await session.execute(
        select(AuditEntry.subject_id, func.count(AuditEntry.id))
        .where(
            AuditEntry.action == TIME_SET,
            AuditEntry.subject_type == MATCH_SUBJECT,
            AuditEntry.subject_id.in_(match_ids),
        )
        .group_by(AuditEntry.subject_id)
    )
    return {subject: count for subject, count in rows if subject is not None}
