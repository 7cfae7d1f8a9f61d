"""How long Swiss pairing takes over a whole simulated Swiss, and how many floaters it makes.

Every round of a Swiss of 64, 128, 256 and 1024 players is paired; match
results are drawn from the players' ratings (Elo expectation, with a share of
5-5 draws).  Prints the median and worst time per round and the number of
players paired outside their score group.  Targets: a 128-player round under
0.1 s, a 1024-player round under 10 s.

Run: .venv/bin/python benchmarks/pairing.py [sizes...]
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from bot.rules.swiss import Result, number_of_rounds, pair_round, standings


def play(rng: random.Random, rating_a: float, rating_b: float) -> tuple[float, float]:
    """A 10-game match: draw 5-5 with some chance, else Elo expectation decides."""
    expected = 1 / (1 + 10 ** ((rating_b - rating_a) / 400))
    if rng.random() < 0.15:
        return 0.5, 0.5
    return (1.0, 0.0) if rng.random() < expected else (0.0, 1.0)


def simulate(n_players: int, seed: int = 2019) -> None:
    rng = random.Random(seed)
    ratings = sorted((rng.gauss(1900, 250) for _ in range(n_players)), reverse=True)
    seeding = [f"player{i:04d}" for i in range(1, n_players + 1)]
    rating = dict(zip(seeding, ratings, strict=True))
    results: list[Result] = []
    times: list[float] = []
    floaters: list[int] = []
    rounds = number_of_rounds(n_players)
    for _ in range(rounds):
        points = {row.player: row.points for row in standings(seeding, results)}
        began = time.perf_counter()
        pairs = pair_round(seeding, results)
        times.append(time.perf_counter() - began)
        floaters.append(sum(2 for a, b in pairs if b is not None and points[a] != points[b]))
        for a, b in pairs:
            if b is None:
                results.append((a, None, 1.0, 0.0))
            else:
                pa, pb = play(rng, rating[a], rating[b])
                results.append((a, b, pa, pb))
    print(
        f"{n_players:>5} players, {rounds:>2} rounds: "
        f"median {statistics.median(times) * 1000:9.1f} ms, "
        f"worst {max(times) * 1000:9.1f} ms per round; "
        f"floaters per round {floaters} (total {sum(floaters)})"
    )


def main() -> None:
    sizes = [int(arg) for arg in sys.argv[1:]] or [64, 128, 256, 1024]
    for size in sizes:
        simulate(size)


if __name__ == "__main__":
    main()
