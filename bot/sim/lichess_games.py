"""Lichess JSON of games, as the fake Lichess (:mod:`bot.sim.fake_lichess`) serves them: one
game from its fields, and an account's history of alike games kept as a rule."""

from __future__ import annotations

import hashlib
import random
import string
from collections.abc import Callable
from dataclasses import dataclass
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


def game_json(
    *,
    spell: Callable[[str], str],
    white: str,
    black: str,
    created_at: datetime,
    id: str,
    last_move_at: datetime | None = None,
    rated: bool = True,
    variant: str = "antichess",
    status: str = "resign",
    winner: str | None = "white",
    white_rating: int = 1500,
    black_rating: int = 1500,
    white_rating_diff: int | None = 0,
    black_rating_diff: int | None = 0,
    clock: tuple[int, int] | None = (120, 5),
) -> dict[str, Any]:
    """A game's Lichess JSON; `spell` gives an account's own spelling of a name."""
    speed = speed_of(clock)
    perf = speed if variant in ("standard", "fromPosition") else variant

    def player(name: str, rating: int, diff: int | None) -> dict[str, Any]:
        user = {"name": spell(name), "id": name.lower()}
        p: dict[str, Any] = {"user": user, "rating": rating}
        if diff is not None and rated:
            p["ratingDiff"] = diff
        return p

    game: dict[str, Any] = {
        "id": id,
        "rated": rated,
        "variant": variant,
        "speed": speed,
        "perf": perf,
        "createdAt": ms(created_at),
        "lastMoveAt": ms(last_move_at or created_at + timedelta(minutes=5)),
        "status": status,
        "source": "lobby",
        "players": {
            "white": player(white, white_rating, white_rating_diff),
            "black": player(black, black_rating, black_rating_diff),
        },
    }
    if winner is not None:
        game["winner"] = winner
    if clock is not None:
        game["clock"] = {
            "initial": clock[0],
            "increment": clock[1],
            "totalTime": clock[0] + 40 * clock[1],
        }
    return game


@dataclass(frozen=True, slots=True)
class StoredGame:
    """One game the fake Lichess holds: its fields, made into JSON when a request reads it.
    A game's JSON is seven dicts (about 1.8 KB); a 256-player simulation plans ten thousand
    match games up front, so the fields (a sixth of that) are what stays in memory."""

    id: str
    white: str
    black: str
    created_at: datetime
    last_move_at: datetime | None
    rated: bool
    variant: str
    status: str
    winner: str | None
    white_rating: int
    black_rating: int
    white_rating_diff: int | None
    black_rating_diff: int | None
    clock: tuple[int, int] | None
    created_ms: int
    listed_ms: int | None  # invisible until the fake's clock reaches this (ms)

    def json(self, spell: Callable[[str], str]) -> dict[str, Any]:
        """Its Lichess JSON, names spelled by `spell`."""
        return game_json(
            spell=spell,
            id=self.id,
            white=self.white,
            black=self.black,
            created_at=self.created_at,
            last_move_at=self.last_move_at,
            rated=self.rated,
            variant=self.variant,
            status=self.status,
            winner=self.winner,
            white_rating=self.white_rating,
            black_rating=self.black_rating,
            white_rating_diff=self.white_rating_diff,
            black_rating_diff=self.black_rating_diff,
            clock=self.clock,
        )


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
            out.append(
                game_json(
                    spell=spell,
                    white=self.uid,
                    black=self.opponent,
                    created_at=created,
                    last_move_at=created + self.length,
                    white_rating=self.rating,
                    id=self.game_id(seed, index),
                )
            )
        return out

    def game_id(self, seed: int | None, index: int) -> str:
        digest = hashlib.sha256(f"{seed}:{self.uid}:{index}".encode()).digest()
        alphabet = string.ascii_letters + string.digits
        return "".join(alphabet[b % len(alphabet)] for b in digest[:8])
