"""Lichess JSON of games, as the fake Lichess (:mod:`acwc_sim.fake_lichess`) serves them: one
game from its fields, and an account's history of alike games kept as a rule."""

from __future__ import annotations

import hashlib
import random
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def ms(dt: datetime) -> int:
    """Milliseconds since epoch of an aware (or naive = UTC) datetime."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return (dt - _EPOCH) // timedelta(milliseconds=1)


def speed_of(clock: tuple[int, int] | None) -> str:
    """Lichess's speed class of a clock (initial s, increment s), from its estimated time."""
    if clock is None:
        return "correspondence"
    total = clock[0] + 40 * clock[1]
    if total < 30:
        return "ultraBullet"
    if total < 180:
        return "bullet"
    if total < 480:
        return "blitz"
    if total < 1500:
        return "rapid"
    return "classical"


def new_game_id(rng: random.Random, n: int = 8) -> str:
    """A Lichess-like 8-character game id, from the fake's seeded generator."""
    return "".join(rng.choices(string.ascii_letters + string.digits, k=n))


@dataclass(frozen=True, slots=True)
class StoredGame:
    """One game the fake Lichess holds: its fields (with the fake's defaults), made into
    JSON when a request reads it. A game's JSON is seven dicts (about 1.8 KB); a 256-player
    simulation plans ten thousand match games up front, so the fields (a sixth of that) are
    what stays in memory."""

    white: str
    black: str
    created_at: datetime
    id: str = ""
    last_move_at: datetime | None = None
    rated: bool = True
    variant: str = "antichess"
    status: str = "resign"
    winner: str | None = "white"
    white_rating: int = 1500
    black_rating: int = 1500
    white_rating_diff: int | None = 0
    black_rating_diff: int | None = 0
    clock: tuple[int, int] | None = (120, 5)
    # The clock record (each side's time left after each of its moves, centiseconds,
    # White's first): Lichess keeps one for every game played with a clock.
    clocks: tuple[int, ...] | None = None
    listed_ms: int | None = None  # invisible until the fake's clock reaches this (ms)
    created_ms: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "created_ms", ms(self.created_at))

    def json(self, spell: Callable[[str], str]) -> dict[str, Any]:
        """Its Lichess JSON; `spell` gives an account's own spelling of a name."""
        speed = speed_of(self.clock)
        perf = speed if self.variant in ("standard", "fromPosition") else self.variant

        def player(name: str, rating: int, diff: int | None) -> dict[str, Any]:
            user = {"name": spell(name), "id": name.lower()}
            p: dict[str, Any] = {"user": user, "rating": rating}
            if diff is not None and self.rated:
                p["ratingDiff"] = diff
            return p

        game: dict[str, Any] = {
            "id": self.id,
            "rated": self.rated,
            "variant": self.variant,
            "speed": speed,
            "perf": perf,
            "createdAt": self.created_ms,
            "lastMoveAt": ms(self.last_move_at or self.created_at + timedelta(minutes=5)),
            "status": self.status,
            "source": "lobby",
            "players": {
                "white": player(self.white, self.white_rating, self.white_rating_diff),
                "black": player(self.black, self.black_rating, self.black_rating_diff),
            },
        }
        if self.winner is not None:
            game["winner"] = self.winner
        if self.clock is not None:
            initial, increment = self.clock
            game["clock"] = {
                "initial": initial,
                "increment": increment,
                "totalTime": initial + 40 * increment,
            }
        if self.clocks is not None:
            game["clocks"] = list(self.clocks)  # the export sends it only when asked
        return game


@dataclass(frozen=True)
class History:
    """A run of alike rated games one account played before the championship, kept as a
    rule instead of thousands of stored games: a 256-player simulation gives each entrant
    a hundred, and as JSON they were most of the run's memory. Its games are made when a
    request reads them, with the same ids every time."""

    uid: str
    opponent: str
    rating: int
    first: datetime  # createdAt of the oldest game
    every: timedelta
    count: int
    length: timedelta = timedelta(minutes=10)
    peak_gain: int = 0  # the middle game's rating is this much higher: the year's peak

    @property
    def last_created_ms(self) -> int:
        return ms(self.first + self.every * (self.count - 1))

    def games(
        self, seed: int | None, spell: Callable[[str], str], since_ms: int | None = None
    ) -> list[dict[str, Any]]:
        """Its games as Lichess JSON, only those created at `since_ms` or later."""
        if self.count == 0 or (since_ms is not None and self.last_created_ms < since_ms):
            return []
        out = []
        for index in range(self.count):
            created = self.first + self.every * index
            if since_ms is not None and ms(created) < since_ms:
                continue
            game = StoredGame(
                self.uid,
                self.opponent,
                created,
                id=self.game_id(seed, index),
                last_move_at=created + self.length,
                white_rating=self.rating + (self.peak_gain if index == self.count // 2 else 0),
            )
            out.append(game.json(spell))
        return out

    def game_id(self, seed: int | None, index: int) -> str:
        digest = hashlib.sha256(f"{seed}:{self.uid}:{index}".encode()).digest()
        alphabet = string.ascii_letters + string.digits
        return "".join(alphabet[b % len(alphabet)] for b in digest[:8])
