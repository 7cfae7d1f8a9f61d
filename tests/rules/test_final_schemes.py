"""Tests for bot.rules.final_schemes: every edition's final matches (2019-2024 rules)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules import final, final_schemes
from bot.rules.final import ClockChange, FinalFormat, FinalScheme
from bot.rules.final_schemes import (
    FINAL_2020,
    FINAL_2021,
    GRAND_FINAL_2022,
    KNOCK_OUT_2020,
    SEMIFINAL_2021,
    THIRD_PLACE_2022,
    status,
    turn_after,
)

W, D, L = 1.0, 0.5, 0.0  # from side a's ("champion") point of view
BOTH = {"champion", "challenger"}
BASE, TIEBREAK = (120, 5), (120, 0)


def test_the_scheme_strings_and_the_2019_defaults() -> None:
    assert [s.value for s in FinalScheme] == ["lead_by_two", "tiebreak_games", "week_repeats"]
    assert [c.value for c in ClockChange] == ["at_equal_score", "after_lead_rule_games"]
    fmt = FinalFormat()
    assert (fmt.scheme, fmt.clock_change) == ("lead_by_two", "at_equal_score")
    assert final.FINAL_2019 == fmt


# --- lead_by_two: 2019 and 2020 -------------------------------------------------------------


def test_2019_final_level_after_24_goes_on_at_2_0() -> None:
    twelve_all = [W, L] * 12  # 12-12 after 24
    s = status(twelve_all, final.FINAL_2019)
    assert (s.winner, s.next_game) == (None, "2+0")
    assert turn_after(twelve_all, final.FINAL_2019).kind == final.LEAD_RULE_DROPPED


def test_2020_final_after_24() -> None:
    # 11-11 after 22, then two wins: 13-11 after 24. After 23 (12-11) 12-12 was still possible.
    games = [W, L] * 11 + [W, W]
    assert status(games[:23], FINAL_2020).winner is None
    assert status(games, FINAL_2020).winner == "champion"
    # 12.5-11.5 after 24: any lead wins once 24 are played (the reading kept from 2019).
    assert status([W, L] * 11 + [W, D], FINAL_2020).winner == "champion"
    # 12-12 after 24: the restriction is dropped and the clock becomes 3+0.
    level = [W, L] * 12
    s = status(level, FINAL_2020)
    assert (s.winner, s.next_game) == (None, "3+0")
    assert turn_after(level, FINAL_2020).kind == final.LEAD_RULE_DROPPED
    assert final_schemes.next_game_clock(level, FINAL_2020, base=BASE, tiebreak=TIEBREAK) == (
        TIEBREAK
    )
    assert status([*level, D, D], FINAL_2020).next_game == "3+0"  # 13-13 after 26: 3+0 again
    assert status([D] * 30, FINAL_2020).next_game == "armageddon"


@given(st.lists(st.sampled_from([W, D, L]), max_size=30))
def test_the_two_clock_change_modes_play_the_same_games(games: list[float]) -> None:
    """Undecided after 24 means level (any lead wins there), so both texts give every game
    the same clock; only the tiebreak clock's name differs between the editions."""
    modes = [FinalFormat(clock_change=mode) for mode in ClockChange]
    try:
        found = [status(games, fmt) for fmt in modes]
    except ValueError:
        return  # results after the decision
    assert found[0] == found[1]


# --- tiebreak_games: 2022-2024 finals, the Semifinals, the 2020 Knock-Out --------------------


def test_2024_grand_final_tied_goes_to_four_tiebreak_games_then_armageddon() -> None:
    six_all = [W, L] * 6  # 6-6 after 12: no more points
    assert status(six_all[:11], GRAND_FINAL_2022).winner is None  # 6-5: 6-6 possible
    turn = turn_after(six_all, GRAND_FINAL_2022)
    assert (turn.kind, turn.block_end) == (final_schemes.TIEBREAK_GAMES_START, 16)  # 12 + 4
    assert turn.status.next_game == "2+5"  # the tiebreak games keep the match's clock
    # 2-2 in the four tiebreak games: 8-8 after 16, the Armageddon.
    tied = [*six_all, W, L, W, L]
    assert turn_after(tied[:14], GRAND_FINAL_2022).kind is None  # mid-tiebreak
    turn = turn_after(tied, GRAND_FINAL_2022)
    assert turn.kind == final.ARMAGEDDON
    assert (turn.status.champion_score, turn.status.challenger_score) == (8.0, 8.0)
    assert final_schemes.next_game_clock(tied, GRAND_FINAL_2022, base=BASE, tiebreak=TIEBREAK) == (
        180,
        0,
    )
    s = status([*tied, D], GRAND_FINAL_2022, armageddon_white="challenger")
    assert (s.winner, s.armageddon_played, s.games_played) == ("champion", True, 17)


