"""What the schedule use case returns, shared by the service, the calendar and the wording."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from db.models import MatchState

DECIDED = (MatchState.FINISHED, MatchState.FORFEITED, MatchState.BYE)


@dataclass(frozen=True)
class ScheduleEntry:
    """One match of the player, seen from their side (`my_score` is their game points)."""

    match_id: int
    stage: str  # how readers name its stage row ("Swiss", "Upper pool", "Grand Final")
    round_number: int
    board: int
    opponent: str | None  # the opponent's Lichess name; None: a bye
    state: MatchState
    agreed_time: datetime | None
    my_score: float
    opponent_score: float
    round_deadline: datetime
    game_links: list[str] = field(default_factory=list)  # counted games, in order
    challenge_url: str | None = None  # the match's Lichess game link, once it is open
    forfeit_won: bool | None = None  # a forfeit: True if the player won it; else None
    time_changes: int = 0  # times the agreed time changed after the first agreement
    # The calendar's event names the stage (not the Swiss, every event of which is a round)
    named_in_summary: bool = True

    @property
    def decided(self) -> bool:
        return self.state in DECIDED

    @property
    def is_bye(self) -> bool:
        return self.opponent is None or self.state is MatchState.BYE


@dataclass(frozen=True)
class Schedule:
    """Every match of the player, newest round last, and their calendar file (if any)."""

    player: str  # the player's Lichess name
    upcoming: list[ScheduleEntry]
    past: list[ScheduleEntry]
    calendar: bytes | None  # the .ics file; None when no match has an agreed time
    events: int = 0  # the events in the calendar
    # The calendar feeds on the web (the player's own, the championship's): None when the
    # pages are not served at a known address, and then /schedule says nothing of feeds.
    feeds: tuple[str, str] | None = None

    @property
    def entries(self) -> list[ScheduleEntry]:
        return [*self.upcoming, *self.past]
