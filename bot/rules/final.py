"""The Final: 12 games, two-point lead, extensions and Armageddon (rule III.G).

Rules of the 2019 edition, each a field of :class:`FinalFormat`:

* 12 games (``base_games``); the leader wins when two points ahead (``lead``).
* Otherwise two more games (``extension_games``), repeatedly.
* After 24 games (``lead_rule_games``) the two-point condition is dropped: a
  leader by any margin wins.  Only 12-12 continues, at 2+0
  (``tiebreak_time_control``), until the tie is broken after an even number of
  games (blocks of ``tiebreak_extension_games``).
* Still equal after 30 games (``armageddon_after``): one Armageddon game.

Later editions' final matches (the 2020 clock change, the 2021 repeated weeks, the 2022-2024
tiebreak games, the Knock-Out and Semifinal matches) are :class:`FinalFormat` values of other
schemes, played by :mod:`bot.rules.final_schemes` with this module's machinery
(:func:`scheme_status`, :func:`possible_winners`); this module's :func:`status` plays
``lead_by_two`` only.

The match also ends as soon as its result can no longer change, whatever the
remaining games bring (7-0 after 7 games; 7-1 after 8; 12.5-10.5 after 23,
because after 24 games any lead wins).  This is computed exactly, by exploring
every continuation of the score difference (see :func:`_possible_winners`),
so it stays right for any parameters.

Results are given from the defending champion's side: 1, 0.5 or 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from functools import lru_cache
from typing import Protocol

from bot.rules import armageddon as bids

__all__ = [
    "ARMAGEDDON",
    "ARMAGEDDON_BLACK_S",
    "ARMAGEDDON_INCREMENT_S",
    "ARMAGEDDON_MIN_BID_S",
    "CHALLENGER",
    "CHAMPION",
    "EXTENDED",
    "FINAL_2019",
    "LEAD_RULE_DROPPED",
    "TIEBREAK_EXTENDED",
    "Checkpoint",
    "ClockChange",
    "FinalFormat",
    "FinalScheme",
    "FinalStatus",
    "FinalTurn",
    "Judge",
    "armageddon_white",
    "armageddon_winner",
    "clock_of",
    "counted_final_games",
    "counted_games_with",
    "earliest_counted_game",
    "final_match_points",
    "final_session_over",
    "next_game_clock",
    "possible_winners",
    "scheme_status",
    "status",
    "turn_after",
]

CHAMPION = "champion"
CHALLENGER = "challenger"
ARMAGEDDON = "armageddon"
#: What the Final turns into after a game (see :func:`turn_after`).
EXTENDED = "extended"  # III.G.3: no two-point lead at a checkpoint, two more games
LEAD_RULE_DROPPED = "lead_rule_dropped"  # III.G.4-5: equal after 24, any lead wins, 2+0
TIEBREAK_EXTENDED = "tiebreak_extended"  # III.G.5: still equal after a 2+0 block
SIDES = (CHAMPION, CHALLENGER)

#: Black has 3 minutes (rule III.G.6.a; `stages.final_armageddon_black_seconds`), so White's
#: bid is at most that.
ARMAGEDDON_MIN_BID_S = bids.MIN_BID_S
ARMAGEDDON_BLACK_S = bids.BLACK_S

_RESULTS = (0.0, 0.5, 1.0)


@dataclass(frozen=True)
class FinalStatus:
    """Where the Final stands.

    ``winner`` is ``"champion"``, ``"challenger"`` or None while undecided.
    ``next_game`` is the time control of the next game (``"2+5"``, ``"2+0"``)
    or ``"armageddon"``, and None once decided.  The scores count the match
    games only; a played Armageddon game decides the winner but is not added
    to them (``armageddon_played`` says it happened; ``games_played`` counts it).
    """

    winner: str | None
    champion_score: float
    challenger_score: float
    games_played: int
    next_game: str | None
    armageddon_played: bool = False


class FinalScheme(StrEnum):
    """How a final match is won, by edition (the exact strings are configuration)."""

    LEAD_BY_TWO = "lead_by_two"  # 2019, 2020: win by two, extensions, Armageddon (this module)
    TIEBREAK_GAMES = "tiebreak_games"  # 2022-2024 finals; Knock-Out, Semifinals (0 games)
    WEEK_REPEATS = "week_repeats"  # 2021 finals: a tied week of 12 is played again


class ClockChange(StrEnum):
    """When ``lead_by_two`` switches to ``tiebreak_time_control`` (the exact strings are
    configuration). 2019: "If the score is equal (12-12), extensions proceed but with 2+0";
    2020: "If, after 24 games, there is still no winner decided, the [two-point] restriction
    gets dropped, and the time control becomes 3+0".

    Both play the same games at the same clocks: any lead wins at game ``lead_rule_games``
    (2019's reading, kept for 2020), so a match undecided there is level and every later game
    is at the tiebreak clock either way. The setting records which text the edition has."""

    AT_EQUAL_SCORE = "at_equal_score"
    AFTER_LEAD_RULE_GAMES = "after_lead_rule_games"


@dataclass(frozen=True)
class FinalFormat:
    """Rule 3.7 (III.G): the Final's shape, one value for every function of this module (the
    defaults are the 2019 edition's; `bot.config.Config.final_format` builds this edition's).

    ``scheme`` picks the rules (:class:`FinalScheme`); ``tiebreak_games`` (``tiebreak_games``
    scheme) and ``weeks`` (``week_repeats``) belong to the later schemes and are unused by
    2019's ``lead_by_two``, as ``lead`` and the extension fields are unused by the others."""

    base_games: int = 12
    lead: float = 2.0
    extension_games: int = 2
    lead_rule_games: int = 24
    tiebreak_extension_games: int = 2
    armageddon_after: int = 30
    time_control: str = "2+5"
    tiebreak_time_control: str = "2+0"
    scheme: FinalScheme = FinalScheme.LEAD_BY_TWO
    clock_change: ClockChange = ClockChange.AT_EQUAL_SCORE
    tiebreak_games: int = 0
    weeks: int = 1