def test_tiebreak_games_are_won_by_more_points_and_may_end_early() -> None:
    six_all = [W, L] * 6
    # 3-0 in the tiebreak games after 15 of 16: at worst 3-1, decided.
    assert status([*six_all, W, W, W], GRAND_FINAL_2022).winner == "champion"
    assert status([*six_all, W, W], GRAND_FINAL_2022).winner is None  # 2-0: 2-2 possible
    # 2.5-1.5 after the four: one more point is enough (no lead by two).
    assert status([*six_all, W, D, L, W], GRAND_FINAL_2022).winner == "champion"


def test_2024_third_place_playoff_has_two_tiebreak_games() -> None:
    six_all = [W, L] * 6
    turn = turn_after(six_all, THIRD_PLACE_2022)
    assert (turn.kind, turn.block_end) == (final_schemes.TIEBREAK_GAMES_START, 14)  # 12 + 2
    assert status([*six_all, L], THIRD_PLACE_2022).winner is None  # 0-1: 1-1 possible
    assert status([*six_all, L, D], THIRD_PLACE_2022).winner == "challenger"  # 0.5-1.5
    assert turn_after([*six_all, W, L], THIRD_PLACE_2022).kind == final.ARMAGEDDON  # 1-1


def test_2024_semifinal_level_after_ten_goes_straight_to_armageddon() -> None:
    five_all = [D] * 10  # 5-5 after 10, no tiebreak games
    turn = turn_after(five_all, SEMIFINAL_2021)
    assert (turn.kind, turn.status.next_game) == (final.ARMAGEDDON, "armageddon")
    assert turn_after(five_all[:9], SEMIFINAL_2021).kind is None
    # 5.5 of 10 cannot be caught (the Swiss's "first to 5.5"): 5.5-0.5 after 6.
    assert status([W] * 5 + [D], SEMIFINAL_2021).winner == "champion"
    assert status([W] * 5, SEMIFINAL_2021).winner is None  # 5-0: 5-5 possible
    assert KNOCK_OUT_2020 == SEMIFINAL_2021


def test_early_decision_in_a_twelve_game_block() -> None:
    # 7-0 after 7: at most 7-5 after 12, and 7 > 12 / 2.
    assert status([W] * 7, GRAND_FINAL_2022).winner == "champion"
    assert status([L] * 7, GRAND_FINAL_2022).winner == "challenger"
    assert status([W] * 6, GRAND_FINAL_2022).winner is None  # 6-0: 6-6 possible
    assert status([W] * 7, FINAL_2021).winner == "champion"  # the same in a week of 12


# --- week_repeats: 2021 ---------------------------------------------------------------------


def test_2021_final_decided_in_week_three() -> None:
    week_tied = [W, L] * 6  # 6-6
    turn = turn_after(week_tied, FINAL_2021)
    assert (turn.kind, turn.block_end) == (final_schemes.NEW_WEEK, 24)
    turn = turn_after(week_tied * 2, FINAL_2021)
    assert (turn.kind, turn.block_end) == (final_schemes.NEW_WEEK, 36)
    week_three = [W, L] * 5 + [W, W]  # 7-5
    games = week_tied * 2 + week_three
    assert status(games[:35], FINAL_2021).winner is None  # 6-5 in week 3: 6-6 possible
    s = status(games, FINAL_2021)
    # 6 + 6 + 7 = 19 against 6 + 6 + 5 = 17 over 36 games.
    assert (s.winner, s.champion_score, s.challenger_score, s.games_played) == (
        "champion",
        19.0,
        17.0,
        36,
    )


def test_2021_final_three_tied_weeks_go_to_armageddon() -> None:
    tied = [W, L] * 18  # 6-6 three times
    turn = turn_after(tied, FINAL_2021)
    assert (turn.kind, turn.status.next_game) == (final.ARMAGEDDON, "armageddon")
    assert status([*tied, L], FINAL_2021).winner == "challenger"
    assert final_schemes.week_of(FINAL_2021, 12) == 1
    assert final_schemes.week_of(FINAL_2021, 13) == 2
    assert final_schemes.week_of(FINAL_2021, 36) == 3
    assert final_schemes.week_of(FINAL_2021, 37) == 3  # the Armageddon: still week 3


