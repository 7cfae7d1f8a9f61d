"""Tests for bot.rules.eligibility (rules II.A, II.B, II.C)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.eligibility import (
    ACCOUNT_TOO_NEW,
    ALL_PROBLEMS,
    BOT_ACCOUNT,
    CLOSED_ACCOUNT,
    HARD_REFUSALS,
    NOT_FOUND,
    TD_EXCEPTION_PROBLEMS,
    TOO_FEW_GAMES,
    TOS_VIOLATION,
    AccountFacts,
    EligibilityRequirements,
    describe,
    eligibility_problems,
    is_hard_refused,
    needs_td,
)

CUTOFF = datetime(2019, 3, 1, tzinfo=UTC)
OLD = datetime(2015, 6, 1, 12, 0, tzinfo=UTC)


ELIGIBLE = AccountFacts(exists=True, created_at=OLD, rated_games_before_cutoff=100)


def good(**overrides: Any) -> AccountFacts:
    """An account that meets every requirement, with some fields overridden."""
    return replace(ELIGIBLE, **overrides)


def test_defaults_are_2019_edition() -> None:
    req = EligibilityRequirements()
    assert req.account_created_before == CUTOFF
    assert req.account_created_before.utcoffset() == timedelta(0)
    assert req.min_rated_games == 100


def test_codes_and_order() -> None:
    assert ALL_PROBLEMS == (
        NOT_FOUND,
        CLOSED_ACCOUNT,
        BOT_ACCOUNT,
        ACCOUNT_TOO_NEW,
        TOO_FEW_GAMES,
        TOS_VIOLATION,
    )
    assert len(set(ALL_PROBLEMS)) == len(ALL_PROBLEMS)
    assert HARD_REFUSALS == {NOT_FOUND, CLOSED_ACCOUNT, BOT_ACCOUNT}
    assert TD_EXCEPTION_PROBLEMS == {ACCOUNT_TOO_NEW, TOO_FEW_GAMES}


def test_eligible_account_has_no_problems() -> None:
    problems = eligibility_problems(good())
    assert problems == []
    assert not needs_td(problems)
    assert not is_hard_refused(problems)


def test_not_found_is_the_only_problem() -> None:
    facts = AccountFacts(exists=False, closed=True, is_bot=True, tos_violation=True)
    assert eligibility_problems(facts) == [NOT_FOUND]


def test_closed_is_the_only_problem() -> None:
    # A closed account has no creation date and no games: only report the closure.
    facts = AccountFacts(exists=True, closed=True, is_bot=True, tos_violation=True)
    assert eligibility_problems(facts) == [CLOSED_ACCOUNT]


def test_bot_account() -> None:
    assert eligibility_problems(good(is_bot=True)) == [BOT_ACCOUNT]


def test_tos_violation() -> None:
    assert eligibility_problems(good(tos_violation=True)) == [TOS_VIOLATION]


@pytest.mark.parametrize(
    ("created_at", "too_new"),
    [
        (CUTOFF - timedelta(microseconds=1), False),
        (CUTOFF - timedelta(minutes=1), False),
        (CUTOFF, True),  # "created prior to": the cut-off instant itself is too new
        (CUTOFF + timedelta(seconds=1), True),
        (datetime(2019, 4, 2, tzinfo=UTC), True),
        (None, True),  # unknown creation date cannot prove eligibility
    ],
)
def test_account_age_boundary(created_at: datetime | None, too_new: bool) -> None:
    problems = eligibility_problems(good(created_at=created_at))
    assert problems == ([ACCOUNT_TOO_NEW] if too_new else [])


def test_account_age_other_timezone() -> None:
    plus_one = timezone(timedelta(hours=1))
    # 2019-03-01 00:30+01:00 == 2019-02-28 23:30Z: before the cut-off.
    assert eligibility_problems(good(created_at=datetime(2019, 3, 1, 0, 30, tzinfo=plus_one))) == []
    # 2019-02-28 23:30-01:00 == 2019-03-01 00:30Z: too new.
    minus_one = timezone(timedelta(hours=-1))
    late = good(created_at=datetime(2019, 2, 28, 23, 30, tzinfo=minus_one))
    assert eligibility_problems(late) == [ACCOUNT_TOO_NEW]


@pytest.mark.parametrize(
    ("games", "too_few"),
    [(0, True), (99, True), (100, False), (101, False), (None, True)],
)
def test_games_boundary(games: int | None, too_few: bool) -> None:
    problems = eligibility_problems(good(rated_games_before_cutoff=games))
    assert problems == ([TOO_FEW_GAMES] if too_few else [])


def test_thresholds_are_parameters() -> None:
    req = EligibilityRequirements(
        account_created_before=datetime(2020, 3, 1, tzinfo=UTC), min_rated_games=50
    )
    facts = good(created_at=datetime(2019, 6, 1, tzinfo=UTC), rated_games_before_cutoff=50)
    assert eligibility_problems(facts, req) == []
    assert eligibility_problems(facts) == [ACCOUNT_TOO_NEW, TOO_FEW_GAMES]


def test_all_open_account_problems_in_order() -> None:
    facts = AccountFacts(
        exists=True,
        is_bot=True,
        tos_violation=True,
        created_at=datetime(2019, 5, 1, tzinfo=UTC),
        rated_games_before_cutoff=3,
    )
    assert eligibility_problems(facts) == [
        BOT_ACCOUNT,
        ACCOUNT_TOO_NEW,
        TOO_FEW_GAMES,
        TOS_VIOLATION,
    ]


def test_naive_created_at_is_rejected() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        eligibility_problems(good(created_at=datetime(2015, 1, 1)))


def test_routing() -> None:
    assert is_hard_refused([NOT_FOUND])
    assert is_hard_refused([CLOSED_ACCOUNT])
    assert is_hard_refused([BOT_ACCOUNT, TOS_VIOLATION])
    assert not is_hard_refused([ACCOUNT_TOO_NEW, TOO_FEW_GAMES, TOS_VIOLATION])
    assert needs_td([ACCOUNT_TOO_NEW])
    assert needs_td([TOO_FEW_GAMES])
    assert needs_td([TOS_VIOLATION])  # never decided by the bot
    assert needs_td([BOT_ACCOUNT, TOS_VIOLATION])
    assert not needs_td([BOT_ACCOUNT])
    assert not needs_td([])
    assert not is_hard_refused([])


def test_describe_every_code() -> None:
    for code in ALL_PROBLEMS:
        text = describe(code)
        assert text and "\n" not in text
        with_facts = describe(code, good(created_at=None, rated_games_before_cutoff=None))
        assert with_facts and "\n" not in with_facts


def test_describe_quotes_values() -> None:
    late = good(created_at=datetime(2019, 4, 2, 15, 0, tzinfo=UTC))
    assert describe(ACCOUNT_TOO_NEW, late) == (
        "Account created on 2019-04-02, after the cut-off 2019-03-01 00:00 UTC (rule II.A.1)."
    )
    at_cutoff = describe(ACCOUNT_TOO_NEW, good(created_at=CUTOFF))
    assert "exactly at the cut-off" in at_cutoff
    few = describe(TOO_FEW_GAMES, good(rated_games_before_cutoff=99))
    assert "99" in few and "100" in few and "II.A.2" in few
    assert "II.C.6" in describe(BOT_ACCOUNT)
    assert "II.C.1" in describe(TOS_VIOLATION)
    custom = EligibilityRequirements(min_rated_games=42)
    assert "42" in describe(TOO_FEW_GAMES, None, custom)


def test_describe_unknown_code() -> None:
    with pytest.raises(ValueError):
        describe("nope")


@given(
    exists=st.booleans(),
    closed=st.booleans(),
    is_bot=st.booleans(),
    tos=st.booleans(),
    created_at=st.none()
    | st.datetimes(
        min_value=datetime(2010, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
    ),
    games=st.none() | st.integers(min_value=0, max_value=500),
)
def test_problems_are_ordered_and_consistent(
    exists: bool,
    closed: bool,
    is_bot: bool,
    tos: bool,
    created_at: datetime | None,
    games: int | None,
) -> None:
    facts = AccountFacts(exists, closed, is_bot, tos, created_at, games)
    problems = eligibility_problems(facts)
    indexes = [ALL_PROBLEMS.index(p) for p in problems]
    assert indexes == sorted(set(indexes))  # known codes, no duplicates, in order
    if not exists:
        assert problems == [NOT_FOUND]
    elif closed:
        assert problems == [CLOSED_ACCOUNT]
    else:
        assert (BOT_ACCOUNT in problems) == is_bot
        assert (TOS_VIOLATION in problems) == tos
        assert (ACCOUNT_TOO_NEW in problems) == (created_at is None or created_at >= CUTOFF)
        assert (TOO_FEW_GAMES in problems) == (games is None or games < 100)
    assert is_hard_refused(problems) == any(p in HARD_REFUSALS for p in problems)
    assert needs_td(problems) == any(p not in HARD_REFUSALS for p in problems)
    for p in problems:
        assert describe(p, facts)
