"""Withdrawals and disqualifications (rule VIII) as changes to results.

Each function turns "player X left" into what the standings and pairings of
that stage use, so the stage engines never special-case a leaver:

* Qualification (VIII.A): the leaver is withdrawn (never paired again); an
  unfinished match is won by the opponent; with an engine mark (not a booster
  mark, not a plain disqualification or withdrawal) every finished match of
  theirs is adjudicated to the opponent.
* Candidates (VIII.B): all their matches are disregarded.
* Final (VIII.C): the Candidates runner-up steps in.

Swiss results are ``(player_a, player_b_or_None, match_points_a,
match_points_b)`` with ``player_b`` None for a bye; Candidates results are
``(a, b, games_a, games_b)``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

__all__ = [
    "BOOSTER",
    "DISQUALIFICATION",
    "ENGINE",
    "REASONS",
    "WITHDRAWAL",
    "FinalPairing",
    "LeavePlan",
    "StageMatch",
    "SwissChange",
    "SwissLeave",
    "adjudicate_engine",
    "candidates_disregarded",
    "candidates_without",
    "final_pairing_after_withdrawal",
    "leave_plan",
    "leaves_the_championship",
    "robin_result",
    "swiss_changes",
    "swiss_leave",
    "swiss_unfinished_match_result",
]

SwissResult = tuple[str, str | None, float, float]
CandidateResult = tuple[str, str, float, float]

WITHDRAWAL = "withdrawal"
DISQUALIFICATION = "disqualification"
BOOSTER = "booster"
ENGINE = "engine"
#: Why a player leaves; only ``ENGINE`` changes finished Qualification results.
REASONS = frozenset({WITHDRAWAL, DISQUALIFICATION, BOOSTER, ENGINE})


def swiss_unfinished_match_result(
    player: str, opponent: str, *, win_points: float = 1.0
) -> SwissResult:
    """Rule 8.1.1 (VIII.A.1): the result of the leaver's uncompleted Qualification match.

    The opponent wins it: ``(player, opponent, 0.0, win_points)``, keeping
    the arguments' order, with the leaver scoring 0.
    """
    if not player or not opponent or player == opponent:
        raise ValueError("an unfinished match needs two different players")
    return (player, opponent, 0.0, float(win_points))


def adjudicate_engine(
    results: Sequence[SwissResult],
    player: str,
    *,
    win_points: float = 1.0,
    keep_byes: bool = False,
) -> list[SwissResult]:
    """Rule 8.1.2 (VIII.A.2): every finished Qualification match of ``player`` given to the
    opponent.

    Each match of theirs becomes 0 for them and ``win_points`` for the
    opponent, whatever the board said (a draw or a win of theirs alike).
    A bye has no opponent to give it to; the rules are silent, so by default
    the engine user's bye is scored 0 (they keep no points from the event);
    ``keep_byes=True`` leaves byes alone.  Other results are unchanged and the
    order of ``results`` is kept.
    """
    out: list[SwissResult] = []
    for result in results:
        a, b, _pa, pb = result
        if b is None:
            out.append((a, None, 0.0, pb) if a == player and not keep_byes else result)
        elif a == player:
            out.append((a, b, 0.0, float(win_points)))
        elif b == player:
            out.append((a, b, float(win_points), 0.0))
        else:
            out.append(result)
    return out


@dataclass(frozen=True)
class SwissLeave:
    """Rule 8.1 (VIII.A): what the Qualification uses after a player left: results and the
    withdrawn set."""

    results: list[SwissResult]
    withdrawn: frozenset[str]


def swiss_leave(
    results: Sequence[SwissResult],
    player: str,
    *,
    reason: str = WITHDRAWAL,
    withdrawn: Collection[str] = (),
    unfinished_opponent: str | None = None,
    win_points: float = 1.0,
) -> SwissLeave:
    """Rule 8.1 (VIII.A): apply the rule for ``player`` leaving the Qualification for ``reason``.

    The player joins ``withdrawn`` (so they are no longer paired); an
    unfinished match against ``unfinished_opponent`` is added as a win for the
    opponent; with ``reason="engine"`` the finished matches are adjudicated
    (:func:`adjudicate_engine`).  A booster mark, a plain disqualification and
    a withdrawal leave finished results as they are.
    """
    if reason not in REASONS:
        raise ValueError(f"reason must be one of {sorted(REASONS)}, got {reason!r}")
    new_results = (
        adjudicate_engine(results, player, win_points=win_points)
        if reason == ENGINE
        else list(results)
    )
    if unfinished_opponent is not None:
        new_results.append(
            swiss_unfinished_match_result(player, unfinished_opponent, win_points=win_points)
        )
    return SwissLeave(new_results, frozenset(withdrawn) | {player})


def candidates_without(results: Sequence[CandidateResult], player: str) -> list[CandidateResult]:
    """Rule 8.2 (VIII.B): the Candidates results with every match of ``player`` disregarded."""
    return [r for r in results if player not in (r[0], r[1])]


@dataclass(frozen=True)
class FinalPairing:
    """Rule 8.3 (VIII.C): the two finalists after a withdrawal.

    ``first`` takes the "champion" side of :func:`bot.rules.final.status` and
    :func:`bot.rules.final.armageddon_white`; ``second`` the challenger side.
    ``defending_champion`` is None when the defending champion left: then
    ``first`` is the Challenger (the Candidates winner, the higher placed of the
    two) but has no champion's privilege by right, so the TD decides where the
    rules give one (equal Armageddon bids, III.G.6.c).
    """

    first: str
    second: str
    defending_champion: str | None


def final_pairing_after_withdrawal(
    champion: str, challenger: str, runner_up: str | None, withdrawn: str
) -> FinalPairing:
    """Rule 8.3 (VIII.C): the Final's pairing after ``withdrawn`` left.

    Champion leaves: the Challenger plays the Candidates runner-up (VIII.C.1).
    Challenger leaves: the runner-up becomes the Challenger (VIII.C.2).
    Runner-up leaves: the pairing is unchanged.  Raises ``ValueError`` for a
    player who is none of the three, or when a replacement is needed but
    ``runner_up`` is None (undetermined or gone: the TD decides).
    """
    if len({champion, challenger, runner_up}) != 3:
        raise ValueError("champion, challenger and runner-up must be three different players")
    if withdrawn == runner_up:
        return FinalPairing(champion, challenger, champion)
    if withdrawn not in (champion, challenger):
        raise ValueError(f"{withdrawn!r} is not in the Final or next in line")
    if runner_up is None:
        raise ValueError("no Candidates runner-up to step in; the TD decides")
    if withdrawn == champion:
        return FinalPairing(challenger, runner_up, None)
    return FinalPairing(champion, runner_up, champion)


# --- applying rule VIII to stored matches ------------------------------------------------------

# Stage states and match states as the database stores them (db.models values).
STAGE_FINISHED = "finished"
FINISHED, FORFEITED, BYE = "finished", "forfeited", "bye"
_DONE = frozenset({FINISHED, FORFEITED, BYE})


STAGE_PLANNED = "planned"


def leaves_the_championship(swiss: str | None) -> bool:
    """Rule 8 (VIII): a withdrawal changes results only once the championship has begun
    (the Qualification stage exists and is no longer planned); before that, the player's
    registration simply ends."""
    return swiss is not None and swiss != STAGE_PLANNED


@dataclass(frozen=True)
class LeavePlan:
    """Rule 8.1 (VIII.A), rule 8.2 (VIII.B), rule 8.3 (VIII.C): which stages a leaving
    player's results change in, and what the TD is told about the others."""

    swiss: bool
    adjudicate: bool
    swiss_finished_unadjudicated: bool
    tiebreak: bool
    candidates: bool
    candidates_finished: bool
    final: bool


