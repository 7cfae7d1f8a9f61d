"""Tests for the entry decisions of bot.rules.eligibility: who is TD (rules 1.2, 1.4), which
games count (rule 2.1.2), hard refusals (rules 2.2, 2.3.6), one account per person (rule
2.3.4) and the TD's ruling on a registration (rules 2.2, 2.3.1-2.3.5)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.lichess.models import LichessGame
from bot.rules.eligibility import (
    ACCOUNT_TOO_NEW,
    BOT_ACCOUNT,
    CLOSED_ACCOUNT,
    NOT_FOUND,
    TOO_FEW_GAMES,
    TOS_VIOLATION,
    EntryHolder,
    account_hard_problems,
    counts_before_cutoff,
    double_entry,
    hard_problems,
    is_td,
    last_second_before,
    may_enter,
    needs_td,
    played_rated,
    td_decision_problem,
)
from tests.rules.test_attribution import game as attribution_game

CUTOFF = datetime(2019, 9, 1, tzinfo=UTC)
TD, ROLE = 100, 900


# --- rule 1.2 (I.B), rule 1.4 (I.D) ---------------------------------------------------------


def test_the_td_is_a_configured_user_or_a_holder_of_the_td_role() -> None:
    assert is_td(TD, [], td_user_ids=(TD,), td_role_id=None)
    assert is_td(7, [1, ROLE], td_user_ids=(TD,), td_role_id=ROLE)
    assert not is_td(7, [1, 2], td_user_ids=(TD,), td_role_id=ROLE)
    assert not is_td(7, [ROLE], td_user_ids=(TD,), td_role_id=None)
    assert not is_td(7, [], td_user_ids=(), td_role_id=ROLE)


def test_the_td_does_not_play() -> None:
    assert may_enter(is_td=False)
    assert not may_enter(is_td=True)


# --- rule 2.1.2 (II.A.2) ---------------------------------------------------------------------


def game(**changes: object) -> LichessGame:
    """A rated Antichess game Alice won five minutes before the cut-off (the attribution
    tests' game, moved to the entry rules' dates)."""
    before_cutoff = {
        "id": "g1",
        "status": "resign",
        "created_at": CUTOFF - timedelta(minutes=10),
        "last_move_at": CUTOFF - timedelta(minutes=5),
        "white_rating": 1500,
        "black_rating": 1490,
        "white_rating_diff": 8,
        "black_rating_diff": -8,
    }
    return attribution_game(**{**before_cutoff, **changes})


def test_a_game_counts_when_played_rated_by_the_player() -> None:
    assert played_rated(game(), "alice") and played_rated(game(), "BOB")
    assert not played_rated(game(), "carol")
    assert not played_rated(game(rated=False), "alice")
    assert not played_rated(game(status="aborted"), "alice")
    assert not played_rated(game(status="noStart"), "alice")
    assert not played_rated(game(white_rating_diff=None), "alice")
    assert played_rated(game(white_rating_diff=None), "bob")


def test_played_before_the_cut_off_is_the_last_move_strictly_before_it() -> None:
    assert counts_before_cutoff(game(last_move_at=CUTOFF - timedelta(seconds=1)), "alice", CUTOFF)
    assert not counts_before_cutoff(game(last_move_at=CUTOFF), "alice", CUTOFF)
    # started before the cut-off, finished after: not played before it
    late = game(created_at=CUTOFF - timedelta(minutes=3), last_move_at=CUTOFF + timedelta(1))
    assert not counts_before_cutoff(late, "alice", CUTOFF)
    assert not counts_before_cutoff(game(rated=False), "alice", CUTOFF)
    with pytest.raises(ValueError, match="timezone-aware"):
        counts_before_cutoff(game(), "alice", CUTOFF.replace(tzinfo=None))


def test_the_last_whole_second_before_an_instant() -> None:
    assert last_second_before(CUTOFF) == CUTOFF - timedelta(seconds=1)
    assert last_second_before(CUTOFF + timedelta(microseconds=500)) == CUTOFF


@given(st.datetimes(timezones=st.just(UTC)))
def test_the_last_second_is_whole_and_before(moment: datetime) -> None:
    second = last_second_before(moment)
    assert second.microsecond == 0 and second < moment <= second + timedelta(seconds=1)


# --- rule 2.2 (II.B), rule 2.3.6 (II.C.6) ----------------------------------------------------


def test_hard_problems_are_refused_the_rest_go_to_the_td() -> None:
    problems = [BOT_ACCOUNT, ACCOUNT_TOO_NEW, TOO_FEW_GAMES, TOS_VIOLATION]
    assert hard_problems(problems) == [BOT_ACCOUNT]
    assert needs_td(problems)
    assert hard_problems([NOT_FOUND]) == [NOT_FOUND]
    assert hard_problems([ACCOUNT_TOO_NEW, TOS_VIOLATION]) == []


def test_before_ownership_a_closed_or_bot_account_is_refused() -> None:
    assert account_hard_problems(closed=True, is_bot=True) == [CLOSED_ACCOUNT]
    assert account_hard_problems(closed=False, is_bot=True) == [BOT_ACCOUNT]
    assert account_hard_problems(closed=False, is_bot=False) == []


# --- rule 2.3.4 (II.C.4) ---------------------------------------------------------------------


def holder(lichess_id: str, discord_id: int | None, state: str | None) -> EntryHolder:
    return EntryHolder(lichess_id=lichess_id, discord_id=discord_id, pre_seeded=False, state=state)


def entry(mine: EntryHolder | None, theirs: EntryHolder | None) -> str | None:
    return double_entry(discord_id=1, lichess_id="alice", mine=mine, theirs=theirs)


def test_a_first_entry_is_allowed() -> None:
    assert entry(None, None) is None


@pytest.mark.parametrize("state", ["pending", "approved"])
def test_a_second_account_of_a_registered_person_is_refused(state: str) -> None:
    assert entry(holder("alice2", 1, state), None) == "second_account"


def test_after_a_rejection_no_other_account_may_enter() -> None:
    assert entry(holder("alice2", 1, "rejected"), None) == "rejected_with_other_account"


def test_after_withdrawing_another_account_may_enter() -> None:
    assert entry(holder("alice2", 1, "withdrawn"), None) is None
    assert entry(holder("alice2", 1, None), None) is None


def test_an_account_of_another_user_is_refused() -> None:
    assert entry(None, holder("alice", 2, None)) == "account_of_another_user"
    assert entry(None, holder("alice", 2, "withdrawn")) == "account_of_another_user"


def test_the_same_account_again() -> None:
    mine = holder("alice", 1, "pending")
    assert entry(mine, mine) == "already_registered"
    assert entry(None, holder("alice", None, "approved")) == "already_registered"
    assert entry(None, holder("alice", 1, "rejected")) == "rejected"
    assert entry(None, holder("alice", 1, "withdrawn")) is None


def test_a_pre_seeded_account_does_not_register() -> None:
    seeded = EntryHolder(lichess_id="alice", discord_id=None, pre_seeded=True, state=None)
    assert entry(None, seeded) == "pre_seeded"


# --- rule 2.2 (II.B), rules 2.3.1-2.3.5 (II.C.1-5): the TD's ruling ----------------------------


def test_the_tds_ruling() -> None:
    def problem(state: str, approve: bool, problems: list[str], reason: str | None) -> str | None:
        return td_decision_problem(state=state, approve=approve, problems=problems, reason=reason)

    assert problem("approved", True, [], "ok") == "already_decided"
    assert problem("rejected", False, [], "no") == "already_decided"
    assert problem("pending", True, [TOO_FEW_GAMES], None) == "exception_needs_reason"
    assert problem("pending", True, [TOO_FEW_GAMES], "played 99 + many casual") is None
    assert problem("pending", True, [], None) is None
    assert problem("pending", False, [TOS_VIOLATION], None) == "rejection_needs_comment"
    assert problem("pending", False, [TOS_VIOLATION], "engine mark in 2018") is None
