"""Entry rules (bot.rules.advancement): each edition's stages filled by hand from plain
outcomes, the 2019 decisions of bot.rules.stages reproduced, and leavers skipped."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.advancement import (
    ACWC_2019_ENTRY,
    ACWC_2020_ENTRY,
    ACWC_2021_ENTRY,
    Entry,
    EntryKind,
    EntryRule,
    Outcomes,
    PreSeededRole,
    StageOutcome,
    by_place,
    places,
    pre_seeded,
    split_pre_seeded,
    stage_entrants,
    top,
)
from bot.rules.knockout import (
    ACWC_2020_KNOCKOUT,
    ACWC_2021_SEMIFINALS,
    pairings_by_place,
    pairings_by_pool_place,
)
from bot.rules.pools import (
    ACWC_2020_SNAKE_POOLS,
    ACWC_2021_POOL_TABLES,
    ACWC_PRE_SEEDED_SLOTS,
    LOWER,
    UPPER,
    PlacementMethod,
    place_in_pools,
)
from bot.rules.stages import candidates_field, final_players

CHAMPION, RUNNER_UP = PreSeededRole.CHAMPION, PreSeededRole.RUNNER_UP
SWISS = tuple(f"s{place}" for place in range(1, 21))  # s1 won the Swiss
SEEDED = {CHAMPION: "champ", RUNNER_UP: "second"}
POOLS = {UPPER: ("u1", "u2", "u3", "u4", "u5", "u6"), LOWER: ("l1", "l2", "l3", "l4", "l5", "l6")}


def players(entries: list[Entry]) -> list[str]:
    return [e.player for e in entries]


# --- 2019 -------------------------------------------------------------------------------


def test_2019_candidates_are_the_swiss_top_3_and_the_runner_up() -> None:
    outcomes = Outcomes({"swiss": StageOutcome(SWISS)}, SEEDED)
    entries = stage_entrants(ACWC_2019_ENTRY["candidates"], outcomes)
    assert players(entries) == ["s1", "s2", "s3", "second"]
    assert entries[0] == Entry("s1", EntryKind.TOP, "swiss", 1)
    assert entries[3] == Entry("second", EntryKind.PRE_SEEDED, role=RUNNER_UP)


def test_2019_final_is_the_champion_and_the_candidates_winner() -> None:
    outcomes = Outcomes({"candidates": StageOutcome(("c1", "c2", "c3", "c4"))}, SEEDED)
    assert players(stage_entrants(ACWC_2019_ENTRY["final"], outcomes)) == ["champ", "c1"]


def test_2019_without_the_champion_the_candidates_runner_up_plays() -> None:
    """Rule VIII.C.1: the Challenger plays the Candidates runner-up, who takes the
    champion's side as bot.rules.stages.final_players has it."""
    outcomes = Outcomes(
        {"candidates": StageOutcome(("c1", "c2", "c3", "c4"))}, SEEDED, frozenset({"champ"})
    )
    entries = stage_entrants(ACWC_2019_ENTRY["final"], outcomes)
    assert players(entries) == ["c2", "c1"]
    assert entries[0] == Entry("c2", EntryKind.PLACES, "candidates", 2, instead_of=CHAMPION)


@given(
    st.booleans(),
    st.permutations(["c1", "c2", "c3", "c4"]),
    st.sampled_from([None, "c1", "c2", "c3"]),
)
def test_2019_final_matches_final_players(
    champion_in: bool, table: list[str], leaver: str | None
) -> None:
    """Whoever of the Candidates left, the Final is final_players(champion, the first of
    the table still in, the second still in)."""
    left = frozenset({leaver} if leaver else set())
    seeded = {CHAMPION: "champ" if champion_in else None}
    outcomes = Outcomes({"candidates": StageOutcome(tuple(table))}, seeded, left)
    still = [p for p in table if p not in left]
    start = final_players("champ" if champion_in else None, still[0], still[1])
    assert start is not None
    assert players(stage_entrants(ACWC_2019_ENTRY["final"], outcomes)) == [
        start.first,
        start.second,
    ]


