"""Which Lichess games count for a match (rules III.E-F, VI), and where a match ends.

Strict validation, in the spirit of Lichess4545's heltour: a game counts only when the
players, variant, rated flag, clock, time window and status are all right. Each refusal
comes with a reason, so a player who submits a game by hand (`/game`) learns what was
wrong and the TD can check the bot's reading.

Pure functions over plain values (a `LichessGame` is a frozen dataclass): no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.lichess.models import LichessGame
from bot.rules.match import is_over

__all__ = [
    "FLAGGED_STATUSES",
    "NEVER_COUNT_STATUSES",
    "PENDING_STATUSES",
    "Verdict",
    "judge",
    "parse_game_id",
    "result_a",
    "split_at_end",
]

#: Games that were not played: they never count (and never will).
NEVER_COUNT_STATUSES = frozenset({"aborted", "noStart"})
#: Games not finished yet: they may count once they end.
PENDING_STATUSES = frozenset({"created", "started"})
#: Endings that count as Lichess scored them but that the TD must look at: "timeout" is a
#: player who left and whose opponent claimed the win (rule VI.E), "cheat" a fair-play abort.
FLAGGED_STATUSES = frozenset({"timeout", "cheat"})

_ID = r"[A-Za-z0-9]{8}"
_GAME_URL = re.compile(
    rf"^(?:https?://)?(?:www\.)?lichess\.org/(?P<id>{_ID})(?:[A-Za-z0-9]{{4}})?"
    r"(?:/(?:white|black))?/?(?:[#?].*)?$"
)
_PLAIN_ID = re.compile(rf"^(?P<id>{_ID})(?:[A-Za-z0-9]{{4}})?$")


@dataclass(frozen=True)
class Verdict:
    """The reading of one game for one match.

    `counts` True: the game is part of the match, `result_a` from the first player's side
    and `flag` set for an ending the TD must see. Otherwise `reason` says why not, and
    `pending` is True when the game is simply not over yet (it may count later).
    """

    counts: bool
    reason: str | None = None
    pending: bool = False
    result_a: float | None = None
    flag: str | None = None


def parse_game_id(text: str) -> str | None:
    """The 8-character game id of a Lichess game URL, a 12-character player URL or a plain
    id; None for anything else (another site, a profile, a study...)."""
    value = text.strip().strip("<>")
    for pattern in (_GAME_URL, _PLAIN_ID):
        found = pattern.match(value)
        if found:
            return found["id"]
    return None


def result_a(game: LichessGame, player_a: str) -> float:
    """The first player's points: 1 or 0 when `winner` is set, else 0.5 (a draw)."""
    if game.winner is None:
        return 0.5
    return 1.0 if game.color_of(player_a) == game.winner else 0.0


def _clock_text(initial: int | None, increment: int | None) -> str:
    if initial is None:
        return "no clock (correspondence)"
    minutes = f"{initial / 60:g}"
    return f"{minutes}+{increment or 0}"


def judge(
    game: LichessGame,
    *,
    player_a: str,
    player_b: str,
    variant: str,
    clock: tuple[int, int],
    earliest: datetime,
    rated: bool = True,
) -> Verdict:
    """Whether `game` counts for the match of `player_a` and `player_b` (Lichess ids).

    `clock` is the stage's (limit seconds, increment seconds): 2+5 is (120, 5), the
    Final's tie extensions (120, 0). `earliest` is the agreed time minus the margin.
    """
    a, b = player_a.lower(), player_b.lower()
    players = {game.white_id, game.black_id}
    if players != {a, b}:
        shown = " vs ".join(p or "anonymous" for p in (game.white_id, game.black_id))
        return Verdict(False, f"it is {shown}, not a game between {player_a} and {player_b}")
    if game.variant != variant:
        return Verdict(False, f"it is {game.variant}, not {variant}")
    if game.rated != rated:
        return Verdict(False, "it is casual, not rated" if rated else "it is rated, not casual")
    if (game.clock_initial, game.clock_increment) != clock:
        shown = _clock_text(game.clock_initial, game.clock_increment)
        return Verdict(False, f"its clock is {shown}, not {_clock_text(*clock)}")
    if game.created_at < earliest:
        return Verdict(False, "it was started before the match's agreed time")
    if game.status in NEVER_COUNT_STATUSES:
        return Verdict(False, f"it was not played (status {game.status})")
    if game.status in PENDING_STATUSES or not game.finished:
        return Verdict(False, "it is not finished yet", pending=True)
    flag = game.status if game.status in FLAGGED_STATUSES else None
    return Verdict(True, result_a=result_a(game, a), flag=flag)


def split_at_end(results: Sequence[float], *, games: int, early_stop: bool) -> tuple[int, bool]:
    """How many of the counted games (first player's results, in order) belong to the
    match, and whether the match is over. Games after the end are the rest of the list:
    they do not count (rule III.E.1: the players may stop; what they play after is not
    part of the match)."""
    score_a = score_b = 0.0
    for index, result in enumerate(results):
        if is_over(score_a, score_b, games=games, early_stop=early_stop):
            return index, True
        score_a += result
        score_b += 1.0 - result
    return len(results), is_over(score_a, score_b, games=games, early_stop=early_stop)
