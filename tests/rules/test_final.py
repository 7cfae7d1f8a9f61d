"""Tests for bot.rules.final (rule III.G)."""

from __future__ import annotations

import itertools
from collections import deque
from datetime import UTC, datetime, timedelta
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import final
from bot.rules.final import FinalFormat, FinalStatus, armageddon_white, armageddon_winner, status

W, D, L = 1.0, 0.5, 0.0  # from the champion's side
BOTH = frozenset({"champion", "challenger"})


# --- reference: the rules text played naively, without early stopping ---------


def ref_decision(n: int, c: float, h: float) -> str | None:
    """Decision after n games at c-h, straight from rule III.G (2019)."""
    if n < 12:
        return None  # III.G.1: 12 games
    if n < 24:
        if n % 2:  # III.G.3: extensions of two games
            return None
        if c - h >= 2:  # III.G.2: two points ahead
            return "champion"
        if h - c >= 2:
            return "challenger"
        return None
    if n % 2:  # III.G.5: tie broken after an even number of games
        return None
    if c > h:  # III.G.4: restriction dropped
        return "champion"
    if h > c:
        return "challenger"
    if n >= 30:  # III.G.6
        return "armageddon"
    return None


@cache
def ref_winners(n: int, c: float, h: float) -> frozenset[str]:
    """Every side that can still win from this state, by exploring all games."""
    d = ref_decision(n, c, h)
    if d == "armageddon":
        return BOTH
    if d is not None:
        return frozenset({d})
    out: frozenset[str] = frozenset()
    for r in (W, D, L):
        out |= ref_winners(n + 1, c + r, h + 1 - r)
    return out


# --- worked examples ------------------------------------------------------------


def test_start() -> None:
    assert status([]) == FinalStatus(None, 0.0, 0.0, 0, "2+5")


def test_seven_nil_is_decided_after_seven() -> None:
    # The challenger can reach at most 7-5 in the five games left: still two behind.
    assert status([W] * 7).winner == "champion"
    assert status([W] * 7).next_game is None
    assert status([L] * 7).winner == "challenger"
    assert status([W] * 6).winner is None  # 6-6 is still possible


def test_seven_one_after_eight_is_decided() -> None:
    s = status([L] + [W] * 7)
    assert (s.winner, s.champion_score, s.challenger_score, s.games_played) == (
        "champion",
        7.0,
        1.0,
        8,
    )
    # 6.5-1.5 after 8: 6.5-5.5 is possible, then extensions.
    assert status([D] + [W] * 6 + [L]).winner is None


def test_two_point_lead_after_twelve() -> None:
    # 7-5 after twelve games (decided only at the end: 6-5 after 11 could become 6-6).
    games = [W, L] * 5 + [W, W]
    assert status(games[:11]).winner is None
    assert status(games).winner == "champion"
    # 6.5-5.5: one point is not enough, two more games at 2+5.
    s = status([W, L] * 5 + [W, D])
    assert (s.winner, s.next_game, s.games_played) == (None, "2+5", 12)


def test_extension_blocks() -> None:
    six_all = [W, L] * 6
    assert status(six_all).next_game == "2+5"
    assert status([*six_all, L, L]).winner == "challenger"  # 6-8 after 14
    assert status([*six_all, L]).winner is None  # 6-7 after 13, 7-7 possible
    assert status([*six_all, L, W]).winner is None  # 7-7 after 14: extend again
    assert status([*six_all, D, D]).winner is None
    assert status([*six_all, W, L] * 1 + [W, W]).winner == "champion"  # 9-7 after 16


def test_restriction_dropped_after_24() -> None:
    eleven_all = [W, L] * 11
    # 12.5-11.5 after 24: a one-point lead wins once the restriction is dropped.
    s = status([*eleven_all, W, D])
    assert (s.winner, s.champion_score, s.challenger_score) == ("champion", 12.5, 11.5)
    # 12-11 after 23 is not decided: 12-12 is still possible.
    assert status([*eleven_all, W]).winner is None
    # 12-12 after 24: the 2+0 extensions.
    s = status([*eleven_all, W, L])
    assert (s.winner, s.next_game) == (None, "2+0")


