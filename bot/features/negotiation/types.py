"""What the negotiation use cases return, shared by the service and its wording."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.features.matches.types import MatchProgress
from db.models import MatchState, OfferKind, OfferState


@dataclass(frozen=True)
class OfferInfo:
    id: int
    number: int  # among its offerer's offers in the match (agreement.offer_numbers)
    by_player_id: int | None  # None: the TD
    by_name: str
    kind: OfferKind
    time: datetime
    state: OfferState
    created_at: datetime
    answered_at: datetime | None
    mine: bool = False


@dataclass(frozen=True)
class MatchView:
    match_id: int
    round_number: int
    board: int
    me: str
    opponent: str | None  # None: a bye
    state: MatchState
    agreed_time: datetime | None
    offers: list[OfferInfo]
    my_offers_owed: int
    opponent_offers_owed: int
    offers_due: datetime
    round_deadline: datetime
    chooser: str | None
    i_choose: bool
    td_assigns: bool
    # Match day: the score, the games read from Lichess, the game link (None for a bye).
    progress: MatchProgress | None = None
    started: bool = False  # the agreed time has come


@dataclass(frozen=True)
class OfferResult:
    match_id: int
    opponent: str
    offers: list[OfferInfo]
    still_owed: int
    offers_due: datetime
    read_in: str | None = None  # the player's zone (/timezone) times without one were read in


@dataclass(frozen=True)
class RescheduleResult:
    match_id: int
    opponent: str
    offer: OfferInfo
    current: datetime


@dataclass(frozen=True)
class Agreement:
    match_id: int
    time: datetime
    previous: datetime | None
    kind: OfferKind
    match: str = ""  # its place and players, for the TD's reply (no row id: issue 32)


@dataclass(frozen=True)
class FaultRuling:
    match_id: int
    at_fault: str | None  # None: nobody, the TD assigns
    chooser: str | None
    drawn: bool = False  # nobody at fault and the format rules a draw (format.no_fault)
    match: str = ""  # its place and players, for the TD's reply (no row id: issue 32)


@dataclass(frozen=True)
class ZoneSetting:
    """A player's zone for reading their times (/timezone): None is UTC."""

    zone: str | None
    previous: str | None
    example_utc: datetime  # an example: "wed 18:00" in the zone, as the rules record it


@dataclass(frozen=True)
class ReminderSetting:
    """A player's reminder DMs after /notify: on or off, and whether that changed."""

    on: bool
    changed: bool
