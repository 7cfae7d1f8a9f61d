"""What the incident use cases return, shared by the service and the cog."""

from __future__ import annotations

from dataclasses import dataclass

from db.models import IncidentState


@dataclass(frozen=True)
class IncidentResult:
    """What a player's incident action did; `text` is the reply to show them."""

    incident_id: int
    state: IncidentState
    text: str
    view: str | None = None  # an outbox view kind to attach to the reply, if any
    disqualified: bool = False
