"""The stage rules over plain values (bot.rules.stages): round weeks, shared ranks, the cut
and the Candidates table, with worked examples from the rules text's situations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.candidates import CandidateStanding
from bot.rules.stages import (
    DeadlineStep,
    FinalStart,
    MondayStep,
    RoundOneBlock,
    RoundStep,
    ScoreProblem,
    TieState,
    after_result,
    after_tiebreak,
    at_deadline,
    break_tie,
    candidates_field,
    candidates_outcome,
    candidates_tie,
    cut,
    final_players,
    final_window,
    next_monday,
    next_stage,
    on_monday,
    pool_tie,
    robin_ranking,
    round_one_block,
    round_window,
    settle_absent,
    shared_ranks,
    swiss_qualifiers,
    td_score_problem,
)
from bot.rules.swiss_table import Standing

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


# --- what follows a result, the Monday, the deadline (rules 3.2, 4.3-4.6) -------------------


def test_a_result_closes_the_round_only_when_every_match_is_decided() -> None:
    """Rule 4.5 (IV.E): earlier than Monday when all matches finish; the last round of a
    stage ends it (rule 3.2, III.B); a round robin's next round follows at once (IV.B)."""

    def step(stage: str, number: int, open_: int, confirm: bool = False) -> RoundStep:
        return after_result(stage, number, 5, open_, confirm_before_publish=confirm)

    assert step("swiss", 2, 1) is RoundStep.OPEN
    assert step("swiss", 2, 0) is RoundStep.PAIR_NEXT
    assert step("swiss", 2, 0, True) is RoundStep.TD_PUBLISHES
    assert step("swiss", 5, 0) is RoundStep.STAGE_OVER
    assert step("candidates", 2, 0, True) is RoundStep.ROBIN_NEXT
    assert step("tiebreak", 5, 0) is RoundStep.STAGE_OVER
    with pytest.raises(ValueError, match="not played in rounds"):
        step("final", 1, 0)


def test_the_monday_pairs_only_a_complete_swiss_round_not_yet_paired() -> None:
    """Rule 4.5 (IV.E): on Monday the next round comes, unless it came early, results are
    missing (not paired on guesses), or the TD publishes."""

    def monday(stage: str = "swiss", **changes: object) -> MondayStep:
        args: dict[str, object] = {
            "stage_running": True,
            "next_round_exists": False,
            "open_matches": 0,
            "confirm_before_publish": False,
        }
        args.update(changes)
        return on_monday(stage, **args)  # type: ignore[arg-type]

    assert monday() is MondayStep.PAIR
    assert monday(open_matches=2) is MondayStep.WAIT_FOR_RESULTS
    assert monday(next_round_exists=True) is MondayStep.NOTHING
    assert monday(stage_running=False) is MondayStep.NOTHING
    assert monday(confirm_before_publish=True) is MondayStep.NOTHING
    assert monday("candidates", open_matches=2) is MondayStep.NOTHING


def test_the_stages_follow_in_the_order_of_the_text() -> None:
    """Rule 3.2 (III.B): Swiss, Candidates, Final; tiebreak matches between the Swiss and
    the Candidates when a tie crosses the cut (rule 3.5.5)."""
    assert next_stage("swiss") == "candidates"
    assert next_stage("swiss", tie_across_cut=True) == "tiebreak"
    assert next_stage("tiebreak") == "candidates"
    assert next_stage("candidates") == "final"
    with pytest.raises(ValueError):
        next_stage("final")


def test_the_td_hears_of_open_matches_at_the_deadline_and_of_an_unfinished_final() -> None:
    """Rules 4.6 (IV.F) and 4.3 (IV.C)."""
    assert at_deadline("swiss", 0) is DeadlineStep.NOTHING
    assert at_deadline("candidates", 2) is DeadlineStep.OPEN_MATCHES
    assert at_deadline("final", 1) is DeadlineStep.FINAL_UNFINISHED
    start = datetime(2019, 12, 2, tzinfo=UTC)
    assert final_window(start, 90) == (start, datetime(2020, 2, 29, 23, 59, 59, tzinfo=UTC))


def test_round_one_waits_for_a_final_field() -> None:
    """Rule 4.4 (IV.D): once, registration closed, every registration decided."""
    assert round_one_block(started=False, registration_open=False, pending=0) is None
    assert round_one_block(started=True, registration_open=True, pending=3) is RoundOneBlock.STARTED
    assert (
        round_one_block(started=False, registration_open=True, pending=3)
        is RoundOneBlock.REGISTRATION_OPEN
    )
    assert round_one_block(started=False, registration_open=False, pending=1) is (
        RoundOneBlock.PENDING
    )


