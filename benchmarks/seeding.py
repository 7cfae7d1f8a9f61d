"""How long the seeding computation takes for a very active player, and its peak memory.

Run: .venv/bin/python benchmarks/seeding.py
"""

from __future__ import annotations

import random
import time
import tracemalloc
from datetime import UTC, datetime, timedelta

from bot.rules.seeding import DEFAULT_PEAK_FROM, DEFAULT_RATING_AT, RatedGamePoint, compute_seeding


def games(count: int) -> list[RatedGamePoint]:
    rng = random.Random(7)
    start = datetime(2018, 1, 1, tzinfo=UTC)
    return [
        RatedGamePoint(
            game_id=f"g{i}",
            url=f"https://lichess.org/g{i}",
            ended_at=start + timedelta(minutes=rng.randrange(0, 2 * 365 * 24 * 60)),
            rating_after=rng.randrange(1200, 2600),
        )
        for i in range(count)
    ]


def main() -> None:
    for count in (1_000, 10_000, 100_000):
        points = games(count)
        tracemalloc.start()
        began = time.perf_counter()
        compute_seeding(points, rating_at=DEFAULT_RATING_AT, peak_from=DEFAULT_PEAK_FROM)
        elapsed = time.perf_counter() - began
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"{count:>7} games: {elapsed * 1000:8.1f} ms, peak memory {peak / 1024:8.0f} KiB")


if __name__ == "__main__":
    main()
