"""Every edition's final-match schemes, behind one dispatch table (:class:`FinalScheme`).

* ``lead_by_two`` (2019, and 2020's Grand Final and Third Place Playoff): :mod:`bot.rules.final`
  as it is; 2020 sets ``clock_change`` to ``after_lead_rule_games`` and the tiebreak clock
  to 3+0 (2020 rules, Final Matches: "If, after 24 games, there is still no winner decided,
  the 'must be ahead by two points' restriction gets dropped, and the time control becomes
  3+0").
* ``tiebreak_games`` (2022-2024 rules, Final Matches; with 0 tiebreak games the 2020
  Knock-Out and the 2021-2024 Semifinal Matches, "If there is no winner after 10 games, then
  an armageddon game will decide the winner"): ``base_games`` won by more points; a tie, then
  ``tiebreak_games`` more (Grand Final 4, Third Place Playoff 2), won by more points in them;
  still tied, the Armageddon. The tiebreak games keep the match's clock (``time_control``):
  the texts name no other.
* ``week_repeats`` (2021 rules, Final Matches: "If there is no winner after week 1, repeat.
  If there is no winner after week 2, repeat. If there is no winner after week 3, then an
  armageddon game will decide the winner."): ``base_games`` a week won by more points; a
  tied week is played again, at most ``weeks`` weeks, then the Armageddon.

A block's score starts again (the tiebreak games, a new week), but each earlier block was
tied, so the difference over all games is the block's: the scores below count every game.
A block ends early once its result can no longer change (7-0 after 7 of 12 games: 7 > 12/2),
computed by :func:`bot.rules.final.possible_winners`, the 2019 Final's exploration.

Results are from side ``a``'s point of view, which plays the ``"champion"`` side of
:class:`bot.rules.final.FinalStatus` (a Grand Final has no champion: the names are sides).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.rules import final
from bot.rules.final import (
    ARMAGEDDON,
    ARMAGEDDON_BLACK_S,
    CHALLENGER,
    CHAMPION,
    ClockChange,
    FinalFormat,
    FinalScheme,
    FinalStatus,
    FinalTurn,
)

__all__ = [
    "FINAL_2020",
    "FINAL_2021",
    "GRAND_FINAL_2022",
    "KNOCK_OUT_2020",
    "NEW_WEEK",
    "SEMIFINAL_2021",
    "THIRD_PLACE_2022",
    "TIEBREAK_GAMES_START",
    "Block",
    "armageddon_point",
    "blocks",
    "counted_games",
    "next_game_clock",
    "status",
    "turn_after",
    "week_of",
]

#: What a match turns into after a game, beyond :mod:`bot.rules.final`'s kinds.
TIEBREAK_GAMES_START = "tiebreak_games_start"  # 2022-2024: the base block was tied
NEW_WEEK = "new_week"  # 2021: the week was tied, it is played again

#: 2020 rules, Final Matches (the Grand Final and the Third Place Playoff alike).
FINAL_2020 = FinalFormat(
    clock_change=ClockChange.AFTER_LEAD_RULE_GAMES, tiebreak_time_control="3+0"
)
#: 2021 rules, Final Matches (both).
FINAL_2021 = FinalFormat(scheme=FinalScheme.WEEK_REPEATS, weeks=3)
#: 2022-2024 rules, Final Matches.
GRAND_FINAL_2022 = FinalFormat(scheme=FinalScheme.TIEBREAK_GAMES, tiebreak_games=4)
THIRD_PLACE_2022 = FinalFormat(scheme=FinalScheme.TIEBREAK_GAMES, tiebreak_games=2)
#: 2021-2024 rules, Semifinal Matches; the 2020 Knock-Out ("Ties will be decided by an
#: Armageddon game").
SEMIFINAL_2021 = FinalFormat(scheme=FinalScheme.TIEBREAK_GAMES, base_games=10, tiebreak_games=0)
KNOCK_OUT_2020 = SEMIFINAL_2021


def _count(value: object, name: str, *, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name} must be an integer of at least {least}, got {value!r}")


def _more_points(diff2: int) -> str | None:
    """The side ahead on points, or None when level."""
    return CHAMPION if diff2 > 0 else CHALLENGER if diff2 < 0 else None


# --- tiebreak_games ------------------------------------------------------------------------


def _tiebreak_check(p: FinalFormat) -> None:
    _count(p.base_games, "base_games", least=1)
    _count(p.tiebreak_games, "tiebreak_games", least=0)


def _tiebreak_checkpoint(p: FinalFormat, n: int, diff2: int) -> str | None:
    """After the base block, then after the tiebreak games: more points win; level at the
    end, the Armageddon."""
    end = p.base_games + p.tiebreak_games
    if n not in (p.base_games, end):
        return None
    leader = _more_points(diff2)
    if leader is None and n == end:
        return ARMAGEDDON
    return leader


def _tiebreak_turn(p: FinalFormat, st: FinalStatus) -> FinalTurn:
    if st.winner is None and st.games_played == p.base_games and p.tiebreak_games:
        return FinalTurn(TIEBREAK_GAMES_START, st, p.base_games + p.tiebreak_games)
    return _armageddon_turn(p, st)


# --- week_repeats --------------------------------------------------------------------------


def _weeks_check(p: FinalFormat) -> None:
    _count(p.base_games, "base_games", least=1)
    _count(p.weeks, "weeks", least=1)


def _weeks_checkpoint(p: FinalFormat, n: int, diff2: int) -> str | None:
    """After each week: more points win; a tied last week, the Armageddon."""
    if n == 0 or n % p.base_games:
        return None
    leader = _more_points(diff2)
    if leader is None and n >= p.base_games * p.weeks:
        return ARMAGEDDON
    return leader


def _weeks_turn(p: FinalFormat, st: FinalStatus) -> FinalTurn:
    n = st.games_played
    if st.winner is None and st.next_game != ARMAGEDDON and n and n % p.base_games == 0:
        return FinalTurn(NEW_WEEK, st, n + p.base_games)
    return _armageddon_turn(p, st)


def week_of(fmt: FinalFormat, game: int) -> int:
    """The week (1, 2, ...) the match's ``game``-th game (from 1) belongs to under
    ``week_repeats``; the Armageddon is in the last week."""
    _weeks_check(fmt)
    _count(game, "game", least=1)
    return min((game - 1) // fmt.base_games + 1, fmt.weeks)


# --- the dispatch table --------------------------------------------------------------------


def _armageddon_turn(p: FinalFormat, st: FinalStatus) -> FinalTurn:
    """The Armageddon is announced once, after the game that leaves it the only way."""
    starts = st.next_game == ARMAGEDDON and st.games_played == armageddon_point(p)
    return FinalTurn(ARMAGEDDON if starts else None, st)


@dataclass(frozen=True)
class _Scheme:
    check: Callable[[FinalFormat], None]
    checkpoint: final.Checkpoint
    armageddon_after: Callable[[FinalFormat], int]
    turn: Callable[[FinalFormat, FinalStatus], FinalTurn]


_SCHEMES: dict[FinalScheme, _Scheme] = {
    FinalScheme.TIEBREAK_GAMES: _Scheme(
        _tiebreak_check,
        _tiebreak_checkpoint,
        lambda p: p.base_games + p.tiebreak_games,
        _tiebreak_turn,
    ),
    FinalScheme.WEEK_REPEATS: _Scheme(
        _weeks_check, _weeks_checkpoint, lambda p: p.base_games * p.weeks, _weeks_turn
    ),
}


def _scheme(fmt: FinalFormat) -> _Scheme | None:
    """The later scheme's functions, None for ``lead_by_two`` (:mod:`bot.rules.final`)."""
    if fmt.scheme == FinalScheme.LEAD_BY_TWO:
        return None
    if fmt.scheme not in _SCHEMES:
        raise ValueError(f"scheme must be one of {list(FinalScheme)}, got {fmt.scheme!r}")
    scheme = _SCHEMES[fmt.scheme]
    scheme.check(fmt)
    return scheme


