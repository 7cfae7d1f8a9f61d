"""The announcement of a published round says what the round is: the count of matches with
the right word, the byes, and the Final as the one match it is (not "round 1 of 1")."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.features.rounds.text import round_out_text

DEADLINE = datetime(2019, 10, 6, 23, 59, 59, tzinfo=UTC)


def test_a_swiss_round_counts_its_matches_and_names_the_bye() -> None:
    pairs: list[tuple[str, str | None]] = [("Ann", "Ben"), ("Cid", "Dee"), ("Eve", None)]
    text = round_out_text("ACWC 2019", False, "Swiss", 3, 7, pairs, DEADLINE)
    assert "**ACWC 2019: Swiss round 3 of 7 is out!** 2 matches;" in text
    assert text.endswith("Bye (no opponent this round): Eve.") and "pairings" not in text


def test_one_match_is_singular() -> None:
    text = round_out_text("ACWC", False, "Tiebreak", 1, 1, [("A", "B")], DEADLINE)
    assert "1 match;" in text and "1 matches" not in text


def test_the_final_is_announced_as_the_final() -> None:
    pairs: list[tuple[str, str | None]] = [("arimakat", "CyNovak6")]
    text = round_out_text("ACWC 2019", True, "Final", 1, 1, pairs, DEADLINE)
    assert text.startswith("📣 **ACWC 2019: the Final is set!** **arimakat** vs **CyNovak6**")
    assert "round 1 of 1" not in text and "pairings" not in text


def test_a_live_scoreboard_never_says_best_of() -> None:
    """A Swiss match stops at 5.5, the Candidates play every game, the Final is 12 games plus
    extensions: "best of 10" is true of none of them."""
    from bot.features.matches.text import scoreboard

    live = scoreboard("arimakat", "CyNovak6", [], 3.5, 2.5, finished=False)
    assert live.startswith("📊 **arimakat** 3.5–2.5 **CyNovak6** (live)")
    assert "best of" not in live
    done = scoreboard("arimakat", "CyNovak6", [], 7.0, 5.0, finished=True)
    assert "(final result)" in done


def test_the_final_owes_no_offers_and_the_swiss_says_how_many() -> None:
    """Rule V.C's offers bind the weekly rounds; the Final's sessions have no such deadline
    (rule IV.C), so its message does not claim one. The count comes from the config."""
    from bot.features.matches.round_post import round_instructions
    from db.models import Round

    round_ = Round(deadline=DEADLINE)
    final = round_instructions(round_, None)
    assert "owes" not in final and "rule V.C" not in final and "session" in final
    thursday = datetime(2019, 10, 3, tzinfo=UTC)  # checked then: "by the end of Wednesday"
    swiss = round_instructions(round_, (2, thursday))
    assert "Each player owes 2 offers by" in swiss and "(rule V.C)" in swiss
    assert "(2019-10-02 23:59 UTC)" in swiss and "2019-10-03" not in swiss


def test_the_final_sets_its_own_pace() -> None:
    # rule IV.C: "The Final is played as the finalists see fit": no deadline is told
    from bot.features.matches.text import round_instructions

    text = round_instructions(datetime(2020, 3, 7, 23, 59, tzinfo=UTC), None)
    assert "must be finished" not in text and "rule IV.C" in text
    assert "`/offer`" in text and "`/accept`" in text