def leave_plan(
    *,
    swiss: str | None,
    tiebreak: str | None,
    candidates: str | None,
    final: str | None,
    in_final: bool,
    reason: str,
) -> LeavePlan:
    """What leaving for ``reason`` changes, given each stage's state (None when the stage
    does not exist).

    Rule 8.1 (VIII.A): in an unfinished Qualification the unfinished match goes to the
    opponent, and an engine mark adjudicates the finished ones (VIII.A.2); once the
    Qualification is finished its results stay (the TD is told when an engine mark would
    have changed them). The tiebreak matches are Qualification matches played off (rule
    III.E.5): the unfinished one goes to the opponent, finished ones stay. Rule 8.2
    (VIII.B): in unfinished Candidates every match is disregarded; finished ones stay.
    Rule 8.3 (VIII.C): a finalist of an unfinished Final is replaced (by the rounds).
    """
    if reason not in REASONS:
        raise ValueError(f"reason must be one of {sorted(REASONS)}, got {reason!r}")
    swiss_open = swiss is not None and swiss != STAGE_FINISHED
    return LeavePlan(
        swiss=swiss_open,
        adjudicate=swiss_open and reason == ENGINE,
        swiss_finished_unadjudicated=swiss == STAGE_FINISHED and reason == ENGINE,
        tiebreak=tiebreak is not None and tiebreak != STAGE_FINISHED,
        candidates=candidates is not None and candidates != STAGE_FINISHED,
        candidates_finished=candidates == STAGE_FINISHED,
        final=final is not None and final != STAGE_FINISHED and in_final,
    )