FINAL_2019 = FinalFormat()

#: The decision after ``n`` games at a score difference of ``diff2 / 2`` (champion minus
#: challenger), ignoring the future: a side, ``"armageddon"``, or None to play on.
Checkpoint = Callable[[FinalFormat, int, int], str | None]


def _check_params(p: FinalFormat) -> None:
    """Reject structures the rules cannot describe (so the exploration terminates), and
    another scheme's format (:mod:`bot.rules.final_schemes` plays those)."""
    if p.scheme != FinalScheme.LEAD_BY_TWO:
        raise ValueError(f"{p.scheme!r} is played by bot.rules.final_schemes, not lead_by_two")
    if p.clock_change not in tuple(ClockChange):
        raise ValueError(f"clock_change must be one of {list(ClockChange)}, got {p.clock_change!r}")
    for name in ("base_games", "extension_games", "tiebreak_extension_games"):
        value = getattr(p, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    for name in ("lead_rule_games", "armageddon_after"):
        value = getattr(p, name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if isinstance(p.lead, bool) or not p.lead > 0 or p.lead * 2 != int(p.lead * 2):
        raise ValueError(f"lead must be a positive multiple of 0.5, got {p.lead!r}")
    if not p.base_games <= p.lead_rule_games <= p.armageddon_after:
        raise ValueError("need base_games <= lead_rule_games <= armageddon_after")
    if (p.lead_rule_games - p.base_games) % p.extension_games:
        raise ValueError("lead_rule_games must be base_games plus whole extensions")
    if (p.armageddon_after - p.lead_rule_games) % p.tiebreak_extension_games:
        raise ValueError("armageddon_after must be lead_rule_games plus whole tiebreak blocks")


def _checkpoint(p: FinalFormat, n: int, diff2: int) -> str | None:
    """``lead_by_two``'s :data:`Checkpoint` (rules III.G.2-6)."""
    if n < p.lead_rule_games:
        if n < p.base_games or (n - p.base_games) % p.extension_games:
            return None
        needed2 = round(p.lead * 2)  # two-point rule (III.G.2-3)
    else:
        if (n - p.lead_rule_games) % p.tiebreak_extension_games:
            return None
        needed2 = 1  # restriction dropped (III.G.4): any lead wins
    if diff2 >= needed2:
        return CHAMPION
    if -diff2 >= needed2:
        return CHALLENGER
    if n >= p.armageddon_after:
        return ARMAGEDDON
    return None


@lru_cache(maxsize=65536)
def possible_winners(checkpoint: Checkpoint, p: FinalFormat, n: int, diff2: int) -> frozenset[str]:
    """Every side that can still win from ``n`` games at difference ``diff2 / 2``, by
    exploring every continuation under ``checkpoint`` (which must decide after finitely many
    games whatever the results).

    Armageddon can go either way, so it contributes both sides.  The match is
    decided exactly when this set has one element.
    """
    decision = checkpoint(p, n, diff2)
    if decision == ARMAGEDDON:
        return frozenset(SIDES)
    if decision is not None:
        return frozenset((decision,))
    out: set[str] = set()
    for step in (2, 0, -2):
        out |= possible_winners(checkpoint, p, n + 1, diff2 + step)
        if len(out) == 2:
            break
    return frozenset(out)


def _check_result(value: float, index: int) -> float:
    """A game result must be exactly 1, 0.5 or 0 (booleans refused)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value not in _RESULTS:
        raise ValueError(f"game {index} result must be 1, 0.5 or 0, got {value!r}")
    return float(value)


def _check_side(side: str, name: str) -> str:
    if side not in SIDES:
        raise ValueError(f"{name} must be 'champion' or 'challenger', got {side!r}")
    return side


def status(
    games: Sequence[float],
    fmt: FinalFormat = FINAL_2019,
    *,
    armageddon_white: str | None = None,
) -> FinalStatus:
    """The state of the Final after ``games`` (champion's results, in order).

    The game after ``armageddon_after`` games at equal score is the Armageddon
    game; a draw there is a win for Black, so a drawn Armageddon needs
    ``armageddon_white`` (``"champion"`` or ``"challenger"``, see
    :func:`armageddon_white`), else ``ValueError``.

    Raises ``ValueError`` for a result other than 1, 0.5 or 0, for any result
    after the match was decided, and for inconsistent parameters (or another scheme's).
    """
    _check_params(fmt)
    return scheme_status(
        games,
        fmt,
        checkpoint=_checkpoint,
        armageddon_after=fmt.armageddon_after,
        clock=_clock,
        armageddon_white=armageddon_white,
    )


def _clock(fmt: FinalFormat, played: int) -> str:
    """``lead_by_two``'s clock for the game after ``played`` (rule III.G.5; see
    :class:`ClockChange`: undecided after ``lead_rule_games`` means level, in both modes)."""
    return fmt.tiebreak_time_control if played >= fmt.lead_rule_games else fmt.time_control


def scheme_status(
    games: Sequence[float],
    fmt: FinalFormat,
    *,
    checkpoint: Checkpoint,
    armageddon_after: int,
    clock: Callable[[FinalFormat, int], str],
    armageddon_white: str | None = None,
) -> FinalStatus:
    """:func:`status` for any scheme: ``checkpoint`` decides, the game after
    ``armageddon_after`` games at a level score is the Armageddon, and ``clock(fmt, played)``
    is the time control of an undecided match's next game. ``ValueError`` as :func:`status`."""
    if armageddon_white is not None:
        _check_side(armageddon_white, "armageddon_white")

    champion = challenger = 0.0
    winner: str | None = None
    armageddon_played = False
    for index, raw in enumerate(games, start=1):
        if winner is not None:
            raise ValueError(f"game {index}: the Final was already won by the {winner}")
        result = _check_result(raw, index)
        n = index - 1  # games played before this one
        if n >= armageddon_after and champion == challenger:
            # The Armageddon game (rule III.G.6).
            armageddon_played = True
            if result == 0.5:
                if armageddon_white is None:
                    raise ValueError("a drawn Armageddon needs armageddon_white (Black wins)")
                winner = armageddon_winner(armageddon_white, result)
            else:
                winner = CHAMPION if result == 1.0 else CHALLENGER
            continue
        champion += result
        challenger += 1.0 - result
        possible = possible_winners(checkpoint, fmt, index, round((champion - challenger) * 2))
        if len(possible) == 1:
            winner = next(iter(possible))

    played = len(games)
    next_game: str | None
    if winner is not None:
        next_game = None
    elif played >= armageddon_after:
        next_game = ARMAGEDDON
    else:
        next_game = clock(fmt, played)
    return FinalStatus(winner, champion, challenger, played, next_game, armageddon_played)


def armageddon_white(
    champion_bid_s: int, challenger_bid_s: int, *, black_s: int = ARMAGEDDON_BLACK_S
) -> str:
    """Who plays White in the Armageddon: the lower time bid (rule III.G.6.b).

    Bids are whole seconds from 1 to Black's clock, ``black_s`` (3 minutes, III.G.6.a).
    Equal bids give White to the previous champion (III.G.6.c).  Anything else,
    including booleans and floats, raises ``ValueError``. (The 2019 case of
    :func:`bot.rules.armageddon.armageddon_colours`.)
    """
    found = bids.armageddon_colours(
        champion_bid_s,
        challenger_bid_s,
        equal_bids=bids.EqualBids.PREVIOUS_CHAMPION,
        previous_champion=bids.A,
        black_s=black_s,
    )
    return CHAMPION if found.white == bids.A else CHALLENGER


def armageddon_winner(white: str, white_result: float) -> str:
    """The Armageddon winner: White wins only with 1; a draw is Black's (III.G.6.a)."""
    _check_side(white, "white")
    result = _check_result(white_result, 1)
    black = CHALLENGER if white == CHAMPION else CHAMPION
    return white if result == 1.0 else black


@dataclass(frozen=True)
class FinalTurn:
    """What happens to the Final's structure after its last game (rules III.G.3-6).

    ``kind`` is :data:`EXTENDED`, :data:`LEAD_RULE_DROPPED`, :data:`TIEBREAK_EXTENDED`,
    :data:`ARMAGEDDON` or None (mid-block, before game ``base_games`` is played, or
    decided). ``block_end`` is the last game of the games just added (None unless
    extended). ``lead_rule_ends`` says the games just added end where the two-point rule is
    dropped (rule III.G.4): after them any lead wins.
    """

    kind: str | None
    status: FinalStatus
    block_end: int | None = None
    lead_rule_ends: bool = False


def turn_after(
    games: Sequence[float],
    fmt: FinalFormat = FINAL_2019,
    *,
    armageddon_white: str | None = None,
) -> FinalTurn:
    """Whether the game just played extends the Final, and how (rules III.G.3-6): at
    6.5-5.5 after 12 games two more games follow (III.G.3); at 12-12 after 24 the two-point
    rule is dropped (III.G.4) and the clock becomes 2+0 (III.G.5); still equal after a 2+0
    block, two more (III.G.5); equal after 30, the Armageddon (III.G.6). The parameters
    are :func:`status`'s; ``ValueError`` as there."""
    st = status(games, fmt, armageddon_white=armageddon_white)
    n = st.games_played
    if st.winner is not None or n < fmt.base_games:
        return FinalTurn(None, st)
    if st.next_game == ARMAGEDDON:
        return FinalTurn(ARMAGEDDON if n == fmt.armageddon_after else None, st)
    if n < fmt.lead_rule_games:
        if (n - fmt.base_games) % fmt.extension_games:
            return FinalTurn(None, st)
        end = n + fmt.extension_games
        return FinalTurn(EXTENDED, st, end, lead_rule_ends=end == fmt.lead_rule_games)
    if (n - fmt.lead_rule_games) % fmt.tiebreak_extension_games:
        return FinalTurn(None, st)
    kind = LEAD_RULE_DROPPED if n == fmt.lead_rule_games else TIEBREAK_EXTENDED
    return FinalTurn(kind, st, n + fmt.tiebreak_extension_games)


#: Rule 3.7.6.4 (III.G.6.d): the Armageddon has no increment.
ARMAGEDDON_INCREMENT_S = 0


def next_game_clock(
    games: Sequence[float],
    *,
    base: tuple[int, int],
    tiebreak: tuple[int, int],
    armageddon_black_s: int = ARMAGEDDON_BLACK_S,
    fmt: FinalFormat = FINAL_2019,
) -> tuple[int, int]:
    """The clock (seconds, increment) the Final's next game must have after ``games``:
    ``base`` (2+5); ``tiebreak`` (2+0) in the tie extensions from 12-12 after 24 games (rule
    3.7.5, III.G.5); in the Armageddon Black's 3 minutes (rule 3.7.6.1, III.G.6.a) and no
    increment (rule 3.7.6.4, III.G.6.d); White's bid is not a Lichess clock.
    A Final already decided keeps
    ``base``: whatever is played on does not count."""
    try:
        next_game = status(games, fmt).next_game
    except ValueError:
        return base
    return clock_of(
        next_game, fmt, base=base, tiebreak=tiebreak, armageddon_black_s=armageddon_black_s
    )


def clock_of(
    next_game: str | None,
    fmt: FinalFormat,
    *,
    base: tuple[int, int],
    tiebreak: tuple[int, int],
    armageddon_black_s: int = ARMAGEDDON_BLACK_S,
) -> tuple[int, int]:
    """The Lichess clock of a :attr:`FinalStatus.next_game` (see :func:`next_game_clock`)."""
    if next_game == ARMAGEDDON:
        return (armageddon_black_s, ARMAGEDDON_INCREMENT_S)
    if next_game == fmt.tiebreak_time_control:
        return tiebreak
    return base


class Judge(Protocol):
    """A scheme's status function: :func:`status`'s shape."""

    def __call__(
        self, games: Sequence[float], fmt: FinalFormat, *, armageddon_white: str | None = None
    ) -> FinalStatus: ...


def counted_final_games(
    games: Sequence[float], fmt: FinalFormat = FINAL_2019, *, armageddon_white: str | None = None
) -> tuple[int, bool, bool]:
    """Rule 3.7 (III.G): how many of the Final's ``games`` count, whether the Final is over,
    and whether the count stops at the Armageddon because the bids for White are not in
    yet (rule 3.7.6.2, III.G.6.b: a game played before that is not the Armageddon)."""
    return counted_games_with(status, games, fmt, armageddon_white=armageddon_white)


def counted_games_with(
    judge: Judge,
    games: Sequence[float],
    fmt: FinalFormat,
    *,
    armageddon_white: str | None = None,
) -> tuple[int, bool, bool]:
    """:func:`counted_final_games` under any scheme's status function ``judge``."""
    for k in range(len(games) + 1):
        found = judge(games[:k], fmt, armageddon_white=armageddon_white)
        if found.winner is not None:
            return k, True, False
        if found.next_game == ARMAGEDDON and armageddon_white is None:
            return k, False, True
    return len(games), False, False


def final_session_over(*, agreed: datetime, under_way: bool, is_final: bool, now: datetime) -> bool:
    """Rule 6.3 (VI.C): the Final may be split over several days. Once a session's agreed
    time has come (the match is scheduled or under way), a new offer asks for the next
    session: the match negotiates again, its score kept. Other matches are one session."""
    return is_final and under_way and agreed <= now


def earliest_counted_game(
    *, agreed: datetime, round_start: datetime, is_final: bool, margin: timedelta
) -> datetime:
    """Games created from then on may count for a match: its agreed time less ``margin``
    (a game started a little early); for the Final, split over sessions (rule 6.3, VI.C),
    the start of its window, so the games of every session count."""
    start = round_start if is_final else agreed
    return min(start, agreed) - margin


def final_match_points(winner: str) -> tuple[float, float]:
    """Rule 3.7 (III.G): the Final's winner by its own rules (the Armageddon's draw odds
    included) takes the match: (champion's, challenger's) points."""
    return (1.0, 0.0) if _check_side(winner, "winner") == CHAMPION else (0.0, 1.0)
