"""Tests for bot.rules.attribution: which Lichess games count for a match, and its end."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.lichess.models import LichessGame
from bot.rules.attribution import judge, parse_game_id, result_a, split_at_end

AGREED = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)
EARLIEST = AGREED - timedelta(minutes=15)


def game(**changes: object) -> LichessGame:
    base = LichessGame(
        id="abcdEFGH",
        rated=True,
        variant="antichess",
        perf="antichess",
        status="variantEnd",
        created_at=AGREED + timedelta(minutes=1),
        last_move_at=AGREED + timedelta(minutes=8),
        white_id="alice",
        black_id="bob",
        white_rating=2000,
        black_rating=2000,
        white_rating_diff=5,
        black_rating_diff=-5,
        winner="white",
        clock_initial=120,
        clock_increment=5,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def verdict(g: LichessGame, clock: tuple[int, int] = (120, 5)):  # type: ignore[no-untyped-def]
    return judge(
        g, player_a="Alice", player_b="Bob", variant="antichess", clock=clock, earliest=EARLIEST
    )


def test_a_right_game_counts_from_the_first_players_side() -> None:
    assert verdict(game()).counts and verdict(game()).result_a == 1.0
    swapped = game(white_id="bob", black_id="alice")
    assert verdict(swapped).result_a == 0.0
    draw = game(status="draw", winner=None)
    assert verdict(draw).result_a == 0.5
    assert result_a(game(winner="black"), "bob") == 1.0


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"black_id": "carol"}, "not a game between"),
        ({"white_id": None}, "anonymous"),
        ({"variant": "standard"}, "not antichess"),
        ({"rated": False}, "casual"),
        ({"clock_initial": 180}, "3+5"),
        ({"clock_increment": 0}, "2+0, not 2+5"),
        ({"clock_initial": None, "clock_increment": None}, "correspondence"),
        ({"created_at": EARLIEST - timedelta(seconds=1)}, "before the match"),
        ({"status": "aborted", "winner": None}, "not played"),
        ({"status": "noStart"}, "not played"),
    ],
)
def test_wrong_games_never_count(changes: dict[str, object], words: str) -> None:
    v = verdict(game(**changes))
    assert not v.counts and not v.pending
    assert v.reason is not None and words in v.reason


def test_unfinished_game_is_pending() -> None:
    for status in ("created", "started"):
        v = verdict(game(status=status, winner=None))
        assert not v.counts and v.pending and v.reason == "it is not finished yet"


def test_created_exactly_at_the_margin_counts() -> None:
    assert verdict(game(created_at=EARLIEST)).counts


def test_final_tie_extension_clock_is_a_parameter() -> None:
    blitz0 = game(clock_increment=0)
    assert verdict(blitz0, clock=(120, 0)).counts
    assert not verdict(game(), clock=(120, 0)).counts


def test_timeout_and_cheat_count_but_are_flagged() -> None:
    for status in ("timeout", "cheat"):
        v = verdict(game(status=status, winner="black"))
        assert v.counts and v.flag == status and v.result_a == 0.0
    assert verdict(game(status="outoftime")).flag is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://lichess.org/abcdEFGH", "abcdEFGH"),
        ("lichess.org/abcdEFGH/black", "abcdEFGH"),
        ("https://lichess.org/abcdEFGHijkl", "abcdEFGH"),
        ("<https://lichess.org/abcdEFGH#34>", "abcdEFGH"),
        ("http://www.lichess.org/abcdEFGH?foo=1", "abcdEFGH"),
        ("abcdEFGH", "abcdEFGH"),
        ("  abcdEFGHwxyz ", "abcdEFGH"),
        ("https://lichess.org/@/alice", None),
        ("https://example.org/abcdEFGH", None),
        ("https://lichess.org/study/abcdEFGH", None),
        ("abcdEFG", None),
        ("abcdEFGHi", None),
        ("", None),
    ],
)
def test_parse_game_id(text: str, expected: str | None) -> None:
    assert parse_game_id(text) == expected


def test_split_swiss_stops_at_5_5() -> None:
    results = [1, 1, 1, 1, 1, 0.5, 1, 0]
    assert split_at_end(results, games=10, early_stop=True) == (6, True)
    assert split_at_end(results[:5], games=10, early_stop=True) == (5, False)


def test_split_candidates_plays_all_ten() -> None:
    results = [1.0] * 6 + [0.0] * 4 + [1.0]
    assert split_at_end(results, games=10, early_stop=False) == (10, True)
    assert split_at_end(results[:7], games=10, early_stop=False) == (7, False)


@given(st.lists(st.sampled_from([0.0, 0.5, 1.0]), max_size=25), st.booleans())
def test_split_counts_a_prefix_that_ends_exactly_once(results: list[float], early: bool) -> None:
    n, over = split_at_end(results, games=10, early_stop=early)
    assert n <= min(len(results), 10)
    assert n == len(results) or over
    # no shorter prefix was already over
    _, over_short = split_at_end(results[: max(n - 1, 0)], games=10, early_stop=early)
    assert not over_short or n == 0
