"""Tests for bot.rules.withdrawals (rule VIII)."""

from __future__ import annotations

import pytest

from bot.rules.candidates import standings
from bot.rules.withdrawals import (
    BOOSTER,
    DISQUALIFICATION,
    ENGINE,
    WITHDRAWAL,
    FinalPairing,
    StageMatch,
    SwissChange,
    SwissLeave,
    adjudicate_engine,
    candidates_disregarded,
    candidates_without,
    final_pairing_after_withdrawal,
    leave_plan,
    leaves_the_championship,
    robin_result,
    swiss_changes,
    swiss_leave,
    swiss_unfinished_match_result,
)

SWISS = [
    ("cheat", "a", 1.0, 0.0),
    ("b", "cheat", 0.5, 0.5),
    ("a", "b", 0.0, 1.0),
    ("cheat", None, 1.0, 0.0),  # a bye
    ("c", "cheat", 1.0, 0.0),
    ("c", None, 1.0, 0.0),  # someone else's bye
]


def test_unfinished_match_goes_to_the_opponent() -> None:
    # Rule VIII.A.1: "their opponent wins this game".
    assert swiss_unfinished_match_result("leaver", "opp") == ("leaver", "opp", 0.0, 1.0)
    with pytest.raises(ValueError):
        swiss_unfinished_match_result("x", "x")


def test_engine_mark_adjudicates_every_finished_match() -> None:
    # Rule VIII.A.2: wins and draws alike go to the opponents; losses stay losses.
    assert adjudicate_engine(SWISS, "cheat") == [
        ("cheat", "a", 0.0, 1.0),
        ("b", "cheat", 1.0, 0.0),
        ("a", "b", 0.0, 1.0),
        ("cheat", None, 0.0, 0.0),
        ("c", "cheat", 1.0, 0.0),
        ("c", None, 1.0, 0.0),
    ]
    kept = adjudicate_engine(SWISS, "cheat", keep_byes=True)
    assert kept[3] == ("cheat", None, 1.0, 0.0)


def test_adjudicating_a_clean_player_changes_nothing() -> None:
    assert adjudicate_engine(SWISS, "nobody") == SWISS


@pytest.mark.parametrize("reason", [WITHDRAWAL, DISQUALIFICATION, BOOSTER])
def test_other_reasons_keep_finished_results(reason: str) -> None:
    out = swiss_leave(SWISS, "cheat", reason=reason, withdrawn={"z"}, unfinished_opponent="d")
    assert out == SwissLeave([*SWISS, ("cheat", "d", 0.0, 1.0)], frozenset({"z", "cheat"}))


def test_engine_leave() -> None:
    out = swiss_leave(SWISS, "cheat", reason=ENGINE)
    assert out.results == adjudicate_engine(SWISS, "cheat")
    assert out.withdrawn == frozenset({"cheat"})
    with pytest.raises(ValueError):
        swiss_leave(SWISS, "cheat", reason="rage quit")


def test_input_is_not_mutated() -> None:
    results = list(SWISS)
    swiss_leave(results, "cheat", reason=ENGINE, unfinished_opponent="d")
    assert results == SWISS


def test_candidates_matches_are_disregarded() -> None:
    results = [
        ("A", "B", 6.0, 4.0),
        ("C", "D", 5.0, 5.0),
        ("D", "A", 3.0, 7.0),
        ("B", "C", 5.5, 4.5),
    ]
    remaining = candidates_without(results, "A")
    assert remaining == [("C", "D", 5.0, 5.0), ("B", "C", 5.5, 4.5)]
    # The standings of the others then ignore A entirely (rule VIII.B).
    table = standings(["B", "C", "D"], remaining)
    assert [(s.player, s.points, s.game_points) for s in table] == [
        ("B", 1.0, 5.5),
        ("C", 0.5, 9.5),
        ("D", 0.5, 5.0),
    ]


def test_final_champion_withdraws() -> None:
    # Rule VIII.C.1: the Challenger plays the Candidates runner-up; no defending champion.
    assert final_pairing_after_withdrawal("arimakat", "winner", "second", "arimakat") == (
        FinalPairing("winner", "second", None)
    )


def test_final_challenger_withdraws() -> None:
    # Rule VIII.C.2: the runner-up becomes the Challenger.
    assert final_pairing_after_withdrawal("arimakat", "winner", "second", "winner") == (
        FinalPairing("arimakat", "second", "arimakat")
    )


def test_final_runner_up_withdraws_or_invalid() -> None:
    assert final_pairing_after_withdrawal("arimakat", "winner", "second", "second") == (
        FinalPairing("arimakat", "winner", "arimakat")
    )
    with pytest.raises(ValueError):
        final_pairing_after_withdrawal("arimakat", "winner", "second", "stranger")
    with pytest.raises(ValueError):
        final_pairing_after_withdrawal("arimakat", "winner", None, "winner")
    with pytest.raises(ValueError):
        final_pairing_after_withdrawal("arimakat", "arimakat", "second", "second")


