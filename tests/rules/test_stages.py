"""The stage rules over plain values (bot.rules.stages): round weeks, shared ranks, the cut
and the Candidates table, with worked examples from the rules text's situations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from bot.rules.stages import candidates_tie, cut, next_monday, round_window, shared_ranks

MONDAY = datetime(2019, 10, 7, tzinfo=UTC)


def test_rounds_follow_each_other_monday_to_sunday() -> None:
    """Rule IV.A: round 3 of weekly rounds is the third week, Monday 00:00 to Sunday 23:59:59."""
    starts, ends = round_window(MONDAY, 7, 3)
    assert starts == datetime(2019, 10, 21, tzinfo=UTC)
    assert ends == datetime(2019, 10, 27, 23, 59, 59, tzinfo=UTC)
    assert round_window(MONDAY, 7, 4)[0] == ends + timedelta(seconds=1)


def test_the_next_stage_starts_the_monday_after_a_deadline() -> None:
    sunday_night = datetime(2019, 10, 27, 23, 59, 59, tzinfo=UTC)
    assert next_monday(sunday_night) == datetime(2019, 10, 28, tzinfo=UTC)
    wednesday = datetime(2019, 10, 23, 15, 0, tzinfo=UTC)
    assert next_monday(wednesday) == datetime(2019, 10, 28, tzinfo=UTC)


@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)))
def test_next_monday_is_a_monday_midnight_within_a_week(naive: datetime) -> None:
    after = naive.replace(tzinfo=UTC)
    monday = next_monday(after)
    assert monday.weekday() == 0 and monday.time() == datetime.min.time()
    assert after < monday + timedelta(seconds=1) and monday - after <= timedelta(days=7)


def test_ranks_close_up_when_a_withdrawn_player_leaves_the_table() -> None:
    """Rule VIII.A: a withdrawn player takes no place; the players tied keep sharing theirs."""
    table = [("a", 1), ("b", 2), ("c", 2), ("d", 5), ("e", 5)]  # 3 and 4 withdrew
    assert shared_ranks(table) == [("a", 1), ("b", 2), ("c", 2), ("d", 4), ("e", 4)]


def test_the_cut_names_who_is_through_and_who_is_tied_across_it() -> None:
    """Rule III.E.4-5: 8 places; two players share the 8th with a third: all three play off."""
    ranked = [(f"p{i}", i) for i in range(1, 8)] + [("x", 8), ("y", 8), ("z", 8), ("w", 11)]
    through, tied = cut(ranked, 8)
    assert through == [f"p{i}" for i in range(1, 8)]
    assert tied == ["x", "y", "z"]
    assert cut([*ranked[:8], ("w", 9)], 8) == ([p for p, _ in ranked[:8]], [])
    assert cut(ranked[:3], 8) == (["p1", "p2", "p3"], [])


def test_the_candidates_table_names_the_challenger_and_the_runner_up() -> None:
    """Rule III.F.3: a clear first and second decide; a tie for either is left open."""
    assert candidates_tie([("a", 1), ("b", 2), ("c", 3)]) == (["a", "b"], [])
    assert candidates_tie([("a", 1), ("b", 1), ("c", 3)]) == ([], ["a", "b"])
    assert candidates_tie([("a", 1), ("b", 2), ("c", 2)]) == (["a"], ["b", "c"])
    assert candidates_tie([]) == ([], [])
