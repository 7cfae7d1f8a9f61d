"""The audit log: every state change records who or what caused it (docs/ARCHITECTURE.md)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import AuditEntry, TDDecision


@dataclass(frozen=True)
class Actor:
    """Who caused a change: a player or TD (by Discord id), a scheduled job, or the system."""

    kind: str  # "player", "td", "job", "system"
    discord_id: int | None = None

    @classmethod
    def player(cls, discord_id: int) -> Actor:
        return cls("player", discord_id)

    @classmethod
    def td(cls, discord_id: int) -> Actor:
        return cls("td", discord_id)

    @classmethod
    def job(cls) -> Actor:
        return cls("job")


def record(
    session: AsyncSession,
    *,
    at: datetime,
    actor: Actor,
    action: str,
    subject_type: str,
    subject_id: int | None,
    details: dict[str, Any] | None = None,
) -> AuditEntry:
    """Add an audit row to the caller's transaction, so it commits with the change it explains."""
    entry = AuditEntry(
        at=at,
        actor_type=actor.kind,
        actor_id=actor.discord_id,
        action=action,
        subject_type=subject_type,
        subject_id=subject_id,
        details=details or {},
    )
    session.add(entry)
    return entry


async def export(
    sessions: async_sessionmaker[AsyncSession], *, limit: int | None = None
) -> list[dict[str, Any]]:
    """The audit log as plain dicts, oldest first (the last `limit` entries when given)."""
    async with sessions() as session:
        query = select(AuditEntry).order_by(AuditEntry.id.desc())
        if limit is not None:
            query = query.limit(limit)
        rows = list((await session.scalars(query)).all())
    return [
        {
            "id": row.id,
            "at": row.at.isoformat().replace("+00:00", "Z"),
            "actor": row.actor_type,
            "actor_id": row.actor_id,
            "action": row.action,
            "subject": row.subject_type,
            "subject_id": row.subject_id,
            "details": row.details,
        }
        for row in reversed(rows)
    ]


def record_td_decision(
    session: AsyncSession,
    *,
    at: datetime,
    td_id: int,
    kind: str,
    subject_type: str,
    subject_id: int,
    decision: str,
    reason: str | None = None,
    action: str | None = None,
    details: dict[str, Any] | None = None,
) -> None:
    """A ruling by the TD: the decision row they review later and its audit entry, together."""
    session.add(
        TDDecision(
            kind=kind,
            subject_type=subject_type,
            subject_id=subject_id,
            decision=decision,
            reason=reason,
            td_discord_id=td_id,
            created_at=at,
        )
    )
    record(
        session,
        at=at,
        actor=Actor.td(td_id),
        action=action or kind,
        subject_type=subject_type,
        subject_id=subject_id,
        details=details if details is not None else {"decision": decision, "reason": reason},
    )
