"""A 2019 Swiss filled without the bot, for the benchmarks that need a championship at a
size the simulator would take minutes for (latency.py, web_pages.py): who meets whom, and
each match's games."""

from __future__ import annotations

import random

from bot.rules.match import is_over
from db.models import Player


def pair(order: list[Player], met: set[tuple[int, int]]) -> list[tuple[Player, Player]]:
    """Neighbours in the table, skipping a rematch where the table allows it."""
    left, pairs = list(order), []
    while len(left) > 1:
        first = left.pop(0)
        index = next((i for i, p in enumerate(left) if (first.id, p.id) not in met), 0)
        second = left.pop(index)
        met |= {(first.id, second.id), (second.id, first.id)}
        pairs.append((first, second))
    return pairs


def play(rng: random.Random, a: Player, b: Player) -> list[float]:
    """Game results for a (1, 0.5, 0) until the Swiss match is over (rule III.E.1)."""
    results: list[float] = []
    edge = 0.5 + ((a.seeding_rating or 0) - (b.seeding_rating or 0)) / 2000
    while not is_over(sum(results), sum(1 - r for r in results)):
        roll = rng.random()
        results.append(0.5 if roll < 0.15 else (1.0 if roll < 0.15 + 0.85 * edge else 0.0))
    return results