def test_decided_after_23_because_any_lead_wins_at_24() -> None:
    # 11.5-10.5 after 22 (no two-point lead), then a win: 12.5-10.5 after 23 is
    # decided, because the worst case 12.5-11.5 still wins at 24 (any lead wins then).
    games = [W, L] * 10 + [W, D, W]
    assert status(games[:-1]).winner is None
    s = status(games)
    assert (s.winner, s.champion_score, s.challenger_score, s.games_played) == (
        "champion",
        12.5,
        10.5,
        23,
    )


def test_two_zero_tiebreak_after_even_number() -> None:
    twelve_all = [W, L] * 12
    assert status([*twelve_all, W]).next_game == "2+0"
    assert status([*twelve_all, W]).winner is None  # 13-12 after 25: 13-13 possible
    assert status([*twelve_all, W, D]).winner == "champion"  # 13.5-12.5 after 26
    assert status([*twelve_all, L, D]).winner == "challenger"
    assert status([*twelve_all, W, L]).next_game == "2+0"  # 13-13 after 26
    assert status([*twelve_all, W, W]).winner == "champion"


def test_armageddon_after_30() -> None:
    fifteen_all = [D] * 30
    s = status(fifteen_all)
    assert s == FinalStatus(None, 15.0, 15.0, 30, "armageddon")
    assert status([*fifteen_all, W]).winner == "champion"
    assert status([*fifteen_all, L]).winner == "challenger"
    drawn = status([*fifteen_all, D], armageddon_white="champion")
    assert drawn.winner == "challenger"  # Black wins a drawn Armageddon
    assert drawn.armageddon_played and drawn.games_played == 31
    assert (drawn.champion_score, drawn.challenger_score) == (15.0, 15.0)
    assert status([*fifteen_all, D], armageddon_white="challenger").winner == "champion"
    with pytest.raises(ValueError):
        status([*fifteen_all, D])  # who had Black?


def test_result_after_decision_raises() -> None:
    with pytest.raises(ValueError):
        status([W] * 8)
    with pytest.raises(ValueError):
        status([D] * 30 + [W, L])


@pytest.mark.parametrize("bad", [2, -1, 0.25, True, None, "1"])
def test_invalid_results_raise(bad: object) -> None:
    with pytest.raises(ValueError):
        status([W, bad])  # type: ignore[list-item]


def test_parameters() -> None:
    # A later edition: 10 games, two-point lead, no restriction drop before 20.
    later = FinalFormat(base_games=10, lead_rule_games=20, armageddon_after=26)
    assert status([W] * 6, later).winner == "champion"
    assert status([D] * 26, later).next_game == "armageddon"
    with pytest.raises(ValueError):  # not a whole number of extensions
        status([], FinalFormat(base_games=12, lead_rule_games=23))
    with pytest.raises(ValueError):
        status([], FinalFormat(armageddon_after=20))
    with pytest.raises(ValueError):
        status([], armageddon_white="white")


# --- armageddon -----------------------------------------------------------------


def test_armageddon_white() -> None:
    assert armageddon_white(60, 90) == "champion"
    assert armageddon_white(90, 60) == "challenger"
    assert armageddon_white(100, 100) == "champion"  # III.G.6.c
    assert armageddon_white(1, 180) == "champion"
    assert armageddon_white(180, 1) == "challenger"


@pytest.mark.parametrize(
    ("a", "b"), [(0, 60), (60, 181), (-5, 60), (60.0, 60), (True, 60), (60, "60"), (60, None)]
)
def test_armageddon_white_rejects_bad_bids(a: object, b: object) -> None:
    with pytest.raises(ValueError):
        armageddon_white(a, b)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        armageddon_white(b, a)  # type: ignore[arg-type]


