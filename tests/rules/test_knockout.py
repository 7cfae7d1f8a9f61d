"""Knock-out matches (bot.rules.knockout): 2020's Knock-Out from Swiss places, 2021-2024's
cross-pool Semifinals, routing to the Grand Final and Third Place Playoff, and who moves up
when a player leaves."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.knockout import (
    ACWC_2020_KNOCKOUT,
    ACWC_2021_SEMIFINALS,
    Pairing,
    below_in_pools,
    pairings_by_place,
    pairings_by_pool_place,
    route,
    slots_after_leaving,
)
from bot.rules.pools import LOWER, UPPER

SWISS = [f"s{place}" for place in range(1, 21)]
POOLS = {UPPER: ("u1", "u2", "u3", "u4", "u5", "u6"), LOWER: ("l1", "l2", "l3", "l4", "l5", "l6")}


def test_2020_knock_out_pairs_swiss_5_to_12() -> None:
    """2020 rules, Knock-Out: "5 vs 12, 6 vs 11, 7 vs 10, 8 vs 9"."""
    ko = pairings_by_place(SWISS, ACWC_2020_KNOCKOUT, source="swiss")
    assert [(p.name, p.first, p.second) for p in ko] == [
        ("Knock-Out 1", "s5", "s12"),
        ("Knock-Out 2", "s6", "s11"),
        ("Knock-Out 3", "s7", "s10"),
        ("Knock-Out 4", "s8", "s9"),
    ]
    assert (ko[0].first_seat, ko[0].second_seat, ko[0].source) == (5, 12, "swiss")


def test_the_higher_placed_is_listed_first() -> None:
    ko = pairings_by_place(SWISS, [(12, 5)], name="Match {number}")
    assert (ko[0].name, ko[0].first, ko[0].second) == ("Match 1", "s5", "s12")


def test_cross_pool_semifinals() -> None:
    """2021-2024: "The winner of each pool ... against the second place player in the
    opposite pool": upper 1st v lower 2nd, lower 1st v upper 2nd."""
    semis = pairings_by_pool_place(POOLS, ACWC_2021_SEMIFINALS, source="candidates")
    assert [(p.name, p.first, p.second) for p in semis] == [
        ("Semifinal 1", "u1", "l2"),
        ("Semifinal 2", "l1", "u2"),
    ]
    flipped = pairings_by_pool_place(POOLS, [((UPPER, 2), (LOWER, 1))])
    assert (flipped[0].first, flipped[0].second) == ("l1", "u2")


def test_bad_tables_are_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        pairings_by_place(SWISS, [(5, 12), (12, 6)])
    with pytest.raises(ValueError, match="place 25"):
        pairings_by_place(SWISS, [(5, 25)])
    with pytest.raises(ValueError, match="no pool 'middle'"):
        pairings_by_pool_place(POOLS, [(("middle", 1), (LOWER, 2))])
    with pytest.raises(ValueError, match="no place 7"):
        pairings_by_pool_place(POOLS, [((UPPER, 7), (LOWER, 2))])


def test_winners_to_the_grand_final_losers_to_the_third_place_playoff() -> None:
    """Lower's runner-up beats the upper winner, lower's winner beats upper's runner-up:
    Grand Final l2 v l1, Third Place Playoff u1 v u2."""
    semis = pairings_by_pool_place(POOLS, ACWC_2021_SEMIFINALS)
    routing = route(semis, {"Semifinal 1": "l2", "Semifinal 2": "l1"})
    assert routing.winners == ("l2", "l1")
    assert routing.losers == ("u1", "u2")


def test_routing_needs_every_match_decided_by_its_players() -> None:
    semis = pairings_by_pool_place(POOLS, ACWC_2021_SEMIFINALS)
    with pytest.raises(ValueError, match="not decided"):
        route(semis, {"Semifinal 1": "u1"})
    with pytest.raises(ValueError, match="does not play"):
        route(semis, {"Semifinal 1": "u2", "Semifinal 2": "l1"})
    with pytest.raises(ValueError, match="do not exist"):
        route(semis, {"Semifinal 1": "u1", "Semifinal 2": "l1", "Semifinal 3": "x"})


@given(st.lists(st.booleans(), min_size=4, max_size=4))
def test_winners_and_losers_split_the_players(first_wins: list[bool]) -> None:
    ko = pairings_by_place(SWISS, ACWC_2020_KNOCKOUT)
    decided = {p.name: p.first if w else p.second for p, w in zip(ko, first_wins, strict=True)}
    routing = route(ko, decided)
    assert sorted(routing.winners + routing.losers) == sorted(SWISS[4:12])
    for pairing, w, lost in zip(ko, routing.winners, routing.losers, strict=True):
        assert {w, lost} == set(pairing.players)


SEMI_1 = Pairing("Semifinal 1", "u1", "l2", (UPPER, 1), (LOWER, 2))
SEMI_2 = Pairing("Semifinal 2", "l1", "u2", (LOWER, 1), (UPPER, 2))


def test_below_in_pools_skips_players_already_seated() -> None:
    """Below u1 in the upper pool: u2 plays Semifinal 2, so u3, u4, u5, u6."""
    below = below_in_pools([SEMI_1, SEMI_2], POOLS)
    assert below["u1"] == ["u3", "u4", "u5", "u6"]
    assert below["l2"] == ["l3", "l4", "l5", "l6"]
    ko = pairings_by_place(SWISS, ACWC_2020_KNOCKOUT)
    assert below_in_pools(ko, {})["s5"] == []


def test_slots_after_leaving() -> None:
    """Semifinal 1, u1 beat l2. Nobody left: (u1, l2). u1 left: l2 moves up to the Grand
    Final, u3 (below u1 and in no Semifinal) to the Third Place Playoff. l2 left: l3
    (below l2). Both left: u3 and l3."""
    below = below_in_pools([SEMI_1, SEMI_2], POOLS)
    assert slots_after_leaving(SEMI_1, "u1", (), below=below) == ("u1", "l2")
    assert slots_after_leaving(SEMI_1, "u1", {"u1"}, below=below) == ("l2", "u3")
    assert slots_after_leaving(SEMI_1, "u1", {"l2"}, below=below) == ("u1", "l3")
    assert slots_after_leaving(SEMI_1, "u1", {"u1", "l2", "u3"}, below=below) == ("u4", "l3")
    assert slots_after_leaving(SEMI_1, "u1", {"u1"}) == ("l2", None)
