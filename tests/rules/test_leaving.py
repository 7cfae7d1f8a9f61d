"""Withdrawals by stage kind (bot.rules.leaving): one rule per kind, through one table; the
Swiss and round robin as rule VIII has them, the players below moving up from the
Semifinals on (2024 rules), and 2019's Final replacements."""

from __future__ import annotations

import pytest

from bot.rules.advancement import (
    ACWC_2019_ENTRY,
    ACWC_2020_ENTRY,
    ACWC_2021_ENTRY,
    Entry,
    EntryKind,
    Outcomes,
    PreSeededRole,
    StageKind,
    StageOutcome,
)
from bot.rules.knockout import ACWC_2021_SEMIFINALS, pairings_by_pool_place
from bot.rules.leaving import (
    LEAVING,
    Leaving,
    final_leaving,
    knockout_leaving,
    on_leaving,
    robin_leaving,
    swiss_leaving,
)
from bot.rules.pools import LOWER, UPPER
from bot.rules.withdrawals import (
    ENGINE,
    StageMatch,
    SwissChange,
    final_pairing_after_withdrawal,
)

CHAMPION, RUNNER_UP = PreSeededRole.CHAMPION, PreSeededRole.RUNNER_UP
SEEDED = {CHAMPION: "champ", RUNNER_UP: "second"}
POOLS = {UPPER: ("u1", "u2", "u3", "u4", "u5", "u6"), LOWER: ("l1", "l2", "l3", "l4", "l5", "l6")}

SWISS_MATCHES = (
    StageMatch(1, "x", "a", "finished", 1.0, 0.0, None),  # x won
    StageMatch(2, "b", "x", "finished", 0.5, 0.5, None),  # a 5-5 tie
    StageMatch(3, "x", "c", "scheduled", None, None, None),  # pending
)


def players(entries: tuple[Entry, ...]) -> list[str]:
    return [e.player for e in entries]


def test_every_stage_kind_has_its_rule_in_one_table() -> None:
    assert set(LEAVING) == set(StageKind)
    assert LEAVING[StageKind.ROUND_ROBIN] is robin_leaving
    assert on_leaving(StageKind.SWISS, Leaving("x", matches=SWISS_MATCHES)) == swiss_leaving(
        Leaving("x", matches=SWISS_MATCHES)
    )


def test_swiss_the_opponent_wins_the_pending_match() -> None:
    """Rule VIII.A.1: c wins match 3 (1 point to c, 0 to x); finished matches stand."""
    effect = on_leaving(StageKind.SWISS, Leaving("x", matches=SWISS_MATCHES))
    assert effect.changes == (SwissChange(3, "unfinished", 0.0, 1.0, "c"),)


def test_swiss_an_engine_mark_gives_the_finished_matches_to_the_opponents() -> None:
    """Rule VIII.A.2: match 1 (x won 1-0) becomes 0-1, match 2 (0.5-0.5) becomes b's 1-0."""
    effect = on_leaving(StageKind.SWISS, Leaving("x", ENGINE, matches=SWISS_MATCHES))
    assert effect.changes == (
        SwissChange(3, "unfinished", 0.0, 1.0, "c"),
        SwissChange(1, "engine", 0.0, 1.0, None),
        SwissChange(2, "engine", 1.0, 0.0, None),
    )


def test_round_robin_the_leavers_matches_are_disregarded() -> None:
    """Rule VIII.B: x's matches 1 and 3 go; the match between a and b stays."""
    matches = (
        StageMatch(1, "x", "a", "finished", 6.0, 4.0, None),
        StageMatch(2, "a", "b", "finished", 5.0, 5.0, None),
        StageMatch(3, "b", "x", "scheduled", None, None, None),
    )
    effect = on_leaving(StageKind.ROUND_ROBIN, Leaving("x", matches=matches))
    assert effect.disregarded == (1, 3)
    assert effect.changes == ()


def test_a_pool_winner_withdrawing_before_the_semifinals() -> None:
    """2024 rules: "the other players below them in their Candidate pool move up one
    position in their placement in the Semifinal Matches": u1 leaves, u2 is the upper
    winner and meets l2, u3 the upper runner-up and meets l1."""
    leaving = Leaving(
        "u1",
        entry_rules=ACWC_2021_ENTRY["semifinals"],
        outcomes=Outcomes({"candidates": StageOutcome(pools=POOLS)}, SEEDED),
    )
    effect = on_leaving(StageKind.KNOCKOUT, leaving)
    assert players(effect.entrants) == ["u2", "l2", "l1", "u3"]
    assert effect.entrants[0] == Entry("u2", EntryKind.POOL_PLACES, "candidates", 1, UPPER, 1)
    assert players(effect.replacements) == ["u3"]
    # The Semifinals re-paired from the moved-up pools say the same.
    moved = {UPPER: POOLS[UPPER][1:], LOWER: POOLS[LOWER]}
    semis = pairings_by_pool_place(moved, ACWC_2021_SEMIFINALS)
    assert [(p.first, p.second) for p in semis] == [("u2", "l2"), ("l1", "u3")]