@given(st.booleans(), st.sampled_from([None, "s1", "s2", "s5"]))
def test_2019_candidates_match_candidates_field(runner_up_in: bool, leaver: str | None) -> None:
    left = frozenset({leaver} if leaver else set())
    seeded = {RUNNER_UP: "second" if runner_up_in else None}
    outcomes = Outcomes({"swiss": StageOutcome(SWISS)}, seeded, left)
    qualified = [p for p in SWISS if p not in left][:3]
    expected = candidates_field(qualified, ["second"] if runner_up_in else [])
    assert players(stage_entrants(ACWC_2019_ENTRY["candidates"], outcomes)) == expected


# --- 2020 -------------------------------------------------------------------------------


def test_2020_knock_out_winners_join_swiss_1_to_4_and_the_pre_seeded() -> None:
    """Swiss 5-12 play the Knock-Out (5 v 12, 6 v 11, 7 v 10, 8 v 9); s12, s6, s7 and s9
    win. The Candidates: Swiss 1-4, the four winners in pairing order, the champion and
    the runner-up. By Swiss place the eight qualifiers are s1 s2 s3 s4 s6 s7 s9 s12; the
    snake from the lower pool deals places 1, 4, 5, 8 lower (s1 s4 s6 s12) and 2, 3, 6, 7
    upper (s2 s3 s7 s9); the champion joins upper, the runner-up lower."""
    swiss = {"swiss": StageOutcome(SWISS)}
    ko_entries = stage_entrants(ACWC_2020_ENTRY["knockout"], Outcomes(swiss, SEEDED))
    assert players(ko_entries) == [f"s{p}" for p in range(5, 13)]
    ko = pairings_by_place(SWISS, ACWC_2020_KNOCKOUT, source="swiss")
    won = {"Knock-Out 1": "s12", "Knock-Out 2": "s6", "Knock-Out 3": "s7", "Knock-Out 4": "s9"}
    outcomes = Outcomes(
        {**swiss, "knockout": StageOutcome(pairings=tuple(ko), winners=won)}, SEEDED
    )
    entries = stage_entrants(ACWC_2020_ENTRY["candidates"], outcomes)
    assert players(entries) == ["s1", "s2", "s3", "s4", "s12", "s6", "s7", "s9", "champ", "second"]
    assert entries[4] == Entry("s12", EntryKind.WINNERS, "knockout", 1)
    qualifiers, seeded = split_pre_seeded(entries)
    assert seeded == ["champ", "second"]
    pools = place_in_pools(
        by_place(qualifiers, SWISS),
        ACWC_2020_SNAKE_POOLS,
        PlacementMethod.SNAKE,
        pre_seeded=seeded,
        pre_seeded_slots=ACWC_PRE_SEEDED_SLOTS,
    )
    assert pools == {
        LOWER: ["s1", "s4", "s6", "s12", "second"],
        UPPER: ["s2", "s3", "s7", "s9", "champ"],
    }


def test_2020_a_knock_out_winner_who_left_is_replaced_by_the_loser() -> None:
    ko = pairings_by_place(SWISS, ACWC_2020_KNOCKOUT, source="swiss")
    won = {"Knock-Out 1": "s5", "Knock-Out 2": "s6", "Knock-Out 3": "s7", "Knock-Out 4": "s8"}
    outcomes = Outcomes(
        {"swiss": StageOutcome(SWISS), "knockout": StageOutcome(pairings=tuple(ko), winners=won)},
        SEEDED,
        frozenset({"s6"}),
    )
    entries = stage_entrants(ACWC_2020_ENTRY["candidates"], outcomes)
    assert players(entries)[4:8] == ["s5", "s11", "s7", "s8"]
    assert entries[5] == Entry("s11", EntryKind.WINNERS, "knockout", 2, moved_up=1)


