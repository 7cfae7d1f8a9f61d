"""Tests for bot.rules.swiss: examples worked by hand from rules III.E and VIII.A."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.rules.swiss import (
    Result,
    Standing,
    number_of_rounds,
    pair_round,
    round_robin_rounds,
    standings,
    tiebreak_groups,
    uses_round_robin,
)

P8 = [f"p{i}" for i in range(1, 9)]
# Round 1: p1-p5, p2-p6, p3-p7, p4-p8, all won by the top seeds; round 2: p1-p3, p2-p4 won
# by p1 and p2, p5-p7, p6-p8 won by p5 and p6.
TWO_ROUNDS: list[Result] = [
    ("p1", "p5", 1, 0),
    ("p2", "p6", 1, 0),
    ("p3", "p7", 1, 0),
    ("p4", "p8", 1, 0),
    ("p1", "p3", 1, 0),
    ("p2", "p4", 1, 0),
    ("p5", "p7", 1, 0),
    ("p6", "p8", 1, 0),
]


# --------------------------------------------------------------------------- rounds


@pytest.mark.parametrize(
    ("n", "up", "down"),
    [
        (2, 4, 3),
        (3, 4, 3),
        (4, 5, 4),
        (31, 7, 6),
        (32, 8, 7),  # the rule's example wins over "rounded up" (log2 32 = 5)
        (56, 8, 7),
        (63, 8, 7),
        (64, 9, 8),
        (100, 9, 8),
        (127, 9, 8),
        (128, 10, 9),
        (1000, 12, 11),
    ],
)
def test_number_of_rounds(n: int, up: int, down: int) -> None:
    assert number_of_rounds(n) == up
    assert number_of_rounds(n, rounding="up") == up
    assert number_of_rounds(n, rounding="down") == down


def test_number_of_rounds_extra_and_edges() -> None:
    assert number_of_rounds(40, extra=0) == 6
    assert number_of_rounds(40, rounding="down", extra=3) == 8
    assert number_of_rounds(1) == 0
    with pytest.raises(ValueError):
        number_of_rounds(0)
    with pytest.raises(ValueError):
        number_of_rounds(10, rounding="nearest")
    with pytest.raises(ValueError):
        number_of_rounds(10, extra=-1)


def test_round_robin_when_rounds_reach_players_minus_one() -> None:
    # A 4-player Swiss of 4 rounds (rounded down) is impossible.
    assert uses_round_robin(4, rounding="down")
    assert uses_round_robin(6)  # 5 rounds for 6 players
    assert not uses_round_robin(7)  # 5 rounds for 7 players
    assert uses_round_robin(5, rounding="down")  # 4 rounds
    assert not uses_round_robin(6, rounding="down")  # 4 rounds
    assert not uses_round_robin(32)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_round_robin_rounds_meet_everyone_once(n: int) -> None:
    players = [f"p{i}" for i in range(n)]
    rounds = round_robin_rounds(players)
    assert len(rounds) == (n if n % 2 else n - 1)
    met = [frozenset(pair) for rnd in rounds for pair in rnd if pair[1] is not None]
    assert len(met) == len(set(met)) == n * (n - 1) // 2
    for rnd in rounds:
        seen = [p for pair in rnd for p in pair if p is not None]
        assert sorted(seen) == sorted(players)
    byes = [pair[0] for rnd in rounds for pair in rnd if pair[1] is None]
    assert sorted(byes) == (sorted(players) if n % 2 else [])


# --------------------------------------------------------------------------- pairing


def test_round_one_top_half_plays_bottom_half() -> None:
    assert pair_round(P8, []) == [("p1", "p5"), ("p2", "p6"), ("p3", "p7"), ("p4", "p8")]


def test_round_one_odd_field_bye_to_lowest_seed() -> None:
    assert pair_round(P8[:7], []) == [("p1", "p4"), ("p2", "p5"), ("p3", "p6"), ("p7", None)]


def test_round_one_withdrawn_player_is_not_paired() -> None:
    # Seven active players: the bye to the lowest (p8), then p1 p2 p4 v p5 p6 p7.
    assert pair_round(P8, [], withdrawn=["p3"]) == [
        ("p1", "p5"),
        ("p2", "p6"),
        ("p4", "p7"),
        ("p8", None),
    ]


def test_round_two_score_groups_top_half_against_bottom_half() -> None:
    # Seeds win round 1: winners p1-p4 (1 point), losers p5-p8 (0).
    results = [("p1", "p5", 1, 0), ("p2", "p6", 1, 0), ("p3", "p7", 1, 0), ("p4", "p8", 1, 0)]
    assert pair_round(P8, results) == [("p1", "p3"), ("p2", "p4"), ("p5", "p7"), ("p6", "p8")]


def test_later_round_with_floaters() -> None:
    # After round 1: 1 point {p1, p4, p6}, 0.5 {p3, p7} (who drew each other), 0 {p2, p5, p8}.
    results = [("p1", "p5", 1, 0), ("p2", "p6", 0, 1), ("p3", "p7", 0.5, 0.5), ("p4", "p8", 1, 0)]
    # p3 and p7 cannot meet again, so both leave their group: four floaters at
    # least, with score differences 0.5 + 0.5 at least.  Inside the 1-point
    # group p1 plays p4 (top against the rest, p6 is lowest and floats down to
    # the highest 0.5 player, p3); p7 meets the highest 0-point player, p2.
    assert pair_round(P8, results) == [("p1", "p4"), ("p6", "p3"), ("p7", "p2"), ("p5", "p8")]


def test_odd_groups_send_one_floater_each() -> None:
    # 1 point: p1, p2, p3 (p3 won against p7 after p1, p2 won); 0.5: p4, p8; 0: p5, p6, p7.
    results = [("p1", "p5", 1, 0), ("p2", "p6", 1, 0), ("p3", "p7", 1, 0), ("p4", "p8", 0.5, 0.5)]
    pairs = pair_round(P8, results)
    # The 1-point group's lowest (p3) floats; the 0.5 group cannot stay
    # together (rematch), so p4 and p8 float too; the minimum is 4 floaters
    # with differences 0.5 + 0.5 (p3-p4, p8-p5 style) rather than 1 + 0.
    points = {"p1": 1, "p2": 1, "p3": 1, "p4": 0.5, "p8": 0.5, "p5": 0, "p6": 0, "p7": 0}
    cross = [(a, b) for a, b in pairs if b is not None and points[a] != points[b]]
    assert len(cross) == 2
    assert sum(abs(points[a] - points[b]) for a, b in cross) == 1
    assert ("p1", "p2") in pairs


def test_rematch_avoided_inside_group() -> None:
    results = TWO_ROUNDS
    pairs = pair_round(P8, results)
    # 2 points: p1, p2 (must meet); 1 point: p3, p4, p5, p6 with p3-p4 and
    # p5-p6 allowed, p3-p5 (top half v bottom half) and p4-p6 too.
    assert pairs[0] == ("p1", "p2")
    met = {frozenset((a, b)) for a, b, _, _ in results}
    assert all(frozenset(p) not in met for p in pairs)
    assert sorted(pairs[1:3]) == [("p3", "p5"), ("p4", "p6")]


def test_top_pair_already_met_floats_down() -> None:
    # Two leaders who met cannot meet again: each plays the best allowed player below.
    seeding = ["a", "b", "c", "d"]
    results = [("a", "c", 1, 0), ("b", "d", 1, 0), ("a", "b", 1, 0), ("c", "d", 1, 0)]
    # a: 2, b: 1, c: 1, d: 0.  a has met b and c, so a plays d; b plays c? b-c
    # is allowed (b met d, a).  Floaters 2 (a-d), the 1-point pair stays.
    assert pair_round(seeding, results) == [("a", "d"), ("b", "c")]


def test_no_second_bye() -> None:
    seeding = ["a", "b", "c", "d", "e"]
    results = [("a", "c", 1, 0), ("b", "d", 1, 0), ("e", None, 1, 0)]
    pairs = pair_round(seeding, results)
    # e had the bye; the lowest-placed among the others gets it: c and d have
    # 0 points, d placed below c (equal tiebreaks, seed 4 after seed 3).
    assert pairs[-1] == ("d", None)
    assert len(pairs) == 3


def test_bye_skips_player_whose_removal_leaves_no_pairing() -> None:
    seeding = ["a", "b", "c"]
    # a-b met; c has had the bye; the lowest without a bye is b, which leaves
    # a-c (allowed; a and c equal on everything, a is the better seed).
    results = [("a", "b", 1, 0), ("c", None, 1, 0)]
    assert pair_round(seeding, results) == [("a", "c"), ("b", None)]
    results2 = [("a", None, 1, 0), ("b", None, 1, 0), ("c", None, 1, 0)]
    with pytest.raises(ValueError, match="bye"):
        pair_round(seeding, results2)  # everyone had a bye already
    results3 = [("a", "b", 1, 0), ("c", None, 1, 0), ("a", "c", 1, 0)]
    # a: 2, c: 1, b: 0.  Bye for b leaves a-c (met) -> bye for a; c-b allowed.
    assert pair_round(seeding, results3) == [("c", "b"), ("a", None)]


def test_no_valid_pairing_raises() -> None:
    results = [("a", "b", 1, 0)]
    with pytest.raises(ValueError, match="no valid pairing"):
        pair_round(["a", "b"], results)


def test_withdrawn_player_is_skipped_and_still_counts() -> None:
    results = [("p1", "p5", 1, 0), ("p2", "p6", 1, 0), ("p3", "p7", 1, 0), ("p4", "p8", 1, 0)]
    pairs = pair_round(P8, results, withdrawn=["p2"])
    players = [p for pair in pairs for p in pair if p is not None]
    assert "p2" not in players
    assert sorted(players) == sorted(set(P8) - {"p2"})
    assert pairs[-1][1] is None  # seven active players: one bye


def test_input_validation() -> None:
    with pytest.raises(ValueError):
        pair_round(["a", "a"], [])
    with pytest.raises(ValueError):
        pair_round(["a", "b"], [("a", "z", 1, 0)])
    with pytest.raises(ValueError):
        pair_round(["a", "b"], [], withdrawn=["z"])
    with pytest.raises(ValueError):
        standings(["a", "b"], [("a", "a", 1, 0)])


def test_deterministic_across_hash_seeds() -> None:
    code = (
        "from bot.rules.swiss import pair_round\n"
        "s = [f'x{i}' for i in range(30)]\n"
        "r = [(s[i], s[i + 15], 1.0, 0.0) for i in range(0, 15, 2)]"
        " + [(s[i], s[i + 15], 0.5, 0.5) for i in range(1, 15, 2)]\n"
        "print(pair_round(s, r, withdrawn=['x3']))\n"
    )
    root = Path(__file__).resolve().parents[2]
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1


# --------------------------------------------------------------------------- standings


def by_player(rows: list[Standing]) -> dict[str, Standing]:
    return {row.player: row for row in rows}


def test_standings_tiebreaks_worked_by_hand() -> None:
    seeding = ["a", "b", "c", "d", "e", "f"]
    results = [
        # round 1
        ("a", "d", 1, 0),
        ("b", "e", 1, 0),
        ("c", "f", 0.5, 0.5),
        # round 2
        ("a", "b", 0, 1),
        ("c", "e", 1, 0),
        ("d", "f", 1, 0),
        # round 3
        ("a", "c", 1, 0),
        ("b", "f", 0.5, 0.5),
        ("d", "e", 0.5, 0.5),
    ]
    # points: a 2, b 2.5, c 1.5, d 1.5, e 0.5, f 1
    rows = standings(seeding, results)
    got = by_player(rows)
    assert [r.player for r in rows] == ["b", "a", "c", "d", "f", "e"]
    assert {p: r.points for p, r in got.items()} == {
        "a": 2,
        "b": 2.5,
        "c": 1.5,
        "d": 1.5,
        "e": 0.5,
        "f": 1,
    }
    # c and d are tied on 1.5 and never met: no wins against tied players.
    assert got["c"].wins_vs_tied == got["d"].wins_vs_tied == 0
    # Median-Buchholz: drop highest and lowest of three opponents.
    # a: d 1.5, b 2.5, c 1.5 -> 1.5;  b: e 0.5, a 2, f 1 -> 1
    # c: f 1, e 0.5, a 2 -> 1;        d: a 2, f 1, e 0.5 -> 1
    # e: b 2.5, c 1.5, d 1.5 -> 1.5;  f: c 1.5, d 1.5, b 2.5 -> 1.5
    assert got["a"].median_buchholz == 1.5
    assert got["b"].median_buchholz == 1
    assert got["c"].median_buchholz == got["d"].median_buchholz == 1
    assert got["e"].median_buchholz == got["f"].median_buchholz == 1.5
    # c and d share rank 3 (equal on everything); f is 5th, e 6th.
    assert [r.rank for r in rows] == [1, 2, 3, 3, 5, 6]
    assert got["c"].seed == 3 and got["d"].seed == 4


def test_wins_vs_tied_counts_only_wins_against_equal_points() -> None:
    seeding = ["a", "b", "c", "d"]
    results = [
        ("a", "b", 1, 0),
        ("c", "d", 0.5, 0.5),
        ("a", "c", 0, 1),
        ("b", "d", 1, 0),
    ]
    # a 1, b 1, c 1.5, d 0.5.  a beat b (tied on 1): a 1, b 0.
    got = by_player(standings(seeding, results))
    assert got["a"].wins_vs_tied == 1
    assert got["b"].wins_vs_tied == 0
    assert got["c"].wins_vs_tied == 0  # a draw is not a win, and nobody else has 1.5
    assert [r.player for r in standings(seeding, results)] == ["c", "a", "b", "d"]
    # Fewer than three opponents: plain sum, nothing dropped.
    assert got["a"].median_buchholz == 1 + 1.5
    assert got["d"].median_buchholz == 1.5 + 1


def test_byes_are_not_opponents_and_withdrawn_opponents_count() -> None:
    seeding = ["a", "b", "c"]
    results = [
        ("a", "b", 1, 0),
        ("c", None, 1, 0),
        ("c", "a", 1, 0),
        ("b", None, 1, 0),
    ]
    # c withdraws after round 2: still in the table, and a's opponent c counts
    # with the 2 points c has.
    rows = standings(seeding, results, withdrawn=["c"])
    got = by_player(rows)
    assert got["c"].points == 2 and got["c"].withdrawn and got["c"].byes == 1
    assert got["c"].opponents == ("a",)
    assert got["c"].median_buchholz == 1  # only a; the bye is no opponent
    assert got["a"].median_buchholz == 1 + 2
    assert got["b"].median_buchholz == 1
    assert [r.player for r in rows] == ["c", "a", "b"]
    assert not got["a"].withdrawn


def test_standings_shared_rank_and_order_independent() -> None:
    results = [("p1", "p5", 1, 0), ("p2", "p6", 1, 0), ("p3", "p7", 1, 0), ("p4", "p8", 1, 0)]
    rows = standings(P8, results)
    assert [r.rank for r in rows] == [1, 1, 1, 1, 5, 5, 5, 5]
    assert [r.player for r in rows] == P8[:4] + P8[4:]
    assert standings(P8, list(reversed(results))) == rows


# --------------------------------------------------------------------------- tiebreak groups


def row(player: str, rank: int) -> Standing:
    return Standing(player, 0.0, 0, 0.0, rank, 1, 0, ())


def test_tie_across_the_cut_needs_tiebreak_matches() -> None:
    rows = [row("a", 1), row("b", 2), row("c", 3), row("d", 3), row("e", 3), row("f", 6)]
    assert tiebreak_groups(rows) == [["c", "d", "e"]]
    rows2 = [row("a", 1), row("b", 2), row("c", 2), row("d", 2), row("e", 5)]
    assert tiebreak_groups(rows2) == [["b", "c", "d"]]
    rows3 = [row("a", 1), row("b", 1), row("c", 1), row("d", 1)]
    assert tiebreak_groups(rows3) == [["a", "b", "c", "d"]]


def test_tie_inside_the_qualifying_places_does_not_matter() -> None:
    rows = [row("a", 1), row("b", 1), row("c", 3), row("d", 4), row("e", 4)]
    assert tiebreak_groups(rows) == []
    rows2 = [row("a", 1), row("b", 1), row("c", 1), row("d", 4)]
    assert tiebreak_groups(rows2) == []
    assert tiebreak_groups(rows, places=4) == [["d", "e"]]
    assert tiebreak_groups(rows, places=1) == [["a", "b"]]


def test_tiebreak_groups_from_real_standings() -> None:
    results = [("p1", "p5", 1, 0), ("p2", "p6", 1, 0), ("p3", "p7", 1, 0), ("p4", "p8", 1, 0)]
    assert tiebreak_groups(standings(P8, results)) == [["p1", "p2", "p3", "p4"]]
    assert tiebreak_groups(standings(P8, results), places=4) == []


def test_median_buchholz_with_two_opponents_follows_the_convention() -> None:
    # After two rounds: p1 met p5 and p3, who have 1 point each.
    results = TWO_ROUNDS
    summed = by_player(standings(P8, results))
    dropped = by_player(standings(P8, results, short_median_buchholz="drop"))
    assert summed["p1"].median_buchholz == 2.0  # 1 + 1: 2019 sums fewer than three
    assert dropped["p1"].median_buchholz == 0.0  # the TDs' tool drops best and worst
    assert all(row.median_buchholz == 0.0 for row in dropped.values())
    with pytest.raises(ValueError):
        standings(P8, results, short_median_buchholz="median")