def test_armageddon_winner() -> None:
    assert armageddon_winner("champion", 1) == "champion"
    assert armageddon_winner("champion", 0.5) == "challenger"
    assert armageddon_winner("champion", 0) == "challenger"
    assert armageddon_winner("challenger", 1) == "challenger"
    assert armageddon_winner("challenger", 0.5) == "champion"
    assert armageddon_winner("challenger", 0) == "champion"
    with pytest.raises(ValueError):
        armageddon_winner("white", 1)
    with pytest.raises(ValueError):
        armageddon_winner("champion", 0.7)


# --- properties -----------------------------------------------------------------

results = st.sampled_from([W, D, L])


@given(
    st.lists(results, min_size=31, max_size=31),
    st.sampled_from(["champion", "challenger"]),
)
def test_every_sequence_ends_within_31_games(seq: list[float], white: str) -> None:
    played: list[float] = []
    for r in seq:
        s = status(played, armageddon_white=white)
        if s.winner is not None:
            break
        n = len(played)
        assert s.next_game == ("armageddon" if n == 30 else "2+0" if n >= 24 else "2+5")
        played.append(r)
    s = status(played, armageddon_white=white)
    assert s.winner in ("champion", "challenger")
    assert s.next_game is None
    assert s.games_played == len(played) <= 31
    assert (s.games_played == 31) == s.armageddon_played


@given(st.lists(results, max_size=31))
def test_status_matches_reference_on_random_prefixes(seq: list[float]) -> None:
    """Decided exactly when the reference says only one side can still win."""
    c = h = 0.0
    for n, r in enumerate(seq, start=1):
        if n == 31:
            break
        c, h = c + r, h + 1 - r
        s = status(seq[:n])
        winners = ref_winners(n, c, h)
        if len(winners) == 1:
            assert s.winner == next(iter(winners))
            return
        assert s.winner is None


def test_every_reachable_state_against_reference() -> None:
    """Exhaustive over all (games, score) states reachable while undecided (2019 rules)."""
    start = (0, 0.0, 0.0)
    path: dict[tuple[int, float, float], list[float]] = {start: []}
    queue = deque([start])
    checked = 0
    while queue:
        n, c, h = queue.popleft()
        s = status(path[(n, c, h)])
        winners = ref_winners(n, c, h)
        checked += 1
        if len(winners) == 1:
            assert s.winner == next(iter(winners)), (n, c, h)
            continue
        assert s.winner is None, (n, c, h)
        expected_next = "armageddon" if n == 30 else "2+0" if n >= 24 else "2+5"
        assert s.next_game == expected_next
        if n == 30:
            continue
        for r in (W, D, L):
            nxt = (n + 1, c + r, h + 1 - r)
            if nxt not in path:
                path[nxt] = [*path[(n, c, h)], r]
                queue.append(nxt)
    assert checked > 200


SMALL = FinalFormat(base_games=3, extension_games=2, lead_rule_games=5, armageddon_after=7)


def _small_outcomes(prefix: tuple[float, ...]) -> set[str]:
    """All winners over every full continuation, played naively (no early stop)."""
    out: set[str] = set()
    for rest in itertools.product((W, D, L), repeat=7 - len(prefix)):
        c = h = 0.0
        winner = None
        for n, r in enumerate(prefix + rest, start=1):
            c, h = c + r, h + 1 - r
            lead_needed = 2.0 if n < 5 else 0.5
            at_checkpoint = n in (3,) or (n >= 5 and (n - 5) % 2 == 0)
            if at_checkpoint and abs(c - h) >= lead_needed:
                winner = "champion" if c > h else "challenger"
                break
        out |= {winner} if winner else set(BOTH)
    return out


