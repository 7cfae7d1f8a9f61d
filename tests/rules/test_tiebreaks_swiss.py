"""Which of a Swiss chain's tiebreaks put equal points in order across the places that
move on: the qualification post explains them (issue 32)."""

from __future__ import annotations

from bot.rules.tiebreaks_swiss import SwissRow, SwissTiebreak, separating_tiebreaks

# --- which tiebreaks ordered equal points, for the qualification post --------------------------


def _row(player: str, points: float, wvt: float, mbh: float, rank: int) -> SwissRow:
    chain = ((SwissTiebreak.WINS_AGAINST_TIED, wvt), (SwissTiebreak.MEDIAN_BUCHHOLZ, mbh))
    return SwissRow(player, points, chain, rank, rank)


def test_separating_tiebreaks_names_the_first_that_differs_for_each_equal_pair() -> None:
    # three on 5 points split by wins v tied (2, 1, 0); then 4 points; the cut after 3:
    # a-b and b-c are separated by wins v tied; c-d differ on points: nothing more.
    rows = [
        _row("a", 5, 2, 10, 1),
        _row("b", 5, 1, 12, 2),
        _row("c", 5, 0, 9, 3),
        _row("d", 4, 3, 20, 4),
    ]
    assert separating_tiebreaks(rows, 3) == [SwissTiebreak.WINS_AGAINST_TIED]
    # equal on wins v tied too: Median-Buchholz separated them (first that differs)
    rows = [_row("a", 5, 1, 10, 1), _row("b", 5, 1, 9, 2), _row("c", 3, 0, 1, 3)]
    assert separating_tiebreaks(rows, 1) == [SwissTiebreak.MEDIAN_BUCHHOLZ]


def test_separating_tiebreaks_is_empty_without_equal_points_or_rows() -> None:
    rows = [_row("a", 5, 0, 0, 1), _row("b", 4, 0, 0, 2)]
    assert separating_tiebreaks(rows, 1) == []
    assert separating_tiebreaks([], 3) == []
