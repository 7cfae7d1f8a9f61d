"""Withdrawals and disqualifications by stage kind (rule VIII and its 2020-2024 texts).

One function per kind of stage, in one table (:data:`LEAVING`, read by
:func:`on_leaving`), each turning "this player left" into what the stage changes:

* Swiss: the opponent wins the pending match; an engine mark gives every finished Swiss
  match to the opponents (rule VIII.A, :func:`bot.rules.withdrawals.swiss_changes`).
* Round robin: "all of their games will be disregarded" (rule VIII.B,
  :func:`bot.rules.withdrawals.candidates_disregarded`); they take no place.
* Knock-out before its matches start, and a final match: the players below them move up
  ("the other players below them in their Candidate pool move up one position in their
  placement in the Semifinal Matches", and for the Final Matches "the other players below
  them in the Semifinals and Candidates move up one position", 2024 rules): the stage's
  entrants are read again without them (:func:`bot.rules.advancement.stage_entrants`).
  2019's Final is the same rule: the Candidates runner-up steps in (rule VIII.C).
* A knock-out match under way: the texts are silent; the opponent wins it, as a Swiss
  match's (rule VIII.A.1) and 2019's tiebreak matches' (:func:`bot.rules.stages.
  settle_absent`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from bot.rules.advancement import Entry, EntryRule, Outcomes, StageKind, stage_entrants
from bot.rules.withdrawals import (
    ENGINE,
    REASONS,
    WITHDRAWAL,
    StageMatch,
    SwissChange,
    candidates_disregarded,
    swiss_changes,
)

__all__ = [
    "LEAVING",
    "LeaveEffect",
    "Leaving",
    "final_leaving",
    "knockout_leaving",
    "on_leaving",
    "robin_leaving",
    "swiss_leaving",
]


@dataclass(frozen=True)
class Leaving:
    """A player leaving a stage, with what its kind reads: the stage's stored
    ``matches`` (Swiss, round robin, a knock-out under way); its ``entry_rules`` and the
    earlier stages' ``outcomes`` (a knock-out not started, a final match); whether the
    knock-out's matches have ``started``."""

    player: str
    reason: str = WITHDRAWAL
    matches: tuple[StageMatch, ...] = ()
    entry_rules: tuple[EntryRule, ...] = ()
    outcomes: Outcomes = field(default_factory=Outcomes)
    started: bool = False
    win_points: float = 1.0

    def __post_init__(self) -> None:
        if self.reason not in REASONS:
            raise ValueError(f"reason must be one of {sorted(REASONS)}, got {self.reason!r}")


@dataclass(frozen=True)
class LeaveEffect:
    """What leaving changes: new match results (``changes``), match ids disregarded, or
    the stage's ``entrants`` once the players below moved up, with ``replacements`` (the
    entrants who were not in it before, in order)."""

    changes: tuple[SwissChange, ...] = ()
    disregarded: tuple[int, ...] = ()
    entrants: tuple[Entry, ...] = ()
    replacements: tuple[Entry, ...] = ()


def swiss_leaving(leaving: Leaving) -> LeaveEffect:
    """Rule VIII.A: "their opponent wins this game"; "If the disqualification happens on
    grounds of an engine mark (not booster mark), all of their finished games in the
    Qualification will be adjudicated in favor of their opponents"."""
    engine = leaving.reason == ENGINE
    changes = swiss_changes(
        leaving.matches, leaving.player, engine=engine, win_points=leaving.win_points
    )
    return LeaveEffect(changes=tuple(changes))


def robin_leaving(leaving: Leaving) -> LeaveEffect:
    """Rule VIII.B: "if a player withdraws or gets disqualified from the Candidates, all
    of their games will be disregarded" (in every pool of a round robin stage)."""
    return LeaveEffect(disregarded=tuple(candidates_disregarded(leaving.matches, leaving.player)))


def _reseated(leaving: Leaving) -> LeaveEffect:
    """The stage's entrants read again with the player out: those below move up."""
    before = stage_entrants(leaving.entry_rules, leaving.outcomes)
    outcomes = replace(leaving.outcomes, left=leaving.outcomes.left | {leaving.player})
    after = stage_entrants(leaving.entry_rules, outcomes)
    was_in = {e.player for e in before}
    return LeaveEffect(
        entrants=tuple(after), replacements=tuple(e for e in after if e.player not in was_in)
    )


def knockout_leaving(leaving: Leaving) -> LeaveEffect:
    """2024 rules, Semifinal Matches: "the other players below them in their Candidate
    pool move up one position in their placement in the Semifinal Matches" (so the pool's
    runner-up is its winner when the winner leaves, and the third its runner-up). Once the
    matches are under way the texts are silent: the opponent wins the pending match."""
    if leaving.started:
        changes = swiss_changes(
            leaving.matches, leaving.player, engine=False, win_points=leaving.win_points
        )
        return LeaveEffect(changes=tuple(changes))
    return _reseated(leaving)


def final_leaving(leaving: Leaving) -> LeaveEffect:
    """2024 rules, Final Matches: "the other players below them in the Semifinals and
    Candidates move up one position in their placement in the Final Matches" (2020: "in
    their round robin pool"; 2019, rule VIII.C: the Candidates runner-up steps in for the
    champion or the Challenger)."""
    return _reseated(leaving)


#: The withdrawal rule of each kind of stage.
LEAVING: Mapping[StageKind, Callable[[Leaving], LeaveEffect]] = {
    StageKind.SWISS: swiss_leaving,
    StageKind.ROUND_ROBIN: robin_leaving,
    StageKind.KNOCKOUT: knockout_leaving,
    StageKind.FINAL_MATCH: final_leaving,
}


def on_leaving(kind: StageKind, leaving: Leaving) -> LeaveEffect:
    """What ``leaving`` changes in a stage of ``kind`` (:data:`LEAVING`)."""
    return LEAVING[kind](leaving)