def test_small_structure_brute_force_over_all_continuations() -> None:
    """3 games, lead 2, extensions of 2 up to 5, then any lead, Armageddon after 7.

    For every prefix (3^0 + ... + 3^7 of them), "decided" must mean that every
    continuation ends with the same winner, and "undecided" that two can differ.
    """
    for length in range(8):
        for prefix in itertools.product((W, D, L), repeat=length):
            try:
                s = status(prefix, SMALL)
            except ValueError:
                continue  # decided earlier: results after a decision are refused
            outcomes = _small_outcomes(prefix)
            if s.winner is not None:
                assert outcomes == {s.winner}, prefix
            else:
                assert outcomes == set(BOTH), prefix


# No deadline: each example enumerates up to 3^8 continuations of the first block, which
# takes well under the default 200 ms alone but not on two cores shared with other test
# workers; a missed deadline there is load, not a slow rule (the example count bounds it).
@settings(max_examples=50, deadline=None)
@given(st.lists(results, min_size=4, max_size=12))
def test_first_block_brute_force(prefix: list[float]) -> None:
    """Within the 12 games: decided iff every completion to 12 leaves a two-point lead."""
    for end in range(1, len(prefix) + 1):
        s = status(prefix[:end])
        if s.winner is not None:
            break
    prefix = prefix[:end]
    c = sum(prefix)
    h = len(prefix) - c
    leaders = set()
    for rest in itertools.product((W, D, L), repeat=12 - len(prefix)):
        cc, hh = c + sum(rest), h + len(rest) - sum(rest)
        leaders.add("champion" if cc - hh >= 2 else "challenger" if hh - cc >= 2 else None)
    if s.winner is None:
        assert len(leaders) > 1 or leaders == {None}
    else:
        assert leaders == {s.winner}


# --- turn_after: what a game does to the Final's structure (III.G.3-6) -------------------------


def test_turns_of_the_2019_final() -> None:
    """6.5-5.5 after 12: extended by two (III.G.3); the extension from 22 is the last with
    the two-point rule (III.G.4); 12-12 after 24: the rule dropped and 2+0 (III.G.4-5);
    still equal after 26: two more at 2+0 (III.G.5); equal after 30: the Armageddon."""
    twelve = [1.0, 0.0] * 5 + [1.0, 0.5]
    turn = final.turn_after(twelve)
    assert (turn.kind, turn.block_end, turn.lead_rule_ends) == (final.EXTENDED, 14, False)
    assert turn.status.next_game == "2+5"
    assert final.turn_after(twelve[:11]).kind is None  # before game 12: nothing yet
    assert final.turn_after([*twelve, 0.5]).kind is None  # mid-extension
    equal = [1.0, 0.0] * 15
    turn = final.turn_after(equal[:22])
    assert (turn.kind, turn.block_end, turn.lead_rule_ends) == (final.EXTENDED, 24, True)
    turn = final.turn_after(equal[:24])
    assert (turn.kind, turn.block_end) == (final.LEAD_RULE_DROPPED, 26)
    assert turn.status.next_game == "2+0"
    turn = final.turn_after(equal[:26])
    assert (turn.kind, turn.block_end) == (final.TIEBREAK_EXTENDED, 28)
    turn = final.turn_after(equal)
    assert (turn.kind, turn.block_end) == (final.ARMAGEDDON, None)
    assert final.turn_after([*equal, 1.0]).kind is None  # the Armageddon decided it


def test_a_deciding_game_is_no_turn() -> None:
    assert final.turn_after([1.0, 0.0] * 5 + [1.0, 1.0]).kind is None  # 7-5 after 12
    assert final.turn_after([1.0, 0.0] * 11 + [1.0, 0.5]).kind is None  # 12.5-11.5 after 24
    assert final.turn_after([]).kind is None