def test_a_week_is_won_by_more_points_in_it() -> None:
    week_tied = [D] * 12
    # 6.5-5.5 in week 2: one point more wins the week.
    assert status([*week_tied, *([D] * 11), W], FINAL_2021).winner == "champion"
    # 7-0 in week 2 after a tied week 1 is decided after 19 games.
    assert status([*week_tied, *([W] * 7)], FINAL_2021).winner == "champion"


# --- shared behaviour ----------------------------------------------------------------------


def test_counted_games_and_armageddon_points() -> None:
    assert final_schemes.counted_games([W] * 7 + [L], GRAND_FINAL_2022) == (7, True, False)
    assert final_schemes.counted_games([D] * 11, SEMIFINAL_2021) == (10, False, True)
    assert final_schemes.counted_games([D] * 11, SEMIFINAL_2021, armageddon_white="champion") == (
        11,
        True,
        False,
    )
    assert final_schemes.counted_games([D] * 12, final.FINAL_2019) == (12, False, False)
    # 30 (2019, 2020); 12 + 4, 12 + 2, 10 + 0; 12 x 3.
    points = [final_schemes.armageddon_point(f) for f in (final.FINAL_2019, FINAL_2020)]
    assert points == [30, 30]
    assert final_schemes.armageddon_point(GRAND_FINAL_2022) == 16
    assert final_schemes.armageddon_point(THIRD_PLACE_2022) == 14
    assert final_schemes.armageddon_point(SEMIFINAL_2021) == 10
    assert final_schemes.armageddon_point(FINAL_2021) == 36


def test_the_lead_by_two_module_refuses_other_schemes() -> None:
    with pytest.raises(ValueError, match="final_schemes"):
        final.status([], GRAND_FINAL_2022)


@pytest.mark.parametrize(
    "fmt",
    [
        FinalFormat(scheme=FinalScheme.TIEBREAK_GAMES, tiebreak_games=-1),
        FinalFormat(scheme=FinalScheme.TIEBREAK_GAMES, base_games=0),
        FinalFormat(scheme=FinalScheme.WEEK_REPEATS, weeks=0),
        FinalFormat(scheme=FinalScheme.WEEK_REPEATS, base_games=0),
        FinalFormat(scheme="knockout"),  # type: ignore[arg-type]
        FinalFormat(clock_change="sometimes"),  # type: ignore[arg-type]
    ],
)
def test_impossible_formats_raise(fmt: FinalFormat) -> None:
    with pytest.raises(ValueError):
        status([], fmt)


def test_bad_results_raise() -> None:
    with pytest.raises(ValueError):
        status([W, 2.0], GRAND_FINAL_2022)  # not a result
    with pytest.raises(ValueError):
        status([W] * 8, GRAND_FINAL_2022)  # decided after 7
    with pytest.raises(ValueError):
        status([D] * 11, SEMIFINAL_2021)  # a drawn Armageddon: who had Black?


# --- against the texts played naively, over every continuation ------------------------------


def _naive_tiebreak(games: tuple[float, ...], base: int, extra: int) -> set[str]:
    """The text read literally: the base block's points, then the tiebreak games' own
    points (counted from zero), then the Armageddon (either side)."""
    a = sum(games[:base])
    if a != base - a:
        return {"champion" if a > base - a else "challenger"}
    if extra:
        t = sum(games[base : base + extra])
        if t != extra - t:
            return {"champion" if t > extra - t else "challenger"}
    return set(BOTH)


def _naive_weeks(games: tuple[float, ...], base: int, weeks: int) -> set[str]:
    """Each week's own points; a tied week is played again; the last tied: Armageddon."""
    for week in range(weeks):
        a = sum(games[week * base : (week + 1) * base])
        if a != base - a:
            return {"champion" if a > base - a else "challenger"}
    return set(BOTH)


