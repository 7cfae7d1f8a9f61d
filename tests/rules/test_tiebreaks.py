"""Tests for the Swiss tiebreak catalogue (bot.rules.tiebreaks, bot.rules.tiebreaks_swiss):
a worked 8-player Swiss under the editions' chains, each key's definition, and the 2019
table (bot.rules.swiss_table.standings) as one configuration of the catalogue."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules.swiss_table import Result, standings, tiebreak_groups
from bot.rules.tiebreaks import (
    SWISS_CHAIN_2019,
    SWISS_CHAIN_2020,
    SWISS_CHAIN_2022,
    SWISS_TIEBREAKS,
    SwissRow,
    SwissTiebreak,
    swiss_ranking,
    tied_across_cut,
)

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

S = SwissTiebreak

# --------------------------------------------------------------------------- worked example
#
# Eight players seeded A (1) to H (8); H withdraws after round 2, so round 3 has seven
# players and one bye (F). Scores are match points (a 10-game match: 1, 0.5, 0).
#
#   round 1: A-E ½-½   B-F ½-½   C-G ½-½   D-H 0-1
#   round 2: H-A 0-1   C-B 1-0   E-F 1-0   G-D 0-1
#   round 3: A-C ½-½   E-D 0-1   B-G 0-1   F bye (+1)
#
# Points: A ½+1+½ = 2, B ½+0+0 = ½, C ½+1+½ = 2, D 0+1+1 = 2,
#         E ½+1+0 = 1½, F ½+0+1 = 1½, G ½+0+1 = 1½, H 1+0 = 1.
#
# Median-Buchholz (opponents' final points, best and worst left out; a bye is no opponent;
# F has two opponents and the default "sum" adds both):
#   A: E 1½, H 1, C 2 -> 1½     C: G 1½, B ½, A 2 -> 1½     D: H 1, G 1½, E 1½ -> 1½
#   E: A 2, F 1½, D 2 -> 2      G: C 2, D 2, B ½ -> 2       F: B ½ + E 1½ = 2
#   B: F 1½, C 2, G 1½ -> 1½    H: D 2 + A 2 = 4
# So {A, C, D} on 2 and {E, F, G} on 1½ are still tied after Median-Buchholz.
#
# Cumulative (running score after rounds 1, 2, 3, summed):
#   A ½+1½+2 = 4   C ½+1½+2 = 4   D 0+1+2 = 3   E ½+1½+1½ = 3½   F ½+½+1½ = 2½   G ½+½+1½ = 2½
# Kashdan (won 4, tied 2, lost 1, bye 0):
#   A 2+4+2 = 8   C 2+4+2 = 8   D 1+4+4 = 9   E 2+4+1 = 7   F 2+1+0 = 3   G 2+1+4 = 7
# Sonneborn-Berger (beaten opponents' points + half the tied ones'):
#   A E/2 + H + C/2 = ¾+1+1 = 2¾   C G/2 + B + A/2 = ¾+½+1 = 2¼   D G + E = 1½+1½ = 3
#   E A/2 + F = 1+1½ = 2½          G C/2 + B = 1+½ = 1½           F B/2 = ¼
# Wins against tied players (2019): E beat F (both 1½): 1; nobody else beat someone level.

SEEDING = list("ABCDEFGH")
ROUNDS: list[list[Result]] = [
    [("A", "E", 0.5, 0.5), ("B", "F", 0.5, 0.5), ("C", "G", 0.5, 0.5), ("D", "H", 0.0, 1.0)],
    [("H", "A", 0.0, 1.0), ("C", "B", 1.0, 0.0), ("E", "F", 1.0, 0.0), ("G", "D", 0.0, 1.0)],
    [("A", "C", 0.5, 0.5), ("E", "D", 0.0, 1.0), ("B", "G", 0.0, 1.0), ("F", None, 1.0, 0.0)],
]
EVERY_KEY = (S.MEDIAN_BUCHHOLZ, S.CUMULATIVE, S.KASHDAN, S.SONNEBORN_BERGER, S.WINS_AGAINST_TIED)


def ranked(chain: tuple[str, ...]) -> list[tuple[str, int]]:
    rows = swiss_ranking(SEEDING, ROUNDS, chain, withdrawn=("H",))
    return [(row.player, row.rank) for row in rows]


def test_worked_example_values() -> None:
    rows = {row.player: row for row in swiss_ranking(SEEDING, ROUNDS, EVERY_KEY, withdrawn=("H",))}
    expected = {  # points, MB, cumulative, Kashdan, SB, wins against tied: as computed above
        "A": (2.0, 1.5, 4.0, 8.0, 2.75, 0.0),
        "C": (2.0, 1.5, 4.0, 8.0, 2.25, 0.0),
        "D": (2.0, 1.5, 3.0, 9.0, 3.0, 0.0),
        "E": (1.5, 2.0, 3.5, 7.0, 2.5, 1.0),
        "F": (1.5, 2.0, 2.5, 3.0, 0.25, 0.0),
        "G": (1.5, 2.0, 2.5, 7.0, 1.5, 0.0),
    }
    for player, (points, *values) in expected.items():
        assert rows[player].points == points
        assert [rows[player].value(key) for key in EVERY_KEY] == values
    assert rows["H"].withdrawn and not rows["A"].withdrawn


def test_worked_example_2020_chain_cumulative_then_seed() -> None:
    # {A, C, D}: cumulative 4, 4, 3 puts D third; A and C stay level, seed 1 before seed 3.
    # {E, F, G}: cumulative 3½, 2½, 2½ puts E first; F (seed 6) before G (seed 7).
    assert ranked(SWISS_CHAIN_2020) == [
        ("A", 1), ("C", 2), ("D", 3), ("E", 4), ("F", 5), ("G", 6), ("H", 7), ("B", 8),
    ]  # fmt: skip


def test_worked_example_2022_chain_kashdan_counts_the_bye_as_nothing() -> None:
    # As 2020, but F and G (equal on cumulative) meet Kashdan before the seed: F's bye is
    # worth 0 where G's round-3 win is worth 4 (3 against 7), so G goes above F.
    # A and C are equal on Kashdan too (8, 8): the seed still decides them.
    assert ranked(SWISS_CHAIN_2022) == [
        ("A", 1), ("C", 2), ("D", 3), ("E", 4), ("G", 5), ("F", 6), ("H", 7), ("B", 8),
    ]  # fmt: skip


def test_worked_example_sonneborn_berger_orders_the_other_way() -> None:
    # Sonneborn-Berger after Median-Buchholz: D 3 > A 2¾ > C 2¼ (cumulative had D last);
    # E 2½ > G 1½ > F ¼.
    assert ranked((S.MEDIAN_BUCHHOLZ, S.SONNEBORN_BERGER, S.SEED)) == [
        ("D", 1), ("A", 2), ("C", 3), ("E", 4), ("G", 5), ("F", 6), ("H", 7), ("B", 8),
    ]  # fmt: skip


def test_worked_example_2019_chain_shares_ranks() -> None:
    # Wins against tied: 0 for A, C, D, so Median-Buchholz (1½ each) leaves them level:
    # one shared rank 1. E's win over F puts E 4th; F and G share 5th (2 and 2).
    assert ranked(SWISS_CHAIN_2019) == [
        ("A", 1), ("C", 1), ("D", 1), ("E", 4), ("F", 5), ("G", 5), ("H", 7), ("B", 8),
    ]  # fmt: skip
    rows = swiss_ranking(SEEDING, ROUNDS, SWISS_CHAIN_2019, withdrawn=("H",))
    assert tied_across_cut(rows, 3) == []  # A, C, D all make the top 3
    assert tied_across_cut(rows, 2) == [["A", "C", "D"]]
    assert tied_across_cut(rows, 5) == [["F", "G"]]
    assert tied_across_cut(swiss_ranking(SEEDING, ROUNDS, SWISS_CHAIN_2020), 5) == []


def test_worked_example_short_history_drop() -> None:
    # "drop": F's two opponents leave nothing, Median-Buchholz 0, so F falls below G at once.
    rows = swiss_ranking(SEEDING, ROUNDS, SWISS_CHAIN_2020, short_median_buchholz="drop")
    by_player = {row.player: row for row in rows}
    assert by_player["F"].value("median_buchholz") == 0.0
    assert by_player["H"].value("median_buchholz") == 0.0
    assert [row.player for row in rows][4:6] == ["G", "F"]


# --------------------------------------------------------------------------- each key


def test_kashdan_and_cumulative_small() -> None:
    # Two rounds, three players. Round 1: a beats b, c bye. Round 2: c beats a, b bye.
    # a: won, lost -> Kashdan 4+1 = 5; running 1, 1 -> cumulative 2.
    # b: lost, bye -> 1+0 = 1; running 0, 1 -> 1.  c: bye, won -> 0+4 = 4; running 1, 2 -> 3.
    rounds: list[list[Result]] = [
        [("a", "b", 1.0, 0.0), ("c", None, 1.0, 0.0)],
        [("c", "a", 1.0, 0.0), ("b", None, 1.0, 0.0)],
    ]
    rows = swiss_ranking(["a", "b", "c"], rounds, (S.KASHDAN, S.CUMULATIVE))
    got = {row.player: (row.points, row.value(S.KASHDAN), row.value("cumulative")) for row in rows}
    assert got == {"a": (1.0, 5.0, 2.0), "b": (1.0, 1.0, 1.0), "c": (2.0, 4.0, 3.0)}
    # Equal points a, b: Kashdan 5 > 1.
    assert [(row.player, row.rank) for row in rows] == [("c", 1), ("a", 2), ("b", 3)]


def test_cumulative_counts_rounds_after_a_withdrawal() -> None:
    # x wins round 1 and withdraws; y draws twice. Running: x 1, 1 -> 2; y ½, 1 -> 1½.
    rounds: list[list[Result]] = [
        [("x", "z", 1.0, 0.0), ("y", "w", 0.5, 0.5)],
        [("y", "z", 0.5, 0.5)],
    ]
    rows = swiss_ranking(["x", "y", "z", "w"], rounds, (S.CUMULATIVE,), withdrawn=["x"])
    values = {row.player: row.value(S.CUMULATIVE) for row in rows}
    assert values["x"] == 2.0 and values["y"] == 1.5


def test_sonneborn_berger_uses_final_scores() -> None:
    # p beats q (q ends on 1 after beating r), draws r (r ends on ½): SB 1 + ½·½ = 1¼.
    rounds: list[list[Result]] = [
        [("p", "q", 1.0, 0.0)],
        [("q", "r", 1.0, 0.0)],
        [("p", "r", 0.5, 0.5)],
    ]
    rows = swiss_ranking(["p", "q", "r"], rounds, (S.SONNEBORN_BERGER,))
    # Final points: p 1½, q 1, r ½.
    assert {row.player: row.value(S.SONNEBORN_BERGER) for row in rows} == {
        "p": 1.25,  # beat q (1) + drew r (½ / 2)
        "q": 0.5,  # beat r (½)
        "r": 0.75,  # drew p (1½ / 2)
    }


def test_seed_separates_everything_and_ties_share_a_rank() -> None:
    rounds: list[list[Result]] = [[("a", "b", 0.5, 0.5), ("c", "d", 0.5, 0.5)]]
    without = swiss_ranking(["a", "b", "c", "d"], rounds, (S.MEDIAN_BUCHHOLZ,))
    assert [row.rank for row in without] == [1, 1, 1, 1]
    with_seed = swiss_ranking(["a", "b", "c", "d"], rounds, (S.MEDIAN_BUCHHOLZ, S.SEED))
    assert [(row.player, row.rank) for row in with_seed] == [("a", 1), ("b", 2), ("c", 3), ("d", 4)]
    assert with_seed[3].value(S.SEED) == 4


def test_catalogue_keys() -> None:
    assert SWISS_TIEBREAKS == (
        "wins_against_tied",
        "median_buchholz",
        "cumulative",
        "kashdan",
        "sonneborn_berger",
        "seed",
    )


@pytest.mark.parametrize(
    "chain",
    [("buchholz",), ("seed", "kashdan"), ("kashdan", "kashdan")],
)
def test_bad_chains_are_refused(chain: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        swiss_ranking(["a", "b"], [], chain)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="two results in round 1"):
        swiss_ranking(["a", "b", "c"], [[("a", "b", 1.0, 0.0), ("a", None, 1.0, 0.0)]], ())
    with pytest.raises(ValueError):
        swiss_ranking(["a", "b"], [[("a", "x", 1.0, 0.0)]], ())
    with pytest.raises(ValueError):
        swiss_ranking(["a", "b"], [], (), short_median_buchholz="half")
    with pytest.raises(ValueError):
        swiss_ranking(["a", "b"], [], (), bye_points=float("nan"))
    with pytest.raises(ValueError):
        swiss_ranking(["a", "b"], [], (), withdrawn=("z",))
    with pytest.raises(ValueError, match="not in this table's chain"):
        swiss_ranking(["a", "b"], [], ("seed",))[0].value("kashdan")
    with pytest.raises(ValueError):
        tied_across_cut([], -1)


# --------------------------------------------------------------------------- properties


@st.composite
def swiss_histories(draw: st.DrawFn) -> tuple[list[str], list[list[Result]], list[str]]:
    """Random rounds: each a random set of pairs among some of the players, and byes."""
    n = draw(st.integers(1, 9))
    players = [f"p{i}" for i in range(n)]
    rounds: list[list[Result]] = []
    for _ in range(draw(st.integers(0, 4))):
        playing = draw(st.permutations(players))[: draw(st.integers(0, n))]
        results: list[Result] = []
        if len(playing) % 2:
            results.append((playing[-1], None, draw(st.sampled_from([1.0, 0.5, 0.0])), 0.0))
        for a, b in zip(playing[0:-1:2], playing[1::2], strict=False):
            mine = draw(st.sampled_from([1.0, 0.5, 0.0]))
            results.append((a, b, mine, 1.0 - mine))
        rounds.append(results)
    withdrawn = draw(st.lists(st.sampled_from(players), max_size=2, unique=True))
    return players, rounds, withdrawn


@FAST
@given(swiss_histories(), st.sampled_from(["sum", "drop"]))
def test_2019_chain_is_the_2019_table(
    case: tuple[list[str], list[list[Result]], list[str]], short: str
) -> None:
    seeding, rounds, withdrawn = case
    flat = [r for results in rounds for r in results]
    table = standings(seeding, flat, withdrawn=withdrawn, short_median_buchholz=short)
    rows = swiss_ranking(
        seeding, rounds, SWISS_CHAIN_2019, withdrawn=withdrawn, short_median_buchholz=short
    )
    assert [
        (r.player, r.rank, r.points, r.value(S.WINS_AGAINST_TIED), r.value(S.MEDIAN_BUCHHOLZ))
        for r in rows
    ] == [(s.player, s.rank, s.points, s.wins_vs_tied, s.median_buchholz) for s in table]
    assert [(r.seed, r.withdrawn) for r in rows] == [(s.seed, s.withdrawn) for s in table]
    for places in range(len(seeding) + 1):
        assert tied_across_cut(rows, places) == tiebreak_groups(table, places)


def _better(row: SwissRow, other: SwissRow) -> bool:
    return row.rank < other.rank


@FAST
@given(swiss_histories(), st.permutations(EVERY_KEY))
def test_a_longer_chain_only_breaks_ties(
    case: tuple[list[str], list[list[Result]], list[str]], keys: list[SwissTiebreak]
) -> None:
    """Adding keys never reorders players the shorter chain already separated, and with the
    seed at the end nobody shares a rank."""
    seeding, rounds, withdrawn = case
    short = {r.player: r for r in swiss_ranking(seeding, rounds, keys[:2], withdrawn=withdrawn)}
    full = swiss_ranking(seeding, rounds, (*keys, S.SEED), withdrawn=withdrawn)
    assert [row.rank for row in full] == list(range(1, len(seeding) + 1))
    for i, row in enumerate(full):
        for later in full[i + 1 :]:
            assert not _better(short[later.player], short[row.player])


@FAST
@given(swiss_histories(), st.randoms(use_true_random=False))
def test_the_order_of_results_inside_a_round_does_not_matter(
    case: tuple[list[str], list[list[Result]], list[str]], rng: random.Random
) -> None:
    seeding, rounds, withdrawn = case
    shuffled = [rng.sample(results, len(results)) for results in rounds]
    chain = (*EVERY_KEY, S.SEED)
    assert swiss_ranking(seeding, shuffled, chain, withdrawn=withdrawn) == swiss_ranking(
        seeding, rounds, chain, withdrawn=withdrawn
    )