def armageddon_point(fmt: FinalFormat) -> int:
    """The number of games after which a level match goes to the Armageddon: 30 in 2019 and
    2020, ``base_games + tiebreak_games`` (16, 14, 10), ``base_games * weeks`` (36)."""
    scheme = _scheme(fmt)
    return fmt.armageddon_after if scheme is None else scheme.armageddon_after(fmt)


def _same_clock(fmt: FinalFormat, played: int) -> str:
    """The later schemes keep the match's clock up to the Armageddon."""
    return fmt.time_control


def status(
    games: Sequence[float], fmt: FinalFormat, *, armageddon_white: str | None = None
) -> FinalStatus:
    """Where a final match of any scheme stands after ``games`` (side a's results), as
    :func:`bot.rules.final.status` says for ``lead_by_two``: the winner or None, the scores
    of every game, the games played, and the next game's clock or ``"armageddon"``.
    ``ValueError`` for a bad result, a result after the decision, a drawn Armageddon without
    ``armageddon_white``, or an impossible format."""
    scheme = _scheme(fmt)
    if scheme is None:
        return final.status(games, fmt, armageddon_white=armageddon_white)
    return final.scheme_status(
        games,
        fmt,
        checkpoint=scheme.checkpoint,
        armageddon_after=scheme.armageddon_after(fmt),
        clock=_same_clock,
        armageddon_white=armageddon_white,
    )


