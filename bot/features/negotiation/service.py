"""The negotiation service (rule V): one object for the players' and the TD's use cases and
the deadlines, each written in its own module of this package."""

from __future__ import annotations

from bot.due import DueKind, Handler
from bot.events import MatchAgreed, RoundPublished
from bot.features.negotiation.agreement import MATCH_SUBJECT, NOBODY, OFFER_ACCEPT_VIEW
from bot.features.negotiation.deadlines import NegotiationDeadlines, schedule_match_deadlines
from bot.features.negotiation.notify import PlayerNotifications
from bot.features.negotiation.offers import PlayerOffers
from bot.features.negotiation.td import TDRulings
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
from bot.features.negotiation.zones import PlayerZones
from bot.service import Subscription

__all__ = [
    "MATCH_SUBJECT",
    "NOBODY",
    "OFFER_ACCEPT_VIEW",
    "Agreement",
    "FaultRuling",
    "MatchAgreed",
    "MatchView",
    "NegotiationService",
    "OfferInfo",
    "OfferResult",
    "ReminderSetting",
    "RescheduleResult",
    "ZoneSetting",
    "schedule_match_deadlines",
]


class NegotiationService(
    PlayerOffers, PlayerZones, PlayerNotifications, TDRulings, NegotiationDeadlines
):
    """Rule V end to end; `bot.wiring` registers its deadlines and subscriptions."""

    def due_handlers(self) -> dict[DueKind, Handler]:
        return {
            DueKind.OFFER_UNANSWERED: self.on_offer_unanswered,
            DueKind.OFFERS_DUE: self.on_offers_due,
            DueKind.WEEKEND_CHECK: self.on_weekend_check,
            DueKind.MATCH_REMINDER: self.on_match_reminder,
        }

    def subscriptions(self) -> list[Subscription]:
        return [(RoundPublished, self.on_round_published)]
