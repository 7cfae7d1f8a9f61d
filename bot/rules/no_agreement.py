"""What a match without an agreed time comes to, by edition: two settings.

* Both players made no offers by the deadline (:class:`NoOffers`): ``td_assigns`` (2019,
  rule V.F: "a TD will assign a time"; `bot.rules.negotiation.fault_at_offers_due` says
  ``"both"``) or ``draw_both_forfeit_a_game`` (2020-2024 rules, Match negotiations: "the
  match will count as a draw and both players will count as having forfeited a game").
* No fault found at the weekend (:class:`NoFault`): ``td_assigns`` (2019, rule V.I,
  `bot.rules.negotiation.fault_outcome`) or ``draw`` (2020-2024: "if no player is at fault
  then the match will be ruled as a draw").

A ruled draw is recorded as the drawn match it stands for: half the match's games each (5-5
of a 10-game match, 6-6 of 12), no game played (a design choice: game points feed the
tiebreaks, and a forfeit likewise counts as every game won, `bot.rules.candidates`). "Forfeited
a game" means the match (the texts call a match a "game" in places): each player's record
gets a forfeit that counts toward "forfeited in two different matches" (rule VI.F,
`bot.rules.match_conduct.counted_forfeits`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "NoAgreementOutcome",
    "NoFault",
    "NoOffers",
    "both_made_no_offers",
    "no_fault_found",
]

#: A drawn match's points each (the Swiss's "a tie gives 0.5 points").
DRAW_POINTS = 0.5


class NoOffers(StrEnum):
    """Both players made no offers by the deadline (the exact strings are configuration)."""

    TD_ASSIGNS = "td_assigns"  # 2019
    DRAW_BOTH_FORFEIT_A_GAME = "draw_both_forfeit_a_game"  # 2020-2024


class NoFault(StrEnum):
    """The TD found no one at fault at the weekend (the exact strings are configuration)."""

    TD_ASSIGNS = "td_assigns"  # 2019
    DRAW = "draw"  # 2020-2024


@dataclass(frozen=True)
class NoAgreementOutcome:
    """``td_assigns``: the TD assigns a time and the match is played (nothing else set).
    Otherwise the match is over: ``points`` (a, b) in match points, ``game_score`` (a, b) to
    record, and ``forfeits`` (a, b): whether each player's record gets a forfeit counting
    toward disqualification."""

    td_assigns: bool
    points: tuple[float, float] | None = None
    game_score: tuple[float, float] | None = None
    forfeits: tuple[bool, bool] = (False, False)


_TD_ASSIGNS = NoAgreementOutcome(td_assigns=True)


def _draw(games: int, *, forfeits: bool) -> NoAgreementOutcome:
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive whole number, got {games!r}")
    half = games / 2
    return NoAgreementOutcome(False, (DRAW_POINTS, DRAW_POINTS), (half, half), (forfeits, forfeits))


def both_made_no_offers(rule: NoOffers, *, games: int) -> NoAgreementOutcome:
    """Both players short of their offers at the deadline, nothing agreed, in a match of
    ``games`` games: the TD assigns a time (2019), or a draw with a forfeit each (2020-2024).
    ``ValueError`` for an unknown rule or a match without games."""
    if rule == NoOffers.TD_ASSIGNS:
        return _TD_ASSIGNS
    if rule == NoOffers.DRAW_BOTH_FORFEIT_A_GAME:
        return _draw(games, forfeits=True)
    raise ValueError(f"rule must be one of {list(NoOffers)}, got {rule!r}")


def no_fault_found(rule: NoFault, *, games: int) -> NoAgreementOutcome:
    """The TD found no one at fault at the weekend (both made their offers, nothing agreed):
    the TD assigns a time (2019), or the match is a draw, no forfeit (2020-2024).
    ``ValueError`` for an unknown rule or a match without games."""
    if rule == NoFault.TD_ASSIGNS:
        return _TD_ASSIGNS
    if rule == NoFault.DRAW:
        return _draw(games, forfeits=False)
    raise ValueError(f"rule must be one of {list(NoFault)}, got {rule!r}")
