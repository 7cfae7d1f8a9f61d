"""Scoring of one multi-game match (rules III.E.1 and III.F.1-2).

A Qualification or Candidates match is a fixed number of games (10 in 2019).
The side with more game points wins the match (1 match point), equal game
points share it (0.5 each).  In the Qualification the players may stop once
the result can no longer change (rule III.E.1); in the Candidates they may not
(rule III.F.2), because the exact game score is a tiebreak.

Pure functions over plain numbers: no I/O, no clock.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence

__all__ = [
    "DEFAULT_GAMES",
    "GameStanding",
    "Recount",
    "after_recount",
    "check_game_points",
    "game_standings",
    "is_over",
    "match_points",
    "match_score",
    "stops_early",
]

#: Games per match in the 2019 edition (rules III.E.1, III.F.1).
DEFAULT_GAMES = 10


def check_game_points(value: float, name: str = "game points") -> float:
    """Validate a game-point total: a finite, non-negative multiple of 0.5.

    Games score 1, 0.5 or 0, so any other total is a typo or a corrupt record,
    and silently ranking it would hide the mistake.  Booleans are refused
    because ``True`` would pass as 1 point.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, got {value!r}")
    try:
        doubled = float(value) * 2
    except OverflowError:  # an int too large for a float
        raise ValueError(f"{name} must be a finite, non-negative number, got {value!r}") from None
    # Checked on the doubled value too: 1e308 is finite, but twice it is not.
    if not math.isfinite(doubled) or value < 0:
        raise ValueError(f"{name} must be a finite, non-negative number, got {value!r}")
    if not doubled.is_integer():
        raise ValueError(f"{name} must be a multiple of 0.5, got {value!r}")
    return float(value)


def match_points(games_a: float, games_b: float) -> tuple[float, float]:
    """Match points of a finished match: 1-0 to the side with more game points, else 0.5 each.

    Only the comparison matters, so the number of games played is not checked
    here (a forfeit or an early stop is scored the same way).
    """
    a = check_game_points(games_a, "games_a")
    b = check_game_points(games_b, "games_b")
    if a > b:
        return (1.0, 0.0)
    if b > a:
        return (0.0, 1.0)
    return (0.5, 0.5)


def is_over(
    games_a: float, games_b: float, *, games: int = DEFAULT_GAMES, early_stop: bool = True
) -> bool:
    """True once the match may end: all ``games`` played, or (``early_stop``) a side
    holds more than half of the games, so the other side can no longer catch up.

    "More than half" works for odd totals too: with 9 games, 5 points decide
    (the other side can reach at most 4).  With 10 games, 5 points do not
    (5-5 is still possible), 5.5 do (rule III.E.1).  The Candidates pass
    ``early_stop=False`` (rule III.F.2).

    Raises ``ValueError`` for scores that cannot occur: negative or non-half
    points, or more points than games played allows (``games_a + games_b > games``).
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    a = check_game_points(games_a, "games_a")
    b = check_game_points(games_b, "games_b")
    if a + b > games:
        raise ValueError(f"{a:g} + {b:g} game points is more than {games} games allow")
    if a + b == games:
        return True
    return early_stop and (a > games / 2 or b > games / 2)


def stops_early(stage: str, *, players: int, candidates_early_stop: bool = False) -> bool:
    """Whether a match of ``stage`` (``"swiss"``, ``"tiebreak"``, ``"candidates"``) may
    end once its result can no longer change (:func:`is_over`'s ``early_stop``).

    The Swiss may stop (rule 3.5.1, III.E.1: "may stop at 5.5"); the Candidates are played
    out (rule 3.6.2, III.F.2), unless configured otherwise; a tiebreak match (rule 3.5.5,
    III.E.5) stops early like the Swiss when two players meet, but among ``players`` three
    or more the game points may decide, so it is played out."""
    if stage == "swiss":
        return True
    if stage == "tiebreak":
        return players == 2
    if stage == "candidates":
        return candidates_early_stop
    raise ValueError(f"no early stop rule for stage {stage!r}")


class GameStanding(enum.Enum):
    """What a recorded game of a match is once the match is recounted (rule VI.G)."""

    COUNTS = "counts"
    PLAYED_ON = "played on"  # after the decision, in a stage that records it: the result stands
    BEYOND = "beyond"  # after the decision (or before the Armageddon's bids): does not count


def game_standings(games: int, *, counted: int, full_length: int | None) -> list[GameStanding]:
    """Rule 6.7 (VI.G): the result of a match is its games, in order (the TD's voided ones
    left out): the first ``counted`` count (the match's own rules say how many, e.g.
    :func:`is_over`); when the stage records a decided match played on to ``full_length``
    games, those after the decision are shown and the result stands; the rest count for
    nothing."""
    if counted < 0 or games < 0:
        raise ValueError("games and counted must be non-negative")
    shown = max(counted, full_length) if full_length is not None else counted
    return [
        GameStanding.COUNTS
        if index < counted
        else GameStanding.PLAYED_ON
        if index < shown
        else GameStanding.BEYOND
        for index in range(games)
    ]


def match_score(results: Sequence[float]) -> tuple[float, float]:
    """Rule 6.7 (VI.G): the score of the games that count, from player A's side."""
    a = sum(check_game_points(r, "result") for r in results)
    return a, len(results) - a


class Recount(enum.Enum):
    """What a recount does to the match (rule VI.G: the result is known once it is over)."""

    FINISH = "finish"  # over now: the result is posted, the match points given
    REPOINT = "repoint"  # was over and still is: the match points follow the new score
    REOPEN = "reopen"  # was over and no longer is (a game voided): it goes on
    START = "start"  # the first game counts: the match is under way
    NONE = "none"


def after_recount(*, over: bool, finished: bool, under_way: bool, any_counted: bool) -> Recount:
    """Rule 6.7 (VI.G): what a match becomes after its games are recounted. ``under_way``:
    scheduled or in progress; ``finished``: already over on the board."""
    if over and under_way:
        return Recount.FINISH
    if over and finished:
        return Recount.REPOINT
    if not over and finished:
        return Recount.REOPEN
    if any_counted and under_way:
        return Recount.START
    return Recount.NONE
