"""A match as the simulation plans it, from the seed and the match alone: its games (who has
White, when each starts and ends, its result) and what the players do between them. The
timings are those the bot's messages promise: a game is listed when it ends, a break ends
before the next game, a player who left is back in the return period (rule VI.E)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from db.models import Stage

GAME_LENGTH = timedelta(minutes=8)  # a game's length on the fake Lichess (listed when it ends)
GAME_GAP = timedelta(minutes=10)  # from one game's start to the next's
# Rule VI.E as the simulation plays it: the report a minute after a game ended, the player
# back 2 minutes later, and a quick game (5 minutes) the bot reads before the return period
# ends, so the bot sees them back in time.
LEFT_REPORT, LEFT_BACK, QUICK_GAME = (
    timedelta(minutes=9),
    timedelta(minutes=2),
    timedelta(minutes=5),
)


def aware(moment: datetime) -> datetime:
    """A time read back from the database (SQLite keeps no zone) as UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def match_stage(stage: Stage) -> bool:
    """A row whose matches follow a match format (`bot.rules.final`): a final match, or a
    knock-out's matches (won by more points, then the tie's games and the Armageddon)."""
    return stage.kind.value in ("final", "knockout")


def game_id(seed: int, match_id: int, number: int) -> str:
    """A game's Lichess id, from the match and the game's number: the same in every run."""
    return hashlib.sha256(f"{seed}:game:{match_id}:{number}".encode()).hexdigest()[:8]


@dataclass(frozen=True)
class PlannedGame:
    """One game as it will be played (its result decided by the seed)."""

    id: str
    white: str
    black: str
    created_at: datetime
    winner: str | None
    clock: tuple[int, int]
    # The Armageddon is played on the bot's own link: who has White comes from that link
    # (Lichess gives it to the first of its two users), so it is stored once the link is out.
    armageddon: bool = False
    result_a: float = 0.5
    length: timedelta = GAME_LENGTH


@dataclass
class MatchPlan:
    """A match's games and the players' moves between them:
    ("break" | "left" | "bids" | "at", when)."""

    games: list[PlannedGame] = field(default_factory=list)
    events: list[tuple[str, datetime]] = field(default_factory=list)
    end: datetime = datetime(1970, 1, 1, tzinfo=UTC)  # set once the games are planned


def armageddon_clocks(black_s: int, white_bid_s: int, moves: int = 20) -> tuple[int, ...]:
    """An Armageddon's clock record as Lichess keeps one (centiseconds left after each
    move, White's first): White ends five seconds inside the time their bid leaves them
    (the bot checks it, rule III.G.6.b), Black at 0:30."""
    full = black_s * 100
    floor = (black_s - white_bid_s) * 100 + 500
    record: list[int] = []
    for move in range(1, moves + 1):
        record.append(full - (full - floor) * move // moves)
        record.append(full - (full - 3_000) * move // moves)
    return tuple(record)
