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
    """One simulated entrant: their Lichess name, Discord id and true strength (their
    rating at the cut-off), and how far above it their peak of the year before went (0: the
    rating never moved)."""

    name: str
    discord_id: int
    rating: int
    peak_gain: int = 0


def make_players(seed: int, count: int, first_discord_id: int) -> list[SimPlayer]:
    """The entrants of a seed: the same names and strengths in every run of it."""
    rng = random.Random(f"{seed}:players")
    names: list[str] = []
    while len(names) < count:
        name = f"{rng.choice(FIRST)}{rng.choice(LAST)}{rng.randint(1, 99)}"
        if name.lower() not in {n.lower() for n in names}:
            names.append(name)
    ratings = [rng.randint(1700, 2400) for _ in names]
    # Half the field peaked above their cut-off rating (a dice of its own, so the names and
    # ratings of a seed stay those of earlier runs): rule III.E.3's mean of the two then
    # differs from either, and can reorder the seeds.
    peaks = random.Random(f"{seed}:peaks")
    gains = [peaks.randint(20, 240) if peaks.random() < 0.5 else 0 for _ in names]
    return [
        SimPlayer(name, first_discord_id + index, rating, gain)
        for index, (name, rating, gain) in enumerate(zip(names, ratings, gains, strict=True))
    ]


def add_account(
    fake: FakeLichess,
    name: str,
    rating: int,
    *,
    games: int,
    before: datetime,
    created_at: datetime = datetime(2016, 6, 1, tzinfo=UTC),
    peak_gain: int = 0,
) -> None:
    """An account old enough, with `games` rated antichess games before the cut-off (one
    every two hours, at `rating`; the middle one at `rating + peak_gain`)."""
    fake.add_user(name, created_at=created_at)
    fake.add_history(
        name,
        games=games,
        rating=rating,
        before=before,
        every=timedelta(hours=2),
        peak_gain=peak_gain,
    )


def game_result(rng: random.Random, rating_a: int, rating_b: int) -> float:
    """Player a's result: the Elo expectation decides, with one game in eight drawn."""
    if rng.random() < 0.125:
        return 0.5
    expected = 1.0 / (1.0 + 10 ** ((rating_b - rating_a) / 400))
    return 1.0 if rng.random() < expected else 0.0
