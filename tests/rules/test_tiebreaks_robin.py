"""Tests for the round robin tiebreak catalogue (bot.rules.tiebreaks_robin): two worked
6-player pools under the 2021 chain, each key's definition, withdrawals, and the 2019
Candidates table (bot.rules.candidates.standings) as a configuration of the catalogue."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules.candidates import CandidateResult, standings
from bot.rules.tiebreaks import (
    ROBIN_CHAIN_2019,
    ROBIN_CHAIN_2020,
    ROBIN_CHAIN_2021,
    ROBIN_TIEBREAKS,
    PoolRow,
    RobinTiebreak,
    pool_ranking,
    tied_across_cut,
)

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

R = RobinTiebreak

# --------------------------------------------------------------------------- worked pool 1
#
# Six players, one 10-game match per pair (first named player's games first):
#
#   A-B 7-3    B-C 6½-3½  C-A 6-4      (the circle: A beat B, B beat C, C beat A)
#   A-D 6-4    B-D 6-4    C-D 7-3
#   A-E 5-5    B-E 5-5    C-E 6-4
#   A-F 6-4    B-F 6-4    C-F 5-5
#   D-E 5½-4½  D-F 6-4    E-F 7-3
#
# Match points: A  B won, C lost, D won, E tied, F won   = 1+0+1+½+1 = 3½
#               B  A lost, C won, D won, E tied, F won   = 0+1+1+½+1 = 3½
#               C  A won, B lost, D won, E won, F tied   = 1+0+1+1+½ = 3½
#               D  A, B, C lost, E won, F won            = 2
#               E  A tied, B tied, C lost, D lost, F won = ½+½+0+0+1 = 2
#               F  C tied, the rest lost                 = ½           (total 15 = 15 matches)
# Game points:  A 7+4+6+5+6 = 28   B 3+6½+6+5+6 = 26½   C 6+3½+7+6+5 = 27½
#               D 4+4+3+5½+6 = 22½  E 5+5+4+4½+7 = 25½  F 4+4+5+4+3 = 20   (total 150)
#
# 2021 chain: {A, B, C} on 3½: mutual match 1 each (the circle), mutual games
# A 7+4 = 11, B 3+6½ = 9½, C 3½+6 = 9½: A first; B and C go on to overall games,
# C 27½ > B 26½: C second, B third (B's direct win over C was counted in the mutual
# criteria of the three, and the chain moves on: it is not counted again).
# {D, E} on 2: mutual match D 1, E 0: D fourth, E fifth. F sixth.

POOL_1 = list("ABCDEF")
MATCHES_1: list[CandidateResult] = [
    ("A", "B", 7, 3), ("B", "C", 6.5, 3.5), ("C", "A", 6, 4),
    ("A", "D", 6, 4), ("B", "D", 6, 4), ("C", "D", 7, 3),
    ("A", "E", 5, 5), ("B", "E", 5, 5), ("C", "E", 6, 4),
    ("A", "F", 6, 4), ("B", "F", 6, 4), ("C", "F", 5, 5),
    ("D", "E", 5.5, 4.5), ("D", "F", 6, 4), ("E", "F", 7, 3),
]  # fmt: skip


def table(rows: Sequence[PoolRow]) -> list[tuple[str, int]]:
    return [(row.player, row.rank) for row in rows]


def test_pool_1_scores() -> None:
    rows = {row.player: row for row in pool_ranking(POOL_1, MATCHES_1, ROBIN_CHAIN_2021)}
    assert {p: (r.match_points, r.game_points) for p, r in rows.items()} == {
        "A": (3.5, 28.0),
        "B": (3.5, 26.5),
        "C": (3.5, 27.5),
        "D": (2.0, 22.5),
        "E": (2.0, 25.5),
        "F": (0.5, 20.0),
    }


def test_pool_1_circle_goes_to_mutual_games_then_overall_games() -> None:
    assert table(pool_ranking(POOL_1, MATCHES_1, ROBIN_CHAIN_2021)) == [
        ("A", 1), ("C", 2), ("B", 3), ("D", 4), ("E", 5), ("F", 6),
    ]  # fmt: skip


def test_pool_1_the_chain_stops_where_it_ends() -> None:
    # Match points and mutual match only: the circle shares rank 1; D's win over E decides.
    assert table(pool_ranking(POOL_1, MATCHES_1, (R.MATCH_POINTS, R.MUTUAL_MATCH))) == [
        ("A", 1), ("B", 1), ("C", 1), ("D", 4), ("E", 5), ("F", 6),
    ]  # fmt: skip
    # 2019's order (match points, then all game points): A 28, C 27½, B 26½; and E 25½
    # above D 22½, where the mutual match put D first.
    assert table(pool_ranking(POOL_1, MATCHES_1, ROBIN_CHAIN_2019)) == [
        ("A", 1), ("C", 2), ("B", 3), ("E", 4), ("D", 5), ("F", 6),
    ]  # fmt: skip
    # Listing the mutual match again after the mutual games re-applies it to {B, C}: B's
    # direct win (6½-3½) now puts B above C.
    chain = (R.MATCH_POINTS, R.MUTUAL_MATCH, R.MUTUAL_GAMES, R.MUTUAL_MATCH, R.OVERALL_GAMES)
    assert table(pool_ranking(POOL_1, MATCHES_1, chain))[:3] == [("A", 1), ("B", 2), ("C", 3)]


# --------------------------------------------------------------------------- worked pool 2
#
# Six players: "champ" and "runner", last year's champion and runner-up (pre-seeded, no
# Swiss place), and p1, p5, p8, p10, placed 1, 5, 8 and 10 in this year's Swiss.
#
#   champ-runner 5-5; p1-p5, p1-p8, p5-p8 all 5-5;
#   champ and runner each beat p1, p5, p8 and p10 6-4; p1, p5, p8 each beat p10 6-4.
#
# Match points: champ ½+4 = 4½, runner 4½; p1, p5, p8: ½+½ (the two draws) + 1 (p10) = 2;
#               p10 0.                                               (total 15)
# Game points:  champ 5+4·6 = 29, runner 29; p1, p5, p8: 4+4+5+5+6 = 24; p10 5·4 = 20.
#
# 2021 chain: {champ, runner}: mutual match ½-½, mutual games 5-5, overall 29-29, the
# previous Final: champ (1st) above runner (2nd).
# {p1, p5, p8}: mutual match 1 each, mutual games 10 each, overall 24 each; none of them
# played the previous Final, so it does not apply; the Swiss places 1, 5, 8 decide.

POOL_2 = ["p10", "p8", "runner", "p5", "champ", "p1"]  # any order: the criteria decide
MATCHES_2: list[CandidateResult] = [
    ("champ", "runner", 5, 5),
    ("p1", "p5", 5, 5), ("p1", "p8", 5, 5), ("p5", "p8", 5, 5),
    *[(top, p, 6, 4) for top in ("champ", "runner") for p in ("p1", "p5", "p8", "p10")],
    *[(p, "p10", 6, 4) for p in ("p1", "p5", "p8")],
]  # fmt: skip
FINAL = ("champ", "runner")
SWISS_PLACES = {"p1": 1, "p5": 5, "p8": 8, "p10": 10}


def test_pool_2_previous_final_then_swiss_place() -> None:
    rows = pool_ranking(
        POOL_2, MATCHES_2, ROBIN_CHAIN_2021, previous_final=FINAL, earlier_places=SWISS_PLACES
    )
    assert [(r.player, r.match_points, r.game_points, r.rank) for r in rows] == [
        ("champ", 4.5, 29.0, 1),
        ("runner", 4.5, 29.0, 2),
        ("p1", 2.0, 24.0, 3),
        ("p5", 2.0, 24.0, 4),
        ("p8", 2.0, 24.0, 5),
        ("p10", 0.0, 20.0, 6),
    ]


def test_pool_2_without_the_previous_final_the_champion_stays_tied() -> None:
    # 2020's chain has no previous Final: the Swiss place comes next, and the champion has
    # none (pre-seeded), so champ and runner share rank 1 for the TD; they keep the order
    # of the players list (runner is listed before champ).
    rows = pool_ranking(POOL_2, MATCHES_2, ROBIN_CHAIN_2020, earlier_places=SWISS_PLACES)
    assert table(rows)[:2] == [("runner", 1), ("champ", 1)]
    assert tied_across_cut(rows, 1) == [["runner", "champ"]]
    assert tied_across_cut(rows, 2) == []


def test_previous_final_applies_only_when_every_tied_player_played_it() -> None:
    # x and y drew and are level on everything; only y played last year's Final.
    matches: list[CandidateResult] = [("x", "y", 5, 5)]
    chain = (R.MATCH_POINTS, R.PREVIOUS_FINAL, R.EARLIER_STAGE_PLACE)
    shared = pool_ranking(["x", "y"], matches, chain, previous_final=("z", "y"))
    assert table(shared) == [("x", 1), ("y", 1)]
    # The Swiss place then decides (y 3rd, x 7th): y first.
    places = {"x": 7, "y": 3}
    decided = pool_ranking(
        ["x", "y"], matches, chain, previous_final=("z", "y"), earlier_places=places
    )
    assert table(decided) == [("y", 1), ("x", 2)]
    # Both played it (the Third Place Playoff's places follow the Grand Final's): x 3rd, y 4th.
    both = pool_ranking(["y", "x"], matches, chain, previous_final=("z", "w", "x", "y"))
    assert table(both) == [("x", 1), ("y", 2)]


# --------------------------------------------------------------------------- each key


def test_mutual_keys_count_only_matches_among_the_tied() -> None:
    # A circle a > b > c > a, each 6-4, and a, b, c each beat d 6-4: match points 1 (circle)
    # + 1 (d) = 2 each; mutual match 1 each; mutual games a 6+4, b 4+6, c 6+4: 10 each;
    # overall a 6+4+6 = 16, b 4+6+6 = 16, c 6+4+6 = 16. No Swiss places given: level.
    matches: list[CandidateResult] = [
        ("a", "b", 6, 4), ("b", "c", 6, 4), ("c", "a", 6, 4),
        ("a", "d", 6, 4), ("b", "d", 6, 4), ("c", "d", 6, 4),
    ]  # fmt: skip
    chain = ROBIN_CHAIN_2020
    rows = pool_ranking(["a", "b", "c", "d"], matches, chain)
    assert table(rows) == [("a", 1), ("b", 1), ("c", 1), ("d", 4)]
    # d loses 6-4 to a but 10-0 to b: b's overall 20 breaks the tie; a and c stay level.
    matches[4] = ("b", "d", 10, 0)
    rows = pool_ranking(["a", "b", "c", "d"], matches, chain)
    assert table(rows) == [("b", 1), ("a", 2), ("c", 2), ("d", 4)]


def test_a_mutual_key_first_counts_the_whole_pool() -> None:
    # Among all the players, the mutual scores are the match points and the game points.
    def ranks(*chain: str) -> list[tuple[str, int]]:
        return table(pool_ranking(POOL_1, MATCHES_1, chain))

    assert ranks(R.MUTUAL_MATCH, R.GAME_POINTS) == ranks(R.MATCH_POINTS, R.GAME_POINTS)
    assert ranks(R.MUTUAL_GAMES) == ranks(R.GAME_POINTS)
    # ... but the mutual games after the match points count the tied group only: B and C
    # tie on 9½ among A, B, C although C has more game points overall.
    assert ranks(R.MATCH_POINTS, R.MUTUAL_GAMES)[:3] == [("A", 1), ("B", 2), ("C", 2)]


def test_overall_games_is_game_points() -> None:
    for player_rows in zip(
        pool_ranking(POOL_1, MATCHES_1, (R.OVERALL_GAMES,)),
        pool_ranking(POOL_1, MATCHES_1, (R.GAME_POINTS,)),
        strict=True,
    ):
        assert player_rows[0] == player_rows[1]


def test_withdrawn_players_games_are_disregarded_and_they_take_no_place() -> None:
    # Pool 1 without C: C's wins over A, D, E and draw with F go. A: B won, D won, E
    # tied, F won = 3½; B: A lost, D, F won, E tied = 2½; D 2; E: A, B tied, D lost,
    # F won = 2; F 0. D and E: mutual match D.
    rows = pool_ranking(POOL_1, MATCHES_1, ROBIN_CHAIN_2021, withdrawn=("C",))
    assert [(r.player, r.match_points, r.rank) for r in rows] == [
        ("A", 3.5, 1),
        ("B", 2.5, 2),
        ("D", 2.0, 3),
        ("E", 2.0, 4),
        ("F", 0.0, 5),
    ]


def test_catalogue_keys() -> None:
    assert ROBIN_TIEBREAKS == (
        "match_points",
        "game_points",
        "mutual_match",
        "mutual_games",
        "overall_games",
        "previous_final",
        "earlier_stage_place",
    )


def test_bad_inputs_are_refused() -> None:
    ok: list[CandidateResult] = [("a", "b", 6, 4)]
    with pytest.raises(ValueError, match="unknown round robin tiebreak"):
        pool_ranking(["a", "b"], ok, ("buchholz",))
    with pytest.raises(ValueError):
        pool_ranking(["a", "b"], [("a", "c", 6, 4)], ())
    with pytest.raises(ValueError):
        pool_ranking(["a", "b"], [*ok, ("b", "a", 5, 5)], ())
    with pytest.raises(ValueError):
        pool_ranking(["a", "b"], [("a", "b", 6.25, 3.75)], ())
    with pytest.raises(ValueError):
        pool_ranking(["a", "a"], [], ())
    with pytest.raises(ValueError):
        pool_ranking(["a", "b"], ok, (), withdrawn=("c",))
    with pytest.raises(ValueError):
        pool_ranking(["a", "b"], ok, (), previous_final=("a", "a"))
    with pytest.raises(ValueError):
        pool_ranking(["a", "b"], ok, (), earlier_places={"a": 0})


def test_the_2019_text_alone_leaves_what_the_2019_table_splits() -> None:
    # a-b 5½-4½, c-a 6-4, b-c 6½-3½, and everybody draws d 5-5: all on 1½ match points;
    # games b 4½+6½+5 = 16, d 15, a 5½+4+5 = 14½, c 6+3½+5 = 14½. The text's two criteria
    # leave a and c level; bot.rules.candidates goes on to their match (c won 6-4).
    matches: list[CandidateResult] = [
        ("a", "b", 5.5, 4.5), ("c", "a", 6, 4), ("b", "c", 6.5, 3.5),
        ("a", "d", 5, 5), ("b", "d", 5, 5), ("c", "d", 5, 5),
    ]  # fmt: skip
    players = ["a", "b", "c", "d"]
    assert table(pool_ranking(players, matches, ROBIN_CHAIN_2019)) == [
        ("b", 1), ("d", 2), ("a", 3), ("c", 3),
    ]  # fmt: skip
    assert [(s.player, s.rank) for s in standings(players, matches)] == [
        ("b", 1), ("d", 2), ("c", 3), ("a", 4),
    ]  # fmt: skip
    with_mutual = (*ROBIN_CHAIN_2019, R.MUTUAL_MATCH)
    assert table(pool_ranking(players, matches, with_mutual))[2:] == [("c", 3), ("a", 4)]


# --------------------------------------------------------------------------- properties


@st.composite
def pools(draw: st.DrawFn) -> tuple[list[str], list[CandidateResult]]:
    """A pool of 1-7 players, some of its matches played, 10 games each."""
    players = [f"c{i}" for i in range(draw(st.integers(1, 7)))]
    matches: list[CandidateResult] = []
    for a, b in itertools.combinations(players, 2):
        if draw(st.booleans()) or draw(st.booleans()):
            ga = draw(st.integers(0, 20)) / 2
            matches.append((a, b, ga, 10 - ga))
    return players, matches


@FAST
@given(pools())
def test_2019_chain_with_the_mutual_matches_is_the_2019_table(
    case: tuple[list[str], list[CandidateResult]],
) -> None:
    """bot.rules.candidates.standings ranks by match points, game points, then the matches
    among the players still tied, again on each part they split: the catalogue's chain
    ("match_points", "game_points") followed by the mutual match listed enough times."""
    players, matches = case
    chain = (*ROBIN_CHAIN_2019, *[R.MUTUAL_MATCH] * len(players))
    rows = pool_ranking(players, matches, chain)
    assert [(r.player, r.match_points, r.game_points, r.rank) for r in rows] == [
        (s.player, s.points, s.game_points, s.rank) for s in standings(players, matches)
    ]


@FAST
@given(pools())
def test_2019_chain_ranks_are_the_2019_tables_before_its_mutual_matches(
    case: tuple[list[str], list[CandidateResult]],
) -> None:
    """With the text's two criteria alone, a rank is 1 + the players ahead on (match points,
    game points), and the 2019 table only splits those groups further."""
    players, matches = case
    rows = pool_ranking(players, matches, ROBIN_CHAIN_2019)
    old = {s.player: s for s in standings(players, matches)}
    for row in rows:
        ahead = [
            r for r in rows if (r.match_points, r.game_points) > (row.match_points, row.game_points)
        ]
        assert row.rank == len(ahead) + 1
        assert old[row.player].rank >= row.rank
    for row, other in itertools.combinations(rows, 2):
        if row.rank < other.rank:
            assert old[row.player].rank < old[other.player].rank


@FAST
@given(pools(), st.randoms(use_true_random=False), st.permutations(ROBIN_TIEBREAKS))
def test_match_order_does_not_matter_and_withdrawal_is_removal(
    case: tuple[list[str], list[CandidateResult]], rng: random.Random, keys: list[str]
) -> None:
    players, matches = case
    places = {p: i for i, p in enumerate(reversed(players), start=1)}
    final = players[:2]

    def rank(pool: list[str], results: list[CandidateResult], gone: str = "") -> list[PoolRow]:
        return pool_ranking(
            pool,
            results,
            keys,
            previous_final=final,
            earlier_places=places,
            withdrawn=(gone,) if gone else (),
        )

    rows = rank(players, matches)
    assert rank(players, rng.sample(matches, len(matches))) == rows
    if players:
        gone = rng.choice(players)
        rest = [p for p in players if p != gone]
        kept = [m for m in matches if gone not in m[:2]]
        assert rank(players, matches, gone) == rank(rest, kept)
