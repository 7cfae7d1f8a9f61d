"""What every match-day feature shows of a match: its games and where it stands."""

from __future__ import annotations

from dataclasses import dataclass

#: Why a game played on after its match was decided does not count (`stages.played_on`).
PLAYED_ON = "played on after the match was decided"


@dataclass(frozen=True)
class GameLine:
    """One stored game as the scoreboard shows it."""

    number: int
    lichess_id: str
    white: str
    black: str
    result_a: float
    counted: bool
    voided_reason: str | None
    flagged: bool


@dataclass(frozen=True)
class MatchProgress:
    """Where a match stands on match day: its score and the games read from Lichess."""

    player_a: str
    player_b: str
    state: str  # a MatchState value
    score_a: float
    score_b: float
    games: list[GameLine]
    challenge_url: str | None
    forfeit_winner: str | None
    link_white: str | None = None  # who has White in the first game of the link
    live_game: str | None = None  # the game in progress the game stream announced (its link)

    @property
    def counted(self) -> list[GameLine]:
        return [g for g in self.games if g.counted]

    @property
    def decided(self) -> bool:
        return self.state in ("finished", "forfeited", "bye")