# --- who plays the next stage (rules 3.3, 3.4, 3.5.4, 3.5.5, 3.6.3) -------------------------


def row(player: str, rank: int, *, withdrawn: bool = False) -> Standing:
    return Standing(player, 0.0, 0, 0.0, rank, rank, 0, (), withdrawn)


def test_the_swiss_qualifiers_and_the_tie_across_the_last_place() -> None:
    """Rule 3.5.4 (III.E.4): the best three; a tie across third place plays off (3.5.5);
    a withdrawn player takes no place (rule 8.1)."""
    clear = [row("a", 1), row("b", 2), row("c", 3), row("d", 4)]
    assert swiss_qualifiers(clear, 3) == (["a", "b", "c"], [])
    tied = [row("a", 1), row("b", 2), row("c", 3), row("d", 3), row("e", 5)]
    assert swiss_qualifiers(tied, 3) == (["a", "b"], ["c", "d"])
    inside = [row("a", 1), row("b", 1), row("c", 3), row("d", 4)]
    assert swiss_qualifiers(inside, 3) == (["a", "b", "c"], [])
    left = [row("a", 1), row("x", 2, withdrawn=True), row("b", 3), row("c", 3), row("d", 5)]
    assert swiss_qualifiers(left, 3) == (["a", "b", "c"], [])
    assert swiss_qualifiers(clear[:2], 3) == (["a", "b"], [])


def cand(player: str, rank: int) -> CandidateStanding:
    return CandidateStanding(player, 0.0, 0.0, rank)


def test_the_candidates_outcome_names_the_challenger_or_leaves_a_tie_to_the_td() -> None:
    """Rule 3.6.3 (III.F.3), with `winner_and_runner_up`; a player who left takes no place
    (rule 8.2)."""
    assert candidates_outcome([cand("a", 1), cand("b", 2), cand("c", 3)], set()) == TieState(
        ["a", "b"], [], 0
    )
    assert candidates_outcome([cand("a", 1), cand("b", 1), cand("c", 3)], set()) == TieState(
        [], ["a", "b"], 1
    )
    assert candidates_outcome([cand("a", 1), cand("b", 2), cand("c", 2)], set()) == TieState(
        ["a"], ["b", "c"], 1
    )
    assert candidates_outcome([cand("x", 1), cand("a", 2), cand("b", 3)], {"x"}) == TieState(
        ["a", "b"], [], 0
    )
    assert candidates_outcome([cand("a", 1)], set()) == TieState(["a"], [], 0)
    assert candidates_outcome([], set()) == TieState([], [], 0)


def test_the_td_breaks_a_tie_place_by_place() -> None:
    """Rules 3.5.5 and 3.6.3: the TD picks; the last ones fill the places left by
    themselves; in the Candidates the Challenger first, then the runner-up."""
    three_for_two = TieState(["a"], ["b", "c", "d"], 2)
    after = break_tie(three_for_two, "c", candidates=False)
    assert after == TieState(["a", "c"], ["b", "d"], 1) and not after.done
    assert break_tie(after, "d", candidates=False) == TieState(["a", "c", "d"], [], 0)
    two_for_one = TieState([], ["b", "c"], 1)
    assert break_tie(two_for_one, "b", candidates=False).done
    # the Candidates: three tied for first; the Challenger, then the runner-up
    first = break_tie(TieState([], ["a", "b", "c"], 1), "b", candidates=True)
    assert first == TieState(["b"], ["a", "c"], 1)
    assert break_tie(first, "c", candidates=True) == TieState(["b", "c"], [], 0)
    assert break_tie(TieState([], ["a", "b"], 1), "a", candidates=True) == TieState(
        ["a", "b"], [], 0
    )
    with pytest.raises(ValueError, match="not part of the tie"):
        break_tie(two_for_one, "z", candidates=False)


def test_after_tiebreak_matches_the_places_left_are_filled_or_left_to_the_td() -> None:
    """Rule 3.5.5 (III.E.5): two places for three players."""
    assert after_tiebreak([("a", 1), ("b", 2), ("c", 3)], 2) == TieState(["a", "b"], [], 0)
    assert after_tiebreak([("a", 1), ("b", 2), ("c", 2)], 2) == TieState(["a"], ["b", "c"], 1)


