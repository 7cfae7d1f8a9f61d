"""The audit log: every state change records who or what caused it (DESIGN rule 7)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from db.models import AuditEntry


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