def test_2020_pool_winners_to_the_grand_final_runners_up_to_third_place() -> None:
    outcomes = Outcomes({"candidates": StageOutcome(pools=POOLS)}, SEEDED)
    assert players(stage_entrants(ACWC_2020_ENTRY["grand_final"], outcomes)) == ["u1", "l1"]
    assert players(stage_entrants(ACWC_2020_ENTRY["third_place"], outcomes)) == ["u2", "l2"]
    gone = Outcomes({"candidates": StageOutcome(pools=POOLS)}, SEEDED, frozenset({"u1"}))
    assert players(stage_entrants(ACWC_2020_ENTRY["grand_final"], gone)) == ["u2", "l1"]
    assert players(stage_entrants(ACWC_2020_ENTRY["third_place"], gone)) == ["u3", "l2"]


# --- 2021-2024 --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seeded", "count"),
    [
        (SEEDED, 10),  # both play: the top 10
        ({CHAMPION: None, RUNNER_UP: "second"}, 11),  # one absent: 10 + 1
        ({CHAMPION: None, RUNNER_UP: None}, 12),  # both absent: 10 + 2
    ],
)
def test_top_10_more_if_a_pre_seeded_player_is_absent(
    seeded: dict[PreSeededRole, str | None], count: int
) -> None:
    outcomes = Outcomes({"swiss": StageOutcome(SWISS)}, seeded)
    entries = stage_entrants(ACWC_2021_ENTRY["candidates"], outcomes)
    qualifiers, present = split_pre_seeded(entries)
    assert qualifiers == list(SWISS[:count])
    assert len(qualifiers) + len(present) == 12


def test_a_pre_seeded_player_who_left_counts_as_absent() -> None:
    outcomes = Outcomes({"swiss": StageOutcome(SWISS)}, SEEDED, frozenset({"champ"}))
    qualifiers, present = split_pre_seeded(stage_entrants(ACWC_2021_ENTRY["candidates"], outcomes))
    assert (len(qualifiers), present) == (11, ["second"])
    # 11 qualifiers and one pre-seeded: the one-present table, the runner-up upper.
    pools = place_in_pools(
        qualifiers,
        (UPPER, LOWER),
        PlacementMethod.TABLE,
        table=ACWC_2021_POOL_TABLES,
        pre_seeded=present,
        pre_seeded_slots=ACWC_PRE_SEEDED_SLOTS,
    )
    assert pools[UPPER] == ["s3", "s5", "s6", "s9", "s10", "second"]


def test_a_swiss_player_who_left_lets_the_next_move_up() -> None:
    """s3 left after the Swiss: the top 10 are s1, s2, s4 ... s11; s4 is counted third."""
    outcomes = Outcomes({"swiss": StageOutcome(SWISS)}, SEEDED, frozenset({"s3"}))
    entries = stage_entrants(ACWC_2021_ENTRY["candidates"], outcomes)
    assert players(entries)[:10] == ["s1", "s2", *(f"s{p}" for p in range(4, 12))]
    assert entries[2] == Entry("s4", EntryKind.TOP, "swiss", 3, moved_up=1)


def test_semifinals_grand_final_and_third_place() -> None:
    """Semifinals upper 1st v lower 2nd, lower 1st v upper 2nd; l2 and u2 win: Grand
    Final l2 v u2, Third Place Playoff u1 v l1."""
    candidates = StageOutcome(pools=POOLS)
    outcomes = Outcomes({"candidates": candidates}, SEEDED)
    semis_in = stage_entrants(ACWC_2021_ENTRY["semifinals"], outcomes)
    assert players(semis_in) == ["u1", "l2", "l1", "u2"]
    assert semis_in[1] == Entry("l2", EntryKind.POOL_PLACES, "candidates", 2, LOWER)
    semis = pairings_by_pool_place(POOLS, ACWC_2021_SEMIFINALS, source="candidates")
    won = {"Semifinal 1": "l2", "Semifinal 2": "u2"}
    done = Outcomes(
        {"candidates": candidates, "semifinals": StageOutcome(pairings=tuple(semis), winners=won)},
        SEEDED,
    )
    assert players(stage_entrants(ACWC_2021_ENTRY["grand_final"], done)) == ["l2", "u2"]
    assert players(stage_entrants(ACWC_2021_ENTRY["third_place"], done)) == ["u1", "l1"]


