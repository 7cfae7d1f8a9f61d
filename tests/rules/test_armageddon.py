"""Tests for bot.rules.armageddon: who plays White after the bids (III.G.6; 2020-2024)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules import final
from bot.rules.armageddon import (
    ArmageddonColours,
    Chooser,
    EqualBids,
    OverBid,
    armageddon_colours,
    white_over_bid,
)

PREV, RPS = EqualBids.PREVIOUS_CHAMPION, EqualBids.ROCK_PAPER_SCISSORS


def test_the_rule_strings() -> None:
    assert [r.value for r in EqualBids] == ["previous_champion", "rock_paper_scissors"]


@pytest.mark.parametrize("rule", [PREV, RPS])
def test_the_lower_bid_plays_white(rule: EqualBids) -> None:
    assert armageddon_colours(60, 90, equal_bids=rule) == ArmageddonColours("a", "b", None, False)
    assert armageddon_colours(90, 60, equal_bids=rule) == ArmageddonColours("b", "a", None, False)
    assert armageddon_colours(1, 180, equal_bids=rule).white == "a"
    # A choice is not read when the bids decide.
    assert armageddon_colours(179, 180, equal_bids=rule, choice="b").white == "a"


def test_2019_equal_bids_give_white_to_the_previous_champion() -> None:
    # III.G.6.c: "the 2018 World Champion gets White".
    assert armageddon_colours(100, 100, equal_bids=PREV, previous_champion="a") == (
        ArmageddonColours("a", "b", None, True)
    )
    assert armageddon_colours(100, 100, equal_bids=PREV, previous_champion="b").white == "b"
    # The TD's word cannot overrule the text.
    assert armageddon_colours(100, 100, equal_bids=PREV, previous_champion="b", choice="a") == (
        ArmageddonColours("b", "a", None, True)
    )


def test_2019_equal_bids_without_the_previous_champion_need_the_td() -> None:
    assert armageddon_colours(100, 100, equal_bids=PREV) == ArmageddonColours(
        None, None, Chooser.TD, True
    )
    assert armageddon_colours(100, 100, equal_bids=PREV, choice="b").white == "b"


def test_2020_equal_bids_wait_for_the_rock_paper_scissors_winner() -> None:
    open_ = armageddon_colours(45, 45, equal_bids=RPS, previous_champion="a")
    assert open_ == ArmageddonColours(None, None, Chooser.TD, True)  # no champion's privilege
    found = armageddon_colours(45, 45, equal_bids=RPS, previous_champion="a", choice="b")
    assert (found.white, found.black) == ("b", "a")


@pytest.mark.parametrize(
    ("a", "b"), [(0, 60), (60, 181), (-5, 60), (60.0, 60), (True, 60), (60, "60"), (60, None)]
)
def test_bad_bids_raise(a: object, b: object) -> None:
    for x, y in ((a, b), (b, a)):
        with pytest.raises(ValueError):
            armageddon_colours(x, y, equal_bids=RPS)  # type: ignore[arg-type]


def test_black_clock_bounds_the_bids_and_bad_arguments_raise() -> None:
    assert armageddon_colours(150, 149, equal_bids=RPS, black_s=150).white == "b"
    with pytest.raises(ValueError, match=r"1\.\.150 s"):
        armageddon_colours(151, 60, equal_bids=RPS, black_s=150)
    with pytest.raises(ValueError):
        armageddon_colours(60, 60, equal_bids=PREV, previous_champion="champion")
    with pytest.raises(ValueError):
        armageddon_colours(60, 60, equal_bids=RPS, choice="white")
    with pytest.raises(ValueError):
        armageddon_colours(60, 60, equal_bids="coin_toss")  # type: ignore[arg-type]


bid = st.integers(min_value=1, max_value=180)


@given(bid, bid, st.sampled_from([PREV, RPS]), st.sampled_from(["a", "b", None]))
def test_white_never_bid_more_than_black(
    x: int, y: int, rule: EqualBids, champ: str | None
) -> None:
    found = armageddon_colours(x, y, equal_bids=rule, previous_champion=champ, choice="a")
    bids = {"a": x, "b": y}
    assert found.white is not None and found.black is not None
    assert {found.white, found.black} == {"a", "b"}
    assert bids[found.white] <= bids[found.black]
    assert found.equal_bids == (x == y)


@given(bid, bid)
def test_the_2019_final_delegates_with_the_champion_as_a(x: int, y: int) -> None:
    white = armageddon_colours(x, y, equal_bids=PREV, previous_champion="a").white
    assert final.armageddon_white(x, y) == ("champion" if white == "a" else "challenger")


# --- White within the bid, from Lichess's clock record ----------------------------------------


def test_white_over_the_bid_is_found_at_whites_first_reading_below() -> None:
    # bid 1:56 against Black's 3:00: White must stay at or above 1:04 = 6,400 cs.
    # White's readings are the even places: 17,000, 9,000, 6,399 (move 3), 6,000.
    record = [17_000, 18_000, 9_000, 100, 6_399, 50, 6_000]
    over = white_over_bid(record, black_s=180, white_bid_s=116)
    assert over == OverBid(move=3, left_cs=6_399, limit_cs=6_400)


def test_white_at_the_limit_or_black_low_is_fine() -> None:
    # 6,400 is not below 6,400; Black's own low clock (odd places) is Black's business
    assert white_over_bid([6_400, 1, 6_400, 0], black_s=180, white_bid_s=116) is None
    assert white_over_bid([], black_s=180, white_bid_s=116) is None


def test_a_bid_outside_blacks_clock_is_refused() -> None:
    with pytest.raises(ValueError):
        white_over_bid([100], black_s=180, white_bid_s=0)
    with pytest.raises(ValueError):
        white_over_bid([100], black_s=180, white_bid_s=181)