@dataclass(frozen=True)
class StageMatch:
    """Rule 8 (VIII): a stored match as rule VIII reads it (ids as strings, states as stored)."""

    id: int
    a: str
    b: str | None
    state: str
    points_a: float | None
    points_b: float | None
    forfeit_winner: str | None


@dataclass(frozen=True)
class SwissChange:
    """Rule 8.1 (VIII.A): what a match becomes: ``kind`` "unfinished" (forfeited to
    ``forfeit_winner``) or "engine" (adjudicated: new points only)."""

    match_id: int
    kind: str
    points_a: float
    points_b: float
    forfeit_winner: str | None


def swiss_changes(
    matches: Sequence[StageMatch], player: str, *, engine: bool, win_points: float = 1.0
) -> list[SwissChange]:
    """Rule 8.1.1 (VIII.A.1), rule 8.1.2 (VIII.A.2): the changes to ``player``'s
    Qualification (or tiebreak) matches, in order: every undecided match against an
    opponent goes to the opponent (:func:`swiss_unfinished_match_result`); with an
    ``engine`` mark every finished match, bye and forfeit they lost, as it stands after
    that, is adjudicated (:func:`adjudicate_engine`) when that changes its points."""
    changes: list[SwissChange] = []
    after: dict[int, StageMatch] = {}
    for m in matches:
        if m.state in _DONE or m.b is None:
            after[m.id] = m
            continue
        opponent = m.b if m.a == player else m.a
        _, _, _, won = swiss_unfinished_match_result(player, opponent, win_points=win_points)
        pa, pb = (0.0, won) if m.a == player else (won, 0.0)
        changes.append(SwissChange(m.id, "unfinished", pa, pb, opponent))
        after[m.id] = StageMatch(m.id, m.a, m.b, FORFEITED, pa, pb, opponent)
    if not engine:
        return changes
    finished = [m for m in matches if after[m.id].state in (FINISHED, BYE)]
    finished += [
        m
        for m in matches
        if after[m.id].state == FORFEITED and after[m.id].forfeit_winner not in (None, player)
    ]
    results: list[SwissResult] = [
        (m.a, m.b, after[m.id].points_a or 0.0, after[m.id].points_b or 0.0) for m in finished
    ]
    adjudicated = adjudicate_engine(results, player, win_points=win_points)
    for m, (_, _, pa, pb) in zip(finished, adjudicated, strict=True):
        if (after[m.id].points_a, after[m.id].points_b) != (pa, pb):
            changes.append(SwissChange(m.id, "engine", pa, pb, after[m.id].forfeit_winner))
    return changes


def candidates_disregarded(matches: Sequence[StageMatch], player: str) -> list[int]:
    """Rule 8.2 (VIII.B): the ids of ``player``'s Candidates matches to disregard: those
    :func:`candidates_without` leaves out, less the ones already disregarded (forfeited
    with no winner)."""
    results: list[CandidateResult] = [
        (m.a, m.b or "", m.points_a or 0.0, m.points_b or 0.0) for m in matches
    ]
    kept = candidates_without(results, player)
    gone = [m for m, r in zip(matches, results, strict=True) if r not in kept]
    return [m.id for m in gone if not (m.state == FORFEITED and m.forfeit_winner is None)]


def robin_result(
    match: StageMatch,
    *,
    field: Collection[str],
    scores: tuple[float, float],
    games: float,
) -> CandidateResult | None:
    """Rule 8.2 (VIII.B): a decided round-robin match as the table reads it, or None when it
    does not count: undecided, a bye, outside the stage's ``field``, or forfeited without
    a winner (the match of a player who left the Candidates is disregarded). A forfeit won
    by a player gives them all ``games``; a played match keeps its game ``scores``."""
    if match.state not in _DONE or match.b is None:
        return None
    if match.a not in field or match.b not in field:
        return None
    if match.forfeit_winner is None and (match.state == FORFEITED or match.points_a is None):
        return None  # disregarded (or not decided on the board)
    if match.forfeit_winner is not None:
        won = match.forfeit_winner == match.a
        return (match.a, match.b, games if won else 0.0, 0.0 if won else games)
    return (match.a, match.b, scores[0], scores[1])
