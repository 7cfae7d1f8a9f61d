"""Round-robin pools (bot.rules.pools): the 2021-2024 tables worked by hand, the snake,
2019's single group, and each pool's schedule."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.pools import (
    ACWC_2020_SNAKE_POOLS,
    ACWC_2021_POOL_TABLES,
    ACWC_PRE_SEEDED_SLOTS,
    LOWER,
    UPPER,
    PlacementMethod,
    moved_up,
    place_in_pools,
    robin_schedule,
    snake,
)
from bot.rules.stages import candidates_field

SWISS = [f"s{place}" for place in range(1, 13)]  # s1 is the Swiss winner, s12 twelfth
POOLS = (UPPER, LOWER)


def tabled(entrants: list[str], pre_seeded: list[str]) -> dict[str, list[str]]:
    return place_in_pools(
        entrants,
        POOLS,
        PlacementMethod.TABLE,
        table=ACWC_2021_POOL_TABLES,
        pre_seeded=pre_seeded,
        pre_seeded_slots=ACWC_PRE_SEEDED_SLOTS,
    )


def test_both_pre_seeded_present_2021_table() -> None:
    """2021 rules: both participate, "10th, 7th, 6th, 3rd and 1st place ... lower", "9th,
    8th, 5th, 4th and 2nd place ... upper"; the champion upper, the runner-up lower."""
    pools = tabled(SWISS[:10], ["champ", "second"])
    assert pools[LOWER] == ["s1", "s3", "s6", "s7", "s10", "second"]
    assert pools[UPPER] == ["s2", "s4", "s5", "s8", "s9", "champ"]


def test_only_the_runner_up_present_starts_upper() -> None:
    """2021 rules: "If [the champion] does not participate, then [the runner-up] starts in
    the upper pool"; one present: lower 11, 8, 7, 4, 2, 1 and upper 10, 9, 6, 5, 3 (and 11
    Swiss players go through: 10 + 1 absent)."""
    pools = tabled(SWISS[:11], ["second"])
    assert pools[LOWER] == ["s1", "s2", "s4", "s7", "s8", "s11"]
    assert pools[UPPER] == ["s3", "s5", "s6", "s9", "s10", "second"]


def test_only_the_champion_present_starts_upper() -> None:
    pools = tabled(SWISS[:11], ["champ"])
    assert pools[UPPER][-1] == "champ"
    assert "champ" not in pools[LOWER]


def test_no_pre_seeded_present_2021_table() -> None:
    """2021 rules: neither: upper 12, 9, 7, 6, 4, 1; lower 11, 10, 8, 5, 3, 2."""
    pools = tabled(SWISS, [])
    assert pools[UPPER] == ["s1", "s4", "s6", "s7", "s9", "s12"]
    assert pools[LOWER] == ["s2", "s3", "s5", "s8", "s10", "s11"]


def test_every_table_makes_two_pools_of_six() -> None:
    for present in (0, 1, 2):
        pools = tabled(SWISS[: 12 - present], ["champ", "second"][:present])
        assert [len(pools[UPPER]), len(pools[LOWER])] == [6, 6]


def test_a_place_listed_twice_is_refused() -> None:
    table = {0: {UPPER: (1, 2), LOWER: (2, 3)}}
    with pytest.raises(ValueError, match="twice"):
        place_in_pools(SWISS[:4], POOLS, PlacementMethod.TABLE, table=table)


def test_a_place_missing_is_refused() -> None:
    table = {0: {UPPER: (1, 2), LOWER: (3, 5)}}
    with pytest.raises(ValueError, match="leaves out places \\[4\\]"):
        place_in_pools(SWISS[:4], POOLS, PlacementMethod.TABLE, table=table)


def test_a_table_of_another_size_is_refused() -> None:
    """Both pre-seeded present but 11 Swiss players: the table places 10."""
    with pytest.raises(ValueError, match="places 10 players, there are 11"):
        tabled(SWISS[:11], ["champ", "second"])