@given(st.lists(st.sampled_from([0.0, 0.5, 1.0]), max_size=30))
def test_a_turn_only_at_a_checkpoint_of_an_undecided_final(games: list[float]) -> None:
    try:
        status = final.status(games)
    except ValueError:
        return  # results after the decision: not a Final
    turn = final.turn_after(games)
    n = len(games)
    checkpoint = (n >= 12 and n % 2 == 0) and n <= 30
    assert (turn.kind is not None) == (status.winner is None and checkpoint)
    if turn.kind in (final.EXTENDED, final.LEAD_RULE_DROPPED, final.TIEBREAK_EXTENDED):
        assert turn.block_end == n + 2
        assert turn.status.next_game == ("2+5" if n < 24 else "2+0")


def test_the_armageddon_black_clock_is_configuration() -> None:
    """Rule III.G.6.a gives Black 3:00 (the 2019 default); a later edition may give less, and
    White's bid is then at most that (stages.final_armageddon_black_seconds)."""
    assert armageddon_white(150, 149, black_s=150) == "challenger"
    with pytest.raises(ValueError, match=r"1\.\.150 s"):
        armageddon_white(160, 60, black_s=150)
    assert armageddon_white(180, 179) == "challenger"  # the 2019 default: up to 3:00


# --- the clock of the next game, which games count, the sessions (rules III.G, VI.C) ---------

BASE, TIEBREAK = (120, 5), (120, 0)


def test_the_next_games_clock() -> None:
    """2+5, then 2+0 from 12-12 after 24 games (III.G.5), then the Armageddon: Black's
    3 minutes and no increment (III.G.6.a, III.G.6.d)."""

    def clock(games: list[float]) -> tuple[int, int]:
        return final.next_game_clock(games, base=BASE, tiebreak=TIEBREAK)

    assert clock([]) == BASE
    assert clock([0.5] * 23) == BASE
    assert clock([0.5] * 24) == TIEBREAK
    assert clock([0.5] * 30) == (180, 0)
    assert final.next_game_clock(
        [0.5] * 30, base=BASE, tiebreak=TIEBREAK, armageddon_black_s=240
    ) == (
        240,
        final.ARMAGEDDON_INCREMENT_S,
    )
    assert final.ARMAGEDDON_INCREMENT_S == 0
    assert clock([1.0] * 7 + [0.5]) == BASE  # decided at 7-0: a game played on does not count


def test_counted_final_games() -> None:
    """The Final counts its games up to the decision, and stops at the Armageddon until
    both bids for White are in (III.G.6.b)."""
    assert final.counted_final_games([1.0] * 7 + [0.0, 0.5]) == (7, True, False)
    assert final.counted_final_games([0.5] * 12) == (12, False, False)
    assert final.counted_final_games([0.5] * 31) == (30, False, True)
    assert final.counted_final_games([0.5] * 31, armageddon_white=final.CHAMPION) == (
        31,
        True,
        False,
    )


def test_a_final_session_is_over_once_its_time_has_come() -> None:
    """Rule VI.C: an offer once a Final session has begun asks for the next one."""
    t = datetime(2019, 12, 1, 18, tzinfo=UTC)
    assert final.final_session_over(agreed=t, under_way=True, is_final=True, now=t)
    assert not final.final_session_over(
        agreed=t, under_way=True, is_final=True, now=t - timedelta(seconds=1)
    )
    assert not final.final_session_over(agreed=t, under_way=True, is_final=False, now=t)
    assert not final.final_session_over(agreed=t, under_way=False, is_final=True, now=t)
    margin, start = timedelta(minutes=15), datetime(2019, 11, 25, tzinfo=UTC)
    assert (
        final.earliest_counted_game(agreed=t, round_start=start, is_final=True, margin=margin)
        == start - margin
    )  # every session's games count
    assert (
        final.earliest_counted_game(agreed=t, round_start=start, is_final=False, margin=margin)
        == t - margin
    )


def test_the_finals_winner_takes_the_match_point() -> None:
    assert final.final_match_points(final.CHAMPION) == (1.0, 0.0)
    assert final.final_match_points(final.CHALLENGER) == (0.0, 1.0)
    with pytest.raises(ValueError):
        final.final_match_points("nobody")
