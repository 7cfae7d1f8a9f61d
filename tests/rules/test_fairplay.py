"""Fair-play rules (VII): link checks, report state moves, the public-accusation heuristic."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.fairplay import (
    STATES,
    close_names,
    find_accusation,
    has_keyword,
    link_problems,
    mark_leave_reason,
    mark_refusal,
    new_account_mark,
    split_links,
    transition_problem,
)

ALIASES = {"alice": "Alice", "bob": "Bob", "<@102>": "Bob"}


def test_links_split_on_spaces_commas_and_lines() -> None:
    text = "https://lichess.org/abc, https://lichess.org/def\n<https://www.lichess.org/ghi>"
    assert split_links(text) == [
        "https://lichess.org/abc",
        "https://lichess.org/def",
        "https://www.lichess.org/ghi",
    ]
    assert split_links("   ") == []


@pytest.mark.parametrize(
    "link",
    [
        "https://lichess.org/abcd1234",
        "https://lichess.org/abcd1234/black#42",
        "http://lichess.org/@/Bob/all",
        "https://www.lichess.org/study/xyz",
    ],
)
def test_lichess_links_pass(link: str) -> None:
    assert link_problems([link]) == []


@pytest.mark.parametrize(
    "link",
    [
        "https://chess.com/game/1",
        "lichess.org/abcd1234",
        "https://lichess.org.evil.com/abc",
        "https://evil.com/?https://lichess.org/abc",
        "javascript:alert(1)",
    ],
)
def test_other_links_fail(link: str) -> None:
    assert link_problems([link]) == [link]


@pytest.mark.parametrize(
    ("current", "new", "ok"),
    [
        ("open", "investigating", True),
        ("open", "dismissed", True),
        ("open", "upheld", True),
        ("investigating", "upheld", True),
        ("investigating", "open", True),
        ("dismissed", "open", True),
        ("dismissed", "upheld", True),
        ("open", "open", False),
        ("upheld", "dismissed", False),
        ("upheld", "open", False),
        ("open", "guilty", False),
    ],
)
def test_transitions(current: str, new: str, ok: bool) -> None:
    assert (transition_problem(current, new) is None) is ok


@given(st.sampled_from(STATES), st.sampled_from(STATES))
def test_upheld_is_final_and_no_state_moves_to_itself(current: str, new: str) -> None:
    problem = transition_problem(current, new)
    if current == "upheld" or current == new:
        assert problem is not None
    else:
        assert problem is None


def test_close_names_suggest_typos_and_prefixes() -> None:
    names = ["Alice", "Bob", "Carolyn", "Dave"]
    assert close_names("alcie", names)[0] == "Alice"
    assert close_names("caro", names) == ["Carolyn"]
    assert close_names("zzz", names) == []


@pytest.mark.parametrize(
    ("message", "names"),
    [
        ("bob is a cheater", ("Bob",)),
        ("I think Alice used an engine in game 3", ("Alice",)),
        ("<@102> plays like stockfish", ("Bob",)),
        ("<@!102> plays like stockfish", ("Bob",)),
        ("alice and bob are boosting each other", ("Alice", "Bob")),
        ("BOB CHEATS", ("Bob",)),
        ("Bob's moves look like SF to me", ("Bob",)),
    ],
)
def test_accusations_are_found(message: str, names: tuple[str, ...]) -> None:
    found = find_accusation(message, ALIASES)
    assert found is not None and found.names == names


@pytest.mark.parametrize(
    "message",
    [
        "good game bob, well played",
        "stockfish analysis is fun",  # no one named
        "alice " + "and then many more words were said here " * 2 + "about engines",  # far
        "bobby is a cheater",  # a different word than a participant's name
        "",
    ],
)
def test_innocent_messages_are_not_flagged(message: str) -> None:
    assert find_accusation(message, ALIASES) is None


def test_keyword_prefilter() -> None:
    assert has_keyword("Is this an ENGINE?")
    assert not has_keyword("nice game")


@given(st.text(max_size=200))
def test_heuristic_never_crashes_and_names_only_participants(message: str) -> None:
    found = find_accusation(message, ALIASES)
    if found is not None:
        assert set(found.names) <= set(ALIASES.values()) and found.keywords


def test_transition_problems_name_the_reason() -> None:
    assert transition_problem("open", "guilty") == "unknown_state"
    assert transition_problem("open", "open") == "same_state"
    assert transition_problem("upheld", "dismissed") == "upheld_is_final"


@pytest.mark.parametrize(
    ("tos", "closed", "marked", "disqualified", "alert"),
    [
        (True, False, False, False, True),
        (False, True, False, False, True),
        (False, False, False, False, False),
        (True, False, True, False, False),
        (True, True, False, True, False),
    ],
)
def test_a_lichess_mark_during_the_championship_is_shown_to_the_td_once(
    tos: bool, closed: bool, marked: bool, disqualified: bool, alert: bool
) -> None:
    """Rule 7.3 (VII.C)."""
    found = new_account_mark(
        tos_violation=tos, closed=closed, already_marked=marked, disqualified=disqualified
    )
    assert found is alert


def test_a_mark_disqualifies_and_only_an_engine_mark_adjudicates() -> None:
    """Rule 7.3 (VII.C), rule 8.1.2 (VIII.A.2)."""
    assert mark_refusal(exists=False, disqualified=False) == "no_player"
    assert mark_refusal(exists=True, disqualified=True) == "already_disqualified"
    assert mark_refusal(exists=True, disqualified=False) is None
    assert mark_leave_reason(engine=True) == "engine"
    assert mark_leave_reason(engine=False) == "booster"
