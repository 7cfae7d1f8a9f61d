"""The incident service (rule VI): no-shows, breaks, players who left, and the TD's overrule,
each written in its own module of this package."""

from __future__ import annotations

from bot.due import DueKind, Handler
from bot.features.incidents.breaks import Breaks
from bot.features.incidents.core import (
    LEFT_CLAIM_VIEW,
    NOSHOW_CHECK_VIEW,
    NOSHOW_CHOICE_VIEW,
    SUBJECT,
)
from bot.features.incidents.noshow import NoShows
from bot.features.incidents.td import Overrules
from bot.features.incidents.types import IncidentResult

__all__ = [
    "LEFT_CLAIM_VIEW",
    "NOSHOW_CHECK_VIEW",
    "NOSHOW_CHOICE_VIEW",
    "SUBJECT",
    "IncidentResult",
    "IncidentService",
]


class IncidentService(NoShows, Breaks, Overrules):
    """Rule VI end to end; `bot.wiring` registers its timers."""

    def due_handlers(self) -> dict[DueKind, Handler]:
        return {
            DueKind.NOSHOW_CHECK: self.on_noshow_check,
            DueKind.RESCHEDULE_DEADLINE: self.on_reschedule_deadline,
            DueKind.BREAK_END: self.on_break_end,
            DueKind.LEFT_END: self.on_left_end,
        }