def test_no_table_row_and_bad_slots_are_refused() -> None:
    with pytest.raises(ValueError, match="no pool table"):
        place_in_pools(SWISS[:4], POOLS, PlacementMethod.TABLE, table={})
    with pytest.raises(ValueError, match="slots"):
        place_in_pools(SWISS[:4], POOLS, PlacementMethod.SNAKE, pre_seeded=["champ"])
    with pytest.raises(ValueError, match="not one of the pools"):
        place_in_pools(SWISS[:4], POOLS, PlacementMethod.SNAKE, pre_seeded_slots=["middle"])
    with pytest.raises(ValueError, match="distinct"):
        place_in_pools(["a", "a"], POOLS, PlacementMethod.SNAKE)


def test_snake_over_two_and_three_pools() -> None:
    # Two pools: A B B A A B B A. Three pools, seven places: A B C C B A A.
    assert snake(8, 2) == [0, 1, 1, 0, 0, 1, 1, 0]
    assert snake(7, 3) == [0, 1, 2, 2, 1, 0, 0]
    pools = place_in_pools(SWISS[:7], ("A", "B", "C"), PlacementMethod.SNAKE)
    assert pools == {"A": ["s1", "s6", "s7"], "B": ["s2", "s5"], "C": ["s3", "s4"]}


def test_2020_snake_with_the_pre_seeded_in_their_slots() -> None:
    """The choice for 2020: a snake by Swiss place from the lower pool, 8 qualifiers:
    lower 1, 4, 5, 8; upper 2, 3, 6, 7; the champion upper, the runner-up lower."""
    pools = place_in_pools(
        SWISS[:8],
        ACWC_2020_SNAKE_POOLS,
        PlacementMethod.SNAKE,
        pre_seeded=["champ", "second"],
        pre_seeded_slots=ACWC_PRE_SEEDED_SLOTS,
    )
    assert pools[LOWER] == ["s1", "s4", "s5", "s8", "second"]
    assert pools[UPPER] == ["s2", "s3", "s6", "s7", "champ"]


@given(st.integers(0, 40), st.integers(1, 6))
def test_snake_places_everyone_once_in_balanced_pools(count: int, pools: int) -> None:
    names = [f"p{i}" for i in range(count)]
    placed = place_in_pools(names, [f"pool{i}" for i in range(pools)], PlacementMethod.SNAKE)
    everyone = [p for players in placed.values() for p in players]
    assert sorted(everyone) == sorted(names)
    sizes = [len(players) for players in placed.values()]
    assert max(sizes) - min(sizes) <= 1


@given(st.lists(st.sampled_from("abcdef"), max_size=3, unique=True), st.booleans())
def test_single_pool_is_2019s_candidates_field(qualified: list[str], seeded: bool) -> None:
    """2019: one group, the Swiss qualifiers then the runner-up (rule III.D)."""
    pre = ["runner"] if seeded else []
    pools = place_in_pools(qualified, ["candidates"], PlacementMethod.SINGLE, pre_seeded=pre)
    assert pools == {"candidates": candidates_field(qualified, pre)}


def test_single_takes_one_pool() -> None:
    with pytest.raises(ValueError, match="exactly one pool"):
        place_in_pools(SWISS[:4], POOLS, PlacementMethod.SINGLE)


def test_a_pool_of_six_plays_fifteen_single_matches() -> None:
    """Rules 2020-2024: "Each candidate plays a 10-game match against each other candidate
    in their pool": 6 players, 6 * 5 / 2 = 15 matches, over 5 rounds of 3."""
    rounds = robin_schedule(SWISS[:6])
    assert [len(r) for r in rounds] == [3, 3, 3, 3, 3]


@given(st.integers(0, 12))
def test_every_pair_of_a_pool_meets_once(size: int) -> None:
    pool = [f"p{i}" for i in range(size)]
    pairs = [frozenset(pair) for r in robin_schedule(pool) for pair in r]
    assert sorted(pairs, key=sorted) == sorted(
        (frozenset(c) for c in combinations(pool, 2)), key=sorted
    )
    for r in robin_schedule(pool):
        seated = [p for pair in r for p in pair]
        assert len(seated) == len(set(seated))  # nobody plays twice in a round


def test_moved_up_drops_the_leavers() -> None:
    assert moved_up(["a", "b", "c", "d"], {"b"}) == ["a", "c", "d"]
    assert moved_up(["a", "b"], ()) == ["a", "b"]