def test_the_candidates_and_the_final_start_with_the_pre_seeded_players() -> None:
    """Rules 3.4 (III.D), 3.3 (III.C), 8.3.1 (VIII.C.1)."""
    assert candidates_field(["p", "q", "r"], ["ogul1"]) == ["p", "q", "r", "ogul1"]
    assert candidates_field(["p", "ogul1"], ["ogul1"]) == ["p", "ogul1"]
    assert final_players("arimakat", "p", "q") == FinalStart("arimakat", "p", False)
    assert final_players(None, "p", "q") == FinalStart("q", "p", True)
    assert final_players(None, "p", None) is None


def test_a_round_robin_ranking_leaves_out_who_left_and_a_new_match_of_theirs_is_settled() -> None:
    """Rules 3.6.3 and 8.2 (VIII.B): the ranking closes up; a new match of a player who
    left is disregarded in the Candidates and goes to the opponent in tiebreak matches."""
    table = [cand("a", 1), cand("x", 2), cand("b", 3), cand("c", 3)]
    assert robin_ranking(table, {"x"}) == [("a", 1), ("b", 2), ("c", 2)]
    assert settle_absent("candidates", "a", "x", {"x"}) == (True, None)
    assert settle_absent("tiebreak", "a", "x", {"x"}) == (True, "a")
    assert settle_absent("tiebreak", "x", "b", {"x"}) == (True, "b")
    assert settle_absent("tiebreak", "x", "y", {"x", "y"}) == (True, None)
    assert settle_absent("candidates", "a", "b", {"x"}) == (False, None)


def test_a_td_score_must_end_the_match_by_its_stage() -> None:
    """Rule 1.3 (I.C): the TD's score stands if it ends the match (rules 3.5.1, 3.6.2)."""

    def problem(stage: str, a: float, b: float, players: int = 4) -> ScoreProblem | None:
        return td_score_problem(
            stage, a, b, games=10, tiebreak_players=players, candidates_early_stop=False
        )

    assert problem("swiss", 6, 4) is None
    assert problem("swiss", 5.5, 0) is None  # a side has more than half
    assert problem("final", 6, 4) == ScoreProblem("game_by_game")
    assert problem("swiss", 10.5, 0) == ScoreProblem("points", value=10.5)
    assert problem("swiss", 0.25, 0) == ScoreProblem("points", value=0.25)
    assert problem("swiss", 6, 6) is not None and problem("swiss", 6, 6).what == "impossible"  # type: ignore[union-attr]
    assert problem("candidates", 5.5, 0) == ScoreProblem("unfinished", early_stop=False)
    assert problem("tiebreak", 5.5, 0, players=2) is None
    assert problem("tiebreak", 5.5, 0, players=3) == ScoreProblem("unfinished")
    assert problem("swiss", 3, 2) == ScoreProblem("unfinished", early_stop=True)


@given(st.lists(st.integers(min_value=1, max_value=6), min_size=1, max_size=12), st.integers(1, 8))
def test_the_swiss_qualifiers_agree_with_the_cut(ranks: list[int], places: int) -> None:
    """The qualifiers through `tiebreak_groups` are the cut of the shared ranks (property)."""
    ranks.sort()
    table = [row(f"p{i}", r) for i, r in enumerate(ranks)]
    # ranks as a table gives them: shared, then skipping (1, 2, 2, 4)
    shared = shared_ranks([(t.player, t.rank) for t in table])
    table = [row(p, r) for p, r in shared]
    assert swiss_qualifiers(table, places) == cut(shared, places)


# --- a pool's places that move on (2020-2024) ------------------------------------------------


def test_pool_tie_leaves_no_tie_below_the_places_that_move_on() -> None:
    ranked = [("a", 1), ("b", 2), ("c", 3), ("d", 3)]
    assert pool_tie(ranked, {1, 2}) == TieState(["a", "b", "c", "d"], [], 0)


def test_pool_tie_on_a_moving_place_is_the_tds() -> None:
    ranked = [("a", 1), ("b", 2), ("c", 2), ("d", 2)]
    assert pool_tie(ranked, {1, 2}) == TieState(["a"], ["b", "c", "d"], 1)
    # the TD picked c for place 2: the rest follow in the table's order
    assert pool_tie(ranked, {1, 2}, ["a", "c"]) == TieState(["a", "c", "b", "d"], [], 0)


def test_pool_tie_for_first_orders_every_moving_place() -> None:
    ranked = [("a", 1), ("b", 1), ("c", 1), ("d", 4)]
    assert pool_tie(ranked, {1, 2}) == TieState([], ["a", "b", "c"], 2)