def turn_after(
    games: Sequence[float], fmt: FinalFormat, *, armageddon_white: str | None = None
) -> FinalTurn:
    """What the match turns into after its last game, for the bot to announce: for
    ``lead_by_two`` :func:`bot.rules.final.turn_after`'s kinds (extended; the two-point rule
    dropped and the clock changed; a tiebreak extension); :data:`TIEBREAK_GAMES_START` (the
    base block tied); :data:`NEW_WEEK` (a week tied); ``"armageddon"``; None otherwise.
    ``block_end`` is the last game of the games just added. ``ValueError`` as :func:`status`."""
    scheme = _scheme(fmt)
    if scheme is None:
        return final.turn_after(games, fmt, armageddon_white=armageddon_white)
    return scheme.turn(fmt, status(games, fmt, armageddon_white=armageddon_white))


def next_game_clock(
    games: Sequence[float],
    fmt: FinalFormat,
    *,
    base: tuple[int, int],
    tiebreak: tuple[int, int],
    armageddon_black_s: int = ARMAGEDDON_BLACK_S,
) -> tuple[int, int]:
    """The Lichess clock of the next game (:func:`bot.rules.final.next_game_clock` for any
    scheme): ``base``, ``tiebreak`` once ``lead_by_two`` changes it, the Armageddon's Black
    clock and no increment. A match already decided (or impossible input) keeps ``base``."""
    try:
        next_game = status(games, fmt).next_game
    except ValueError:
        return base
    return final.clock_of(
        next_game, fmt, base=base, tiebreak=tiebreak, armageddon_black_s=armageddon_black_s
    )


def counted_games(
    games: Sequence[float], fmt: FinalFormat, *, armageddon_white: str | None = None
) -> tuple[int, bool, bool]:
    """:func:`bot.rules.final.counted_final_games` for any scheme: how many games count,
    whether the match is over, and whether the count waits at the Armageddon for the bids."""
    return final.counted_games_with(status, games, fmt, armageddon_white=armageddon_white)


# --- the blocks a match is played in --------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """A run of games the rules treat as one (games ``first`` to ``last``, from 1):
    ``kind`` "first" (the first block, rule III.G.1), "extension" (``number``-th two-game
    extension, rule III.G.3), "tiebreak_games" (2022-2024), "week" (the
    ``number``-th week, 2021) or "armageddon" (its one game, rule III.G.6)."""

    kind: str
    number: int
    first: int
    last: int


def _runs(fmt: FinalFormat) -> list[Block]:
    """Every block the scheme can reach before the Armageddon, in order."""
    base = Block("first", 1, 1, fmt.base_games)
    if fmt.scheme == FinalScheme.WEEK_REPEATS:
        _weeks_check(fmt)
        size = fmt.base_games
        return [Block("week", n, (n - 1) * size + 1, n * size) for n in range(1, fmt.weeks + 1)]
    if fmt.scheme == FinalScheme.TIEBREAK_GAMES:
        _tiebreak_check(fmt)
        if fmt.tiebreak_games == 0:
            return [base]
        end = fmt.base_games + fmt.tiebreak_games
        return [base, Block("tiebreak_games", 1, fmt.base_games + 1, end)]
    out, start, number = [base], fmt.base_games + 1, 1
    while start <= fmt.armageddon_after:
        end = min(start + fmt.extension_games - 1, fmt.armageddon_after)
        out.append(Block("extension", number, start, end))
        start, number = end + 1, number + 1
    return out


def blocks(fmt: FinalFormat, played: int) -> list[Block]:
    """The blocks the first ``played`` games of a match fall in, in order (the last one
    may be under way): how a scoreboard groups a final or knock-out match's games so each
    block's score can be read (a tied block is why the next one is played). The game
    after :func:`armageddon_point` is the Armageddon's block. ``ValueError`` for a
    negative count or an impossible format."""
    if played < 0:
        raise ValueError(f"played must be at least 0, got {played}")
    reached = [b for b in _runs(fmt) if b.first <= played]
    point = armageddon_point(fmt)
    if played > point:
        reached.append(Block(ARMAGEDDON, 1, point + 1, point + 1))
    return reached
