"""Tests for bot.rules.match (rules III.E.1, III.F.1-2)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.match import (
    GameStanding,
    Recount,
    after_recount,
    check_game_points,
    game_standings,
    is_over,
    match_points,
    match_score,
    stops_early,
)


def test_match_points_win_loss_draw() -> None:
    assert match_points(5.5, 4.5) == (1.0, 0.0)
    assert match_points(3, 7) == (0.0, 1.0)
    assert match_points(5, 5) == (0.5, 0.5)
    # An early-stopped Qualification match (rule III.E.1): 5.5-0 still wins.
    assert match_points(5.5, 0) == (1.0, 0.0)
    assert all(isinstance(x, float) for x in match_points(6, 4))


@pytest.mark.parametrize("bad", [-1, -0.5, 0.3, float("nan"), float("inf"), True, "5"])
def test_match_points_rejects_impossible_scores(bad: object) -> None:
    with pytest.raises(ValueError):
        match_points(bad, 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        match_points(5, bad)  # type: ignore[arg-type]


def test_is_over_rule_examples() -> None:
    # Rule III.E.1: once either player reaches 5.5 the players may stop.
    assert is_over(5.5, 0)
    assert is_over(0, 5.5)
    assert is_over(5.5, 3.5)
    assert not is_over(5, 4)  # 5-5 still possible
    assert not is_over(5, 0)
    assert is_over(5, 5)  # all ten games played
    assert is_over(7, 3)
    assert not is_over(0, 0)


def test_candidates_play_all_games() -> None:
    # Rule III.F.2: no stopping at 5.5 in the Candidates.
    assert not is_over(5.5, 0, early_stop=False)
    assert not is_over(5.5, 3.5, early_stop=False)
    assert is_over(5.5, 4.5, early_stop=False)
    assert is_over(10, 0, early_stop=False)


def test_odd_number_of_games() -> None:
    # 9 games: 5 points is more than half (4.5), the other side can reach only 4.
    assert is_over(5, 0, games=9)
    assert not is_over(4.5, 0, games=9)
    assert not is_over(4.5, 4, games=9)
    assert is_over(4.5, 4.5, games=9)


@pytest.mark.parametrize(
    ("a", "b", "games"),
    [(6, 5, 10), (10.5, 0, 10), (-0.5, 1, 10), (1, 0.25, 10), (1, 1, 0), (1, 1, True)],
)
def test_is_over_rejects_impossible(a: float, b: float, games: int) -> None:
    with pytest.raises(ValueError):
        is_over(a, b, games=games)


def _outcomes(a: float, b: float, games: int) -> set[tuple[float, float]]:
    """Match points of every way the remaining games can go (brute force)."""
    remaining = games - round(a + b)
    out = set()
    for rest in itertools.product((1.0, 0.5, 0.0), repeat=remaining):
        out.add(match_points(a + sum(rest), b + remaining - sum(rest)))
    return out


@given(games=st.integers(min_value=1, max_value=8), data=st.data())
def test_early_stop_means_result_cannot_change(games: int, data: st.DataObject) -> None:
    played = data.draw(st.integers(min_value=0, max_value=games))
    a = data.draw(st.integers(min_value=0, max_value=2 * played)) / 2
    b = played - a
    # Over with early stop exactly when no continuation can change the match points.
    assert is_over(a, b, games=games) == (len(_outcomes(a, b, games)) == 1)
    assert is_over(a, b, games=games, early_stop=False) == (played == games)


@pytest.mark.parametrize("value", [1e308, -1e308, 10**400, float("nan")])
def test_game_points_that_overflow_when_doubled_are_refused(value: float) -> None:
    with pytest.raises(ValueError, match="finite"):
        check_game_points(value)


def test_which_matches_stop_early() -> None:
    """The Swiss may stop at 5.5 (III.E.1); a tiebreak match of two stops like it, of
    three or more is played out (III.E.5); the Candidates are played out (III.F.2)."""
    assert stops_early("swiss", players=2)
    assert stops_early("tiebreak", players=2)
    assert not stops_early("tiebreak", players=3)
    assert not stops_early("candidates", players=4)
    assert stops_early("candidates", players=4, candidates_early_stop=True)
    with pytest.raises(ValueError):
        stops_early("final", players=2)


def test_game_standings_count_show_or_drop_the_games_in_order() -> None:
    """Rule VI.G: the first games up to the decision count; a stage that records games
    played on shows them up to its full length; the rest count for nothing."""
    c, p, x = GameStanding.COUNTS, GameStanding.PLAYED_ON, GameStanding.BEYOND
    assert game_standings(8, counted=6, full_length=None) == [c] * 6 + [x, x]
    assert game_standings(8, counted=6, full_length=7) == [c] * 6 + [p, x]
    assert game_standings(4, counted=4, full_length=10) == [c] * 4
    assert game_standings(0, counted=0, full_length=None) == []


def test_match_score_from_player_as_side() -> None:
    assert match_score([1.0, 0.5, 0.0, 1.0]) == (2.5, 1.5)
    assert match_score([]) == (0.0, 0.0)


def test_after_a_recount() -> None:
    """Rule VI.G: over now → finished; still over → the points follow the score; no longer
    over (a game voided) → reopened; a first game counted → under way."""
    assert after_recount(over=True, finished=False, under_way=True, any_counted=True) is (
        Recount.FINISH
    )
    assert after_recount(over=True, finished=True, under_way=False, any_counted=True) is (
        Recount.REPOINT
    )
    assert after_recount(over=False, finished=True, under_way=False, any_counted=True) is (
        Recount.REOPEN
    )
    assert after_recount(over=False, finished=False, under_way=True, any_counted=True) is (
        Recount.START
    )
    assert after_recount(over=False, finished=False, under_way=True, any_counted=False) is (
        Recount.NONE
    )
    assert after_recount(over=True, finished=False, under_way=False, any_counted=True) is (
        Recount.NONE  # a forfeited match is not finished by its games
    )
