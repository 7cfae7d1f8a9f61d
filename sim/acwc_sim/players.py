"""The simulated players: Lichess accounts with a rating history, and games whose results
follow the ratings (Elo expectation), each from a generator seeded by what it decides."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from acwc_sim.fake_lichess import FakeLichess

FIRST = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gil", "Hu", "Ivo", "Jo", "Kai", "Lu", "Mo"]
LAST = ["vanDijk", "Rossi", "Ito", "Novak", "Berg", "Silva", "Kahn", "Moreau", "Lund"]


@dataclass(frozen=True)
class SimPlayer:
    """One simulated entrant: their Lichess name, Discord id and true strength."""

    name: str
    discord_id: int
    rating: int


def make_players(seed: int, count: int, first_discord_id: int) -> list[SimPlayer]:
    """The entrants of a seed: the same names and strengths in every run of it."""
    rng = random.Random(f"{seed}:players")
    names: list[str] = []
    while len(names) < count:
        name = f"{rng.choice(FIRST)}{rng.choice(LAST)}{rng.randint(1, 99)}"
        if name.lower() not in {n.lower() for n in names}:
            names.append(name)
    return [
        SimPlayer(name, first_discord_id + index, rng.randint(1700, 2400))
        for index, name in enumerate(names)
    ]


def add_account(
    fake: FakeLichess,
    name: str,
    rating: int,
    *,
    games: int,
    before: datetime,
    created_at: datetime = datetime(2016, 6, 1, tzinfo=UTC),
) -> None:
    """An account old enough, with `games` rated antichess games before the cut-off (one
    every two hours, at `rating`)."""
    fake.add_user(name, created_at=created_at)
    fake.add_history(name, games=games, rating=rating, before=before, every=timedelta(hours=2))


def game_result(rng: random.Random, rating_a: int, rating_b: int) -> float:
    """Player a's result: the Elo expectation decides, with one game in eight drawn."""
    if rng.random() < 0.125:
        return 0.5
    expected = 1.0 / (1.0 + 10 ** ((rating_b - rating_a) / 400))
    return 1.0 if rng.random() < expected else 0.0