def test_a_knock_out_under_way_goes_to_the_opponent() -> None:
    match = (StageMatch(7, "u1", "l2", "scheduled", None, None, None),)
    effect = knockout_leaving(Leaving("l2", matches=match, started=True))
    assert effect.changes == (SwissChange(7, "unfinished", 1.0, 0.0, "u1"),)
    assert effect.entrants == ()


def semifinals_done(left: frozenset[str] = frozenset()) -> Outcomes:
    """Semifinal 1 u1 v l2 won by u1; Semifinal 2 l1 v u2 won by u2."""
    semis = pairings_by_pool_place(POOLS, ACWC_2021_SEMIFINALS, source="candidates")
    won = {"Semifinal 1": "u1", "Semifinal 2": "u2"}
    return Outcomes(
        {
            "candidates": StageOutcome(pools=POOLS),
            "semifinals": StageOutcome(pairings=tuple(semis), winners=won),
        },
        SEEDED,
        left,
    )


def test_a_grand_finalist_leaving_the_semifinal_loser_and_the_pool_move_up() -> None:
    """2024 rules, Final Matches: "the other players below them in the Semifinals and
    Candidates move up one position". Grand Final u1 v u2, Third Place l2 v l1. u1 leaves:
    l2 (below u1 in Semifinal 1) plays the Grand Final; below u1 in the upper pool, u2 is
    a finalist already, so u3 plays the Third Place Playoff."""
    grand = final_leaving(
        Leaving("u1", entry_rules=ACWC_2021_ENTRY["grand_final"], outcomes=semifinals_done())
    )
    assert players(grand.entrants) == ["l2", "u2"]
    assert grand.entrants[0] == Entry("l2", EntryKind.WINNERS, "semifinals", 1, moved_up=1)
    third = final_leaving(
        Leaving("u1", entry_rules=ACWC_2021_ENTRY["third_place"], outcomes=semifinals_done())
    )
    assert players(third.entrants) == ["u3", "l1"]
    assert players(third.replacements) == ["u3"]


def test_a_third_place_player_leaving_the_next_in_their_pool_steps_in() -> None:
    """l2 lost Semifinal 1 and leaves: l3, below l2 in the lower pool, plays the
    Third Place Playoff against l1; the Grand Final is unchanged."""
    third = final_leaving(
        Leaving("l2", entry_rules=ACWC_2021_ENTRY["third_place"], outcomes=semifinals_done())
    )
    assert players(third.entrants) == ["l3", "l1"]
    grand = final_leaving(
        Leaving("l2", entry_rules=ACWC_2021_ENTRY["grand_final"], outcomes=semifinals_done())
    )
    assert players(grand.entrants) == ["u1", "u2"]
    assert grand.replacements == ()


def test_2020_grand_finalist_leaving_the_pool_moves_up() -> None:
    """2020 rules: "the other players below them in their round robin pool move up one
    position in their placement in the Final Matches": u1 leaves, u2 meets l1."""
    leaving = Leaving(
        "u1",
        entry_rules=ACWC_2020_ENTRY["grand_final"],
        outcomes=Outcomes({"candidates": StageOutcome(pools=POOLS)}, SEEDED),
    )
    assert players(on_leaving(StageKind.FINAL_MATCH, leaving).entrants) == ["u2", "l1"]


@pytest.mark.parametrize("leaver", ["champ", "c1"])
def test_2019_final_replacements_are_rule_viii_c(leaver: str) -> None:
    """Rule VIII.C: the champion leaves, the Challenger c1 plays the runner-up c2; c1
    leaves, c2 becomes the Challenger. The same two players as
    final_pairing_after_withdrawal (which lists the Challenger first when the champion
    leaves; the entry rules follow final_players, the runner-up on the champion's side)."""
    leaving = Leaving(
        leaver,
        entry_rules=ACWC_2019_ENTRY["final"],
        outcomes=Outcomes({"candidates": StageOutcome(("c1", "c2", "c3", "c4"))}, SEEDED),
    )
    effect = on_leaving(StageKind.FINAL_MATCH, leaving)
    expected = final_pairing_after_withdrawal("champ", "c1", "c2", leaver)
    assert set(players(effect.entrants)) == {expected.first, expected.second}
    assert players(effect.replacements) == ["c2"]


def test_an_unknown_reason_is_refused() -> None:
    with pytest.raises(ValueError, match="reason"):
        Leaving("x", "tired")