def test_a_pool_winner_leaving_before_the_semifinals() -> None:
    """u1 left: u2 moves up to the upper winner, u3 to its runner-up: u2 v l2, l1 v u3."""
    outcomes = Outcomes({"candidates": StageOutcome(pools=POOLS)}, SEEDED, frozenset({"u1"}))
    entries = stage_entrants(ACWC_2021_ENTRY["semifinals"], outcomes)
    assert players(entries) == ["u2", "l2", "l1", "u3"]
    assert entries[3] == Entry("u3", EntryKind.POOL_PLACES, "candidates", 2, UPPER, moved_up=1)


def test_a_knock_out_not_decided_or_a_missing_stage_is_refused() -> None:
    semis = pairings_by_pool_place(POOLS, ACWC_2021_SEMIFINALS, source="candidates")
    half = StageOutcome(pairings=tuple(semis), winners={"Semifinal 1": "u1"})
    with pytest.raises(ValueError, match="not decided"):
        stage_entrants(ACWC_2021_ENTRY["grand_final"], Outcomes({"semifinals": half}))
    with pytest.raises(ValueError, match="no outcome for the stage 'swiss'"):
        stage_entrants([top("swiss", 3)], Outcomes())
    with pytest.raises(ValueError, match="no pool"):
        stage_entrants(ACWC_2021_ENTRY["semifinals"], Outcomes({"candidates": StageOutcome()}))


def test_impossible_rules_are_refused() -> None:
    with pytest.raises(ValueError):
        EntryRule(EntryKind.TOP, "swiss")  # no N
    with pytest.raises(ValueError):
        EntryRule(EntryKind.PLACES, "swiss", places=(1, 1))
    with pytest.raises(ValueError):
        EntryRule(EntryKind.PLACES, "", places=(1,))
    with pytest.raises(ValueError):
        EntryRule(EntryKind.PRE_SEEDED)  # no role
    with pytest.raises(ValueError):
        EntryRule(EntryKind.WINNERS, "ko", fallback=top("swiss", 1))
    with pytest.raises(ValueError):
        EntryRule(EntryKind.PLACES, "swiss", places=(1,), plus_absent_pre_seeded=True)
    with pytest.raises(ValueError):
        EntryRule(EntryKind.POOL_PLACES, "candidates", pool_places=((UPPER, 0),))


def test_a_player_named_twice_keeps_the_first_rule() -> None:
    outcomes = Outcomes({"swiss": StageOutcome(SWISS)})
    entries = stage_entrants([places("swiss", 1, 2), top("swiss", 3)], outcomes)
    assert [(e.player, e.rule) for e in entries] == [
        ("s1", EntryKind.PLACES),
        ("s2", EntryKind.PLACES),
        ("s3", EntryKind.TOP),
    ]


@given(st.sets(st.sampled_from((*SWISS[:14], "champ", "second")), max_size=6), st.booleans())
def test_nobody_who_left_enters_and_nobody_twice(left: set[str], both: bool) -> None:
    """Whoever left (at most 6 of 20 Swiss players), the Candidates are 12, none who
    left, nobody twice, and the qualifiers are the best Swiss players still in."""
    seeded = SEEDED if both else {CHAMPION: None, RUNNER_UP: "second"}
    outcomes = Outcomes({"swiss": StageOutcome(SWISS)}, seeded, frozenset(left))
    entries = stage_entrants(ACWC_2021_ENTRY["candidates"], outcomes)
    entered = players(entries)
    assert not set(entered) & left
    assert len(entered) == len(set(entered)) == 12  # always two pools of six
    qualifiers, _ = split_pre_seeded(entries)
    assert qualifiers == [p for p in SWISS if p not in left][: len(qualifiers)]


def test_a_fallback_comes_only_when_the_pre_seeded_is_absent() -> None:
    rule = pre_seeded(CHAMPION, fallback=places("swiss", 1))
    present = Outcomes({"swiss": StageOutcome(SWISS)}, SEEDED)
    absent = Outcomes({"swiss": StageOutcome(SWISS)}, {CHAMPION: None})
    assert players(stage_entrants([rule], present)) == ["champ"]
    assert stage_entrants([rule], absent) == [
        Entry("s1", EntryKind.PLACES, "swiss", 1, instead_of=CHAMPION)
    ]
