"""Tests for bot.rules.candidates (rule III.F)."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.candidates import (
    CandidateStanding,
    RobinMatch,
    robin_results,
    schedule,
    standings,
    winner_and_runner_up,
)


def numbered(n: int) -> list[str]:
    return [str(i) for i in range(1, n + 1)]


def as_numbers(rounds: list[list[tuple[str, str]]]) -> list[list[tuple[int, int]]]:
    return [[(int(a), int(b)) for a, b in rnd] for rnd in rounds]


def test_four_player_berger_table() -> None:
    assert as_numbers(schedule(numbered(4))) == [
        [(1, 4), (2, 3)],
        [(4, 3), (1, 2)],
        [(2, 4), (3, 1)],
    ]


def test_berger_tables_six_and_eight() -> None:
    # FIDE Handbook C.05 Annex 1, Berger tables.
    assert as_numbers(schedule(numbered(6))) == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]
    assert as_numbers(schedule(numbered(8))) == [
        [(1, 8), (2, 7), (3, 6), (4, 5)],
        [(8, 5), (6, 4), (7, 3), (1, 2)],
        [(2, 8), (3, 1), (4, 7), (5, 6)],
        [(8, 6), (7, 5), (1, 4), (2, 3)],
        [(3, 8), (4, 2), (5, 1), (6, 7)],
        [(8, 7), (1, 6), (2, 5), (3, 4)],
        [(4, 8), (5, 3), (6, 2), (7, 1)],
    ]


def test_names_follow_the_given_order() -> None:
    assert schedule(["arimakat", "Ogul1", "x", "y"])[0] == [("arimakat", "y"), ("Ogul1", "x")]


def test_odd_count_uses_a_bye_dummy() -> None:
    # Table for 4 with number 4 as the bye: whoever meets 4 sits out.
    assert as_numbers(schedule(numbered(3))) == [[(2, 3)], [(1, 2)], [(3, 1)]]


def test_degenerate_and_invalid() -> None:
    assert schedule([]) == []
    assert schedule(["a"]) == []
    assert schedule(["a", "b"]) == [[("a", "b")]]
    with pytest.raises(ValueError):
        schedule(["a", "b", "a"])


@given(st.integers(min_value=2, max_value=16))
def test_round_robin_properties(n: int) -> None:
    rounds = schedule(numbered(n))
    even = n + n % 2
    assert len(rounds) == even - 1
    pairs = Counter(frozenset(p) for rnd in rounds for p in rnd)
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(numbered(n), 2)}
    assert set(pairs.values()) == {1}  # every pair exactly once
    sat_out: Counter[str] = Counter()
    for r, rnd in enumerate(as_numbers(rounds), start=1):
        seen = [x for pair in rnd for x in pair]
        assert len(seen) == len(set(seen))  # at most once per round
        assert len(rnd) == n // 2
        sat_out.update(set(numbered(n)) - {str(x) for x in seen})
        # Berger structure: pairs without the fixed number sum to r+1 (mod n-1), and the
        # fixed number has Black in odd rounds, White in even ones.
        for a, b in rnd:
            if even in (a, b):
                other = a if b == even else b
                assert (2 * other - (r + 1)) % (even - 1) == 0
                assert (a == even) == (r % 2 == 0)
            else:
                assert (a + b - (r + 1)) % (even - 1) == 0
    if n % 2:
        assert sat_out == Counter(numbered(n))  # each player has one bye round
    whites = Counter(a for rnd in rounds for a, _ in rnd)
    games = Counter(x for rnd in rounds for p in rnd for x in p)
    for p in numbered(n):
        assert abs(2 * whites[p] - games[p]) <= 1  # colours balanced


# --- standings ---------------------------------------------------------------------


def rows(table: list[CandidateStanding]) -> list[tuple[str, float, float, int]]:
    return [(s.player, s.points, s.game_points, s.rank) for s in table]


def test_ordered_by_match_points() -> None:
    results = [
        ("A", "B", 6, 4),
        ("C", "D", 5, 5),
        ("D", "A", 3, 7),
        ("B", "C", 5.5, 4.5),
        ("A", "C", 5, 5),
        ("B", "D", 2, 8),
    ]
    # A 2.5 (18), B 1 (11.5), C 1 (14.5), D 1.5 (16): B and C tied on points, C more games.
    assert rows(standings(["A", "B", "C", "D"], results)) == [
        ("A", 2.5, 18.0, 1),
        ("D", 1.5, 16.0, 2),
        ("C", 1.0, 14.5, 3),
        ("B", 1.0, 11.5, 4),
    ]


def test_tie_on_points_and_games_broken_by_direct_match() -> None:
    results = [
        ("A", "B", 5.5, 4.5),
        ("A", "C", 4.5, 5.5),
        ("A", "D", 5, 5),
        ("B", "C", 5.5, 4.5),
        ("B", "D", 5, 5),
        ("C", "D", 6, 4),
    ]
    # C 2 (16); A and B 1.5 (15) each, A beat B; D 1 (14).
    table = standings(["D", "B", "A", "C"], results)
    assert rows(table) == [
        ("C", 2.0, 16.0, 1),
        ("A", 1.5, 15.0, 2),
        ("B", 1.5, 15.0, 3),
        ("D", 1.0, 14.0, 4),
    ]
    assert winner_and_runner_up(table) == ("C", "A")
    assert all(s.matches == 3 for s in table)


def test_three_way_cycle_shares_rank() -> None:
    results = [
        ("A", "B", 6, 4),
        ("B", "C", 6, 4),
        ("C", "A", 6, 4),
        ("A", "D", 6, 4),
        ("B", "D", 6, 4),
        ("C", "D", 6, 4),
    ]
    table = standings(["A", "B", "C", "D"], results)
    assert rows(table) == [
        ("A", 2.0, 16.0, 1),
        ("B", 2.0, 16.0, 1),
        ("C", 2.0, 16.0, 1),
        ("D", 0.0, 12.0, 4),
    ]
    assert winner_and_runner_up(table) == (None, None)


def test_four_way_full_tie() -> None:
    results = [
        ("A", "B", 6, 4),
        ("B", "C", 5, 5),
        ("A", "C", 5, 5),
        ("A", "D", 4, 6),
        ("B", "D", 6, 4),
        ("C", "D", 5, 5),
    ]
    assert [s.rank for s in standings(["A", "B", "C", "D"], results)] == [1, 1, 1, 1]


def test_mini_table_splits_three_tied_players() -> None:
    # Five Candidates (a later edition).  A, B, C tie on 1.5 points and 19 game points;
    # among themselves A has 1.5 (beat B, drew C), C 1 (two draws), B 0.5.
    results = [
        ("A", "B", 6, 4),
        ("A", "C", 5, 5),
        ("B", "C", 5, 5),
        ("A", "D", 4, 6),
        ("A", "E", 4, 6),
        ("B", "D", 6, 4),
        ("B", "E", 4, 6),
        ("C", "D", 5, 5),
        ("C", "E", 4, 6),
        ("D", "E", 6, 4),
    ]
    assert rows(standings(["A", "B", "C", "D", "E"], results)) == [
        ("E", 3.0, 22.0, 1),
        ("D", 2.5, 21.0, 2),
        ("A", 1.5, 19.0, 3),
        ("C", 1.5, 19.0, 4),
        ("B", 1.5, 19.0, 5),
    ]


def test_unplayed_or_drawn_direct_match_shares_rank() -> None:
    table = standings(["A", "B", "C"], [("A", "C", 6, 4), ("B", "C", 6, 4)])
    assert rows(table) == [("A", 1.0, 6.0, 1), ("B", 1.0, 6.0, 1), ("C", 0.0, 8.0, 3)]
    assert winner_and_runner_up(table) == (None, None)
    table = standings(["A", "B"], [("A", "B", 5, 5)])
    assert [s.rank for s in table] == [1, 1]


def test_partial_results_and_empty() -> None:
    table = standings(["A", "B", "C", "D"], [])
    assert [s.rank for s in table] == [1, 1, 1, 1]
    assert [s.player for s in table] == ["A", "B", "C", "D"]
    table = standings(["A", "B", "C", "D"], [("C", "B", 7, 3)])
    assert rows(table) == [
        ("C", 1.0, 7.0, 1),
        ("B", 0.0, 3.0, 2),
        ("A", 0.0, 0.0, 3),
        ("D", 0.0, 0.0, 3),
    ]
    assert winner_and_runner_up(table) == ("C", "B")
    table = standings(["A", "B", "C", "D"], [("C", "B", 7, 3), ("A", "D", 5, 5)])
    assert winner_and_runner_up(table) == ("C", None)  # A and D share second


@pytest.mark.parametrize(
    "results",
    [
        [("A", "X", 5, 5)],
        [("A", "A", 5, 5)],
        [("A", "B", 5, 5), ("B", "A", 6, 4)],
        [("A", "B", -1, 5)],
        [("A", "B", 5.2, 4.8)],
        [("A", "B", 5)],
    ],
)
def test_invalid_results(results: list[tuple[str, str, float, float]]) -> None:
    with pytest.raises(ValueError):
        standings(["A", "B", "C"], results)


@given(st.data())
def test_standings_properties(data: st.DataObject) -> None:
    players = ["p1", "p2", "p3", "p4", "p5"]
    results = []
    for a, b in itertools.combinations(players, 2):
        if data.draw(st.booleans()):
            ga = data.draw(st.integers(0, 20)) / 2
            results.append((a, b, ga, 10 - ga))
    table = standings(players, results)
    shuffled = standings(players, list(reversed(results)))
    assert table == shuffled  # result order does not matter
    assert sorted(s.player for s in table) == sorted(players)
    keys = [(s.points, s.game_points) for s in table]
    assert keys == sorted(keys, reverse=True)
    assert table[0].rank == 1
    for i, (prev, cur) in enumerate(itertools.pairwise(table), start=2):
        assert cur.rank in (prev.rank, i)
        if cur.rank == prev.rank:
            assert (cur.points, cur.game_points) == (prev.points, prev.game_points)
    assert sum(s.points for s in table) == len(results)


def test_robin_results_count_forfeits_and_disregard_who_left_the_candidates() -> None:
    """Rules 3.6.3 and 8.2 (VIII.B): a forfeit counts as every game won; a match forfeited
    without a winner, an undecided match and a match outside the field count nothing; every
    match of a player who left the Candidates is disregarded (`candidates_without`)."""
    matches = [
        RobinMatch("a", "b", True, 6.0, 4.0),
        RobinMatch("a", "c", True, 0.0, 0.0, forfeit_winner="c"),
        RobinMatch("b", "c", True, None, None),  # forfeited without a winner
        RobinMatch("b", "d", False, 0.0, 0.0),  # still negotiating
        RobinMatch("a", "z", True, 7.0, 3.0),  # z is not in this stage
        RobinMatch("c", "d", True, 5.0, 5.0),
    ]
    field = ["a", "b", "c", "d"]
    assert robin_results(matches, field, games=10) == [
        ("a", "b", 6.0, 4.0),
        ("a", "c", 0.0, 10),
        ("c", "d", 5.0, 5.0),
    ]
    assert robin_results(matches, field, games=10, left_candidates=["d"]) == [
        ("a", "b", 6.0, 4.0),
        ("a", "c", 0.0, 10),
    ]