# --- rule VIII applied to stored matches --------------------------------------------------------


def test_leave_plan_by_stage() -> None:
    """Rule 8.1 (VIII.A), 8.2 (VIII.B), 8.3 (VIII.C): what changes depends on the stage."""
    running = leave_plan(
        swiss="running", tiebreak=None, candidates=None, final=None, in_final=False, reason=ENGINE
    )
    assert running.swiss and running.adjudicate and not running.swiss_finished_unadjudicated
    assert not (running.tiebreak or running.candidates or running.final)
    plain = leave_plan(
        swiss="running", tiebreak=None, candidates=None, final=None, in_final=False,
        reason=DISQUALIFICATION,
    )  # fmt: skip
    assert plain.swiss and not plain.adjudicate
    later = leave_plan(
        swiss="finished", tiebreak="finished", candidates="running", final="planned",
        in_final=True, reason=ENGINE,
    )  # fmt: skip
    assert not later.swiss and later.swiss_finished_unadjudicated and not later.tiebreak
    assert later.candidates and not later.candidates_finished and later.final
    final = leave_plan(
        swiss="finished", tiebreak=None, candidates="finished", final="running",
        in_final=False, reason=WITHDRAWAL,
    )  # fmt: skip
    assert final.candidates_finished and not final.candidates
    assert not final.swiss_finished_unadjudicated and not final.final
    with pytest.raises(ValueError):
        leave_plan(
            swiss=None, tiebreak=None, candidates=None, final=None, in_final=False, reason="x"
        )


def m(ident: int, a: str, b: str | None, state: str, pa: float | None, pb: float | None,
      winner: str | None = None) -> StageMatch:  # fmt: skip
    return StageMatch(ident, a, b, state, pa, pb, winner)


STORED = [
    m(1, "cheat", "a", "finished", 1.0, 0.0),
    m(2, "b", "cheat", "finished", 0.5, 0.5),
    m(3, "cheat", None, "bye", 1.0, 0.0),
    m(4, "c", "cheat", "forfeited", 1.0, 0.0, winner="c"),
    m(5, "cheat", "d", "forfeited", 1.0, 0.0, winner="cheat"),
    m(6, "cheat", "e", "scheduled", None, None),
]


def test_the_unfinished_match_goes_to_the_opponent_and_finished_ones_stay() -> None:
    """Rule 8.1.1 (VIII.A.1)."""
    assert swiss_changes(STORED, "cheat", engine=False) == [
        SwissChange(6, "unfinished", 0.0, 1.0, "e")
    ]


def test_an_engine_mark_adjudicates_every_finished_match() -> None:
    """Rule 8.1.2 (VIII.A.2): wins, draws and the bye go; a forfeit they won is kept, one
    they lost already stands."""
    assert swiss_changes(STORED, "cheat", engine=True) == [
        SwissChange(6, "unfinished", 0.0, 1.0, "e"),
        SwissChange(1, "engine", 0.0, 1.0, None),
        SwissChange(2, "engine", 1.0, 0.0, None),
        SwissChange(3, "engine", 0.0, 0.0, None),
    ]


def test_candidates_matches_of_the_leaver_are_disregarded_once() -> None:
    """Rule 8.2 (VIII.B)."""
    stored = [
        m(1, "x", "a", "finished", 3.0, 1.0),
        m(2, "b", "x", "scheduled", None, None),
        m(3, "x", "c", "forfeited", None, None),  # already disregarded
        m(4, "a", "b", "finished", 2.0, 2.0),
    ]
    assert candidates_disregarded(stored, "x") == [1, 2]
    assert candidates_disregarded(stored, "nobody") == []


def test_a_round_robin_match_counts_unless_disregarded() -> None:
    """Rule 8.2 (VIII.B): a match forfeited without a winner is disregarded; a forfeit won
    gives the winner every game; matches outside the field or undecided do not count."""
    field = {"x", "a", "b"}

    def result(match: StageMatch) -> object:
        return robin_result(match, field=field, scores=(6.0, 4.0), games=10.0)

    assert result(m(1, "x", "a", "finished", 1.0, 0.0)) == ("x", "a", 6.0, 4.0)
    assert result(m(2, "x", "a", "forfeited", None, None)) is None
    assert result(m(7, "x", "a", "forfeited", 0.0, 0.0)) is None  # points kept, no winner
    assert result(m(3, "x", "a", "forfeited", 0.0, 1.0, winner="a")) == ("x", "a", 0.0, 10.0)
    assert result(m(4, "x", "c", "finished", 1.0, 0.0)) is None
    assert result(m(5, "x", "a", "scheduled", None, None)) is None
    assert result(m(6, "x", None, "bye", 1.0, 0.0)) is None


def test_a_withdrawal_before_the_qualification_only_ends_the_registration() -> None:
    """Rule 8 (VIII) applies once the championship has begun."""
    assert not leaves_the_championship(None)
    assert not leaves_the_championship("planned")
    assert leaves_the_championship("running")
    assert leaves_the_championship("finished")
