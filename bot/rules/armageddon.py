"""The Armageddon's colours: who plays White after the time bids (every edition).

Black gets 3 minutes and draw odds; each player bids a time for White and the lower bid
plays White (rules III.G.6.a-b; 2020-2024 rules, Armageddon: "Both players make a time offer
for White. The lowest offer plays White."). Equal bids, by edition (:class:`EqualBids`):

* ``previous_champion`` (2019, III.G.6.c: "In case of identical offers, the 2018 World
  Champion gets White"): the previous champion gets White, no one chooses. When neither
  player is the previous champion (the champion withdrew and the Final was replaced, rule
  VIII.C) the text is silent: the TD decides who gets White (a design choice).
* ``rock_paper_scissors`` (2020-2024: "a game of rock-paper-scissors will determine who gets
  White"): the game is played outside the bot; the TD records its winner, who gets White.

Players are ``"a"`` and ``"b"``, the order the caller gives the bids in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "BLACK_S",
    "MIN_BID_S",
    "A",
    "ArmageddonColours",
    "B",
    "Chooser",
    "EqualBids",
    "OverBid",
    "armageddon_colours",
    "white_over_bid",
]

A = "a"
B = "b"
PLAYERS = (A, B)

#: Black's clock, 3 minutes (III.G.6.a; the same in 2020-2024), and the smallest bid.
BLACK_S = 180
MIN_BID_S = 1


class EqualBids(StrEnum):
    """What equal bids lead to (the exact strings are configuration)."""

    PREVIOUS_CHAMPION = "previous_champion"  # 2019
    ROCK_PAPER_SCISSORS = "rock_paper_scissors"  # 2020-2024


class Chooser(StrEnum):
    """Who must say who plays White when the bids alone do not."""

    TD = "td"  # records the rock-paper-scissors winner, or decides (no previous champion)


@dataclass(frozen=True)
class ArmageddonColours:
    """Who plays White and Black (``"a"`` / ``"b"``), or, with both None, who must choose
    (``needs_choice_from``); ``equal_bids`` says the bids were equal."""

    white: str | None
    black: str | None
    needs_choice_from: Chooser | None
    equal_bids: bool


def _check_bid(name: str, bid: int, black_s: int) -> None:
    if isinstance(bid, bool) or not isinstance(bid, int):
        raise ValueError(f"{name} must be whole seconds, got {bid!r}")
    if not MIN_BID_S <= bid <= black_s:
        raise ValueError(f"{name} must be {MIN_BID_S}..{black_s} s, got {bid}")


def _check_player(value: str | None, name: str) -> None:
    if value is not None and value not in PLAYERS:
        raise ValueError(f"{name} must be 'a', 'b' or None, got {value!r}")


def _white(white: str, *, equal: bool) -> ArmageddonColours:
    return ArmageddonColours(white, B if white == A else A, None, equal)


def armageddon_colours(
    bid_a: int,
    bid_b: int,
    *,
    equal_bids: EqualBids,
    previous_champion: str | None = None,
    choice: str | None = None,
    black_s: int = BLACK_S,
) -> ArmageddonColours:
    """The colours after the bids ``bid_a`` and ``bid_b`` (whole seconds, 1 up to Black's
    clock ``black_s``): the lower bid plays White; equal bids follow ``equal_bids``.

    ``previous_champion`` is ``"a"``, ``"b"`` or None (neither plays); ``choice`` is the
    player the TD named for White (the rock-paper-scissors winner, or the TD's decision), read
    only when the bids and the previous champion leave it open; until it is given the outcome
    needs a choice from :attr:`Chooser.TD`. ``ValueError`` for a bid out of range or not whole
    seconds (booleans, floats), an unknown player or rule.
    """
    if isinstance(black_s, bool) or not isinstance(black_s, int) or black_s < MIN_BID_S:
        raise ValueError(f"black_s must be whole seconds of at least {MIN_BID_S}, got {black_s!r}")
    _check_bid("bid_a", bid_a, black_s)
    _check_bid("bid_b", bid_b, black_s)
    _check_player(previous_champion, "previous_champion")
    _check_player(choice, "choice")
    if equal_bids not in tuple(EqualBids):
        raise ValueError(f"equal_bids must be one of {list(EqualBids)}, got {equal_bids!r}")
    if bid_a != bid_b:
        return _white(A if bid_a < bid_b else B, equal=False)
    if equal_bids == EqualBids.PREVIOUS_CHAMPION and previous_champion is not None:
        return _white(previous_champion, equal=True)
    if choice is not None:
        return _white(choice, equal=True)
    return ArmageddonColours(None, None, Chooser.TD, True)


@dataclass(frozen=True)
class OverBid:
    """White's clock went below what their bid allows: after White's ``move``-th move it
    read ``left_cs`` centiseconds, under ``limit_cs``."""

    move: int
    left_cs: int
    limit_cs: int


def white_over_bid(clocks_cs: Sequence[int], *, black_s: int, white_bid_s: int) -> OverBid | None:
    """Whether White used more than their bid, read from the game's clock record.

    The game is created with Black's clock for both sides (a Lichess challenge has one
    clock), so White "must treat" ``black_s - white_bid_s`` of it as used: White is over
    their time when their clock reads less than that. ``clocks_cs`` is Lichess's clock
    record (the export's ``clocks``: each side's remaining time after each of its moves,
    in centiseconds, the side that moved first first, so White's at the even places).
    None when White stayed within the bid (or made no move)."""
    if not 0 < white_bid_s <= black_s:
        raise ValueError(f"a bid must be 1..{black_s} seconds, got {white_bid_s}")
    limit = (black_s - white_bid_s) * 100
    for index, left in enumerate(clocks_cs[0::2]):
        if left < limit:
            return OverBid(index + 1, left, limit)
    return None