@pytest.mark.parametrize(
    ("fmt", "naive"),
    [
        (
            FinalFormat(scheme=FinalScheme.TIEBREAK_GAMES, base_games=4, tiebreak_games=2),
            lambda g: _naive_tiebreak(g, 4, 2),
        ),
        (
            FinalFormat(scheme=FinalScheme.TIEBREAK_GAMES, base_games=3, tiebreak_games=0),
            lambda g: _naive_tiebreak(g, 3, 0),
        ),
        (
            FinalFormat(scheme=FinalScheme.WEEK_REPEATS, base_games=3, weeks=2),
            lambda g: _naive_weeks(g, 3, 2),
        ),
    ],
)
def test_decided_exactly_when_every_continuation_agrees(fmt: FinalFormat, naive: object) -> None:
    total = final_schemes.armageddon_point(fmt)
    for length in range(total + 1):
        for prefix in itertools.product((W, D, L), repeat=length):
            try:
                s = status(prefix, fmt)
            except ValueError:
                continue  # decided earlier
            outcomes: set[str] = set()
            for rest in itertools.product((W, D, L), repeat=total - length):
                outcomes |= naive(prefix + rest)  # type: ignore[operator]
            if s.winner is not None:
                assert outcomes == {s.winner}, prefix
            else:
                assert outcomes == BOTH, prefix
                assert s.next_game == ("armageddon" if length == total else "2+5")


@given(
    st.lists(st.sampled_from([W, D, L]), min_size=37, max_size=37),
    st.sampled_from([GRAND_FINAL_2022, THIRD_PLACE_2022, SEMIFINAL_2021, FINAL_2021]),
)
def test_every_match_ends_by_the_armageddon(seq: list[float], fmt: FinalFormat) -> None:
    played: list[float] = []
    for r in seq:
        if status(played, fmt, armageddon_white="champion").winner is not None:
            break
        played.append(r)
    s = status(played, fmt, armageddon_white="champion")
    assert s.winner in BOTH
    assert s.games_played <= final_schemes.armageddon_point(fmt) + 1
    assert s.armageddon_played == (s.games_played == final_schemes.armageddon_point(fmt) + 1)


# --- blocks: how a scoreboard groups a match's games ------------------------------------------


def _spans(fmt: FinalFormat, played: int) -> list[tuple[str, int, int, int]]:
    return [(b.kind, b.number, b.first, b.last) for b in final_schemes.blocks(fmt, played)]


def test_blocks_of_the_2019_final_to_its_armageddon() -> None:
    # Rule III.G: 12 games, then two-game extensions up to game 30, then game 31 is the
    # Armageddon: 1-12, 13-14, 15-16, ..., 29-30 (nine extensions), 31.
    spans = _spans(FinalFormat(), 31)
    assert spans[0] == ("first", 1, 1, 12)
    assert spans[1:10] == [("extension", n, 11 + 2 * n, 12 + 2 * n) for n in range(1, 10)]
    assert spans[9] == ("extension", 9, 29, 30)
    assert spans[10] == ("armageddon", 1, 31, 31)
    assert len(spans) == 11


def test_blocks_stop_at_the_games_played() -> None:
    assert _spans(FinalFormat(), 0) == []
    assert _spans(FinalFormat(), 7) == [("first", 1, 1, 12)]
    # Game 13 opens the first extension (games 13-14), not the second.
    assert _spans(FinalFormat(), 13) == [("first", 1, 1, 12), ("extension", 1, 13, 14)]


def test_blocks_of_a_grand_final_and_a_semifinal() -> None:
    # 2022-2024: 12 games, 4 tiebreak games (13-16), the Armageddon is game 17.
    assert _spans(final_schemes.GRAND_FINAL_2022, 17) == [
        ("first", 1, 1, 12),
        ("tiebreak_games", 1, 13, 16),
        ("armageddon", 1, 17, 17),
    ]
    # Semifinal: 10 games, no tiebreak games, the Armageddon is game 11.
    assert _spans(final_schemes.SEMIFINAL_2021, 11) == [
        ("first", 1, 1, 10),
        ("armageddon", 1, 11, 11),
    ]


def test_blocks_of_the_2021_weeks() -> None:
    # 2021: weeks of 12 games, at most 3 (games 25-36 are week 3); game 37 the Armageddon.
    assert _spans(final_schemes.FINAL_2021, 25) == [
        ("week", 1, 1, 12),
        ("week", 2, 13, 24),
        ("week", 3, 25, 36),
    ]
    assert _spans(final_schemes.FINAL_2021, 37)[-1] == ("armageddon", 1, 37, 37)


def test_blocks_refuse_a_negative_count() -> None:
    with pytest.raises(ValueError):
        final_schemes.blocks(FinalFormat(), -1)
