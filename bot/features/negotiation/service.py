"""Rule V's services, each a plain class of its own module: /accept and the agreed time
(`agreement.Agreements`), the players' offers (`offers.PlayerOffers`), their time zones
(`zones.PlayerZones`) and reminders (`notify.PlayerNotifications`), the TD's rulings
(`td.TDRulings`) and the deadlines (`deadlines.NegotiationDeadlines`); `bot.wiring` builds
each one. What other features import from the package is re-exported here."""

from __future__ import annotations

from bot.events import MatchAgreed
from bot.features.negotiation.agreement import MATCH_SUBJECT, OFFER_ACCEPT_VIEW
from bot.features.negotiation.common import NOBODY
from bot.features.negotiation.deadlines import schedule_match_deadlines
from bot.features.negotiation.types import (
    Agreement,
    FaultRuling,
    MatchView,
    OfferInfo,
    OfferResult,
    ReminderSetting,
    RescheduleResult,
    ZoneSetting,
)

__all__ = [
    "MATCH_SUBJECT",
    "NOBODY",
    "OFFER_ACCEPT_VIEW",
    "Agreement",
    "FaultRuling",
    "MatchAgreed",
    "MatchView",
    "OfferInfo",
    "OfferResult",
    "ReminderSetting",
    "RescheduleResult",
    "ZoneSetting",
    "schedule_match_deadlines",
]
