"""Swiss pairing on hard late rounds: time, players sent down, score differences, an exact check.

Families (seeded, valid histories: no rematch, one bye at most, paired by the bot round by
round except where a family fixes the pairs):

- ``random``: random match results (wins, losses, some 5-5 draws);
- ``odd``: many draws, so many small score groups of odd size;
- ``topmet``: six players play a round robin among themselves first (all drawn) and win
  every later match, so the top score group is six players who have all met; the rest never
  pass the top score;
- ``withdraw``: random results, then a tenth of the field withdraws, leaving an odd field
  (a bye);
- ``draws``: every match drawn: one big score group;
- ``mixed``: ``topmet`` with withdrawals and draws;
- ``bigdraw`` (issue 34): nearly every match drawn, a few decisive (one in 300), so after
  eight rounds nearly the whole field shares one score group and every player has met
  eight of it: round 9 is paired, as the issue measured it;
- ``groupsmet`` (issue 34): six clusters of 20 to 60 players play all their rounds but
  ``k`` among themselves (the circle method, every match drawn) and win those ``k`` against
  the rest (who meet each other at random, every match drawn, so they stay below the
  clusters), ``k`` from 1 to 6, the smallest cluster playing most rounds inside: six mid-sized
  score groups whose members have met many of each other; round 9 is paired.

For each case the round paired is the last one of the Swiss (rule III.E.2), but for
``bigdraw`` and ``groupsmet``: round 9 (or the last, if the Swiss is shorter). Prints per case:
the time of the rule's ``pair_round`` (median and worst of several runs, and the worst in
CPU time of this process, which other work on the machine does not stretch), the players sent
down (the pairs across each score-group boundary, summed over the boundaries), the largest
and total score difference, and whether an independent exact check agrees
(`tests/rules/swiss_oracle.py`: one maximum weight matching over every allowed pair with
weights that encode the objective: unbounded with networkx up to 128 players, bounded by
the rounds played with rustworkx above). Then a
summary: the cases the check agrees on, the worst round per size, and the load average of
the machine while it ran. Targets: the worst round at 128 players under 0.1 s, at 1,024
under 1 s.

Run: .venv/bin/python benchmarks/pairing.py [--sizes 16,64,...] [--families ...] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.rules.swiss import Result, number_of_rounds, pair_round, standings
from tests.rules.swiss_oracle import best, objective

SIZES = [16, 64, 127, 128, 129, 256, 512, 1024]
FAMILIES = ["random", "odd", "topmet", "withdraw", "draws", "mixed", "bigdraw", "groupsmet"]

#: The families that pair round 9 (eight rounds played), as issue 34 measured them.
ROUND_NINE = ("bigdraw", "groupsmet")

#: ``groupsmet``'s clusters, the first playing most rounds inside.
GROUPSMET_SIZES = [20, 26, 32, 40, 50, 60]

#: One match in this many is decisive in ``bigdraw``.
BIGDRAW_DECISIVE = 300


def outcome(rng: random.Random, family: str) -> tuple[float, float]:
    roll = rng.random()
    if family in ("draws",):
        return 0.5, 0.5
    if family == "bigdraw":
        if roll >= 1 / BIGDRAW_DECISIVE:
            return 0.5, 0.5
        return (1.0, 0.0) if rng.random() < 0.5 else (0.0, 1.0)
    draw_share = 0.45 if family in ("odd", "mixed") else 0.15
    if roll < draw_share:
        return 0.5, 0.5
    return (1.0, 0.0) if rng.random() < 0.5 else (0.0, 1.0)


def history(family: str, n: int, seed: int) -> tuple[list[str], list[Result], list[str]]:
    """A valid past of every round but the last, for one family."""
    rng = random.Random(f"{family}-{n}-{seed}")
    seeding = [f"p{i:04d}" for i in range(n)]
    results: list[Result] = []
    withdrawn: list[str] = []
    rounds = number_of_rounds(n) - 1
    if family in ROUND_NINE:
        rounds = min(rounds, 8)
    if family == "groupsmet":
        return seeding, _clusters(rng, seeding, rounds), withdrawn
    top = seeding[:6] if family in ("topmet", "mixed") else []
    first = 0
    if top:  # the top six meet each other in rounds 1-5, all drawn; the rest meet at random
        for r in range(5):
            order = [top[0], *top[1:][r:], *top[1:][:r]]
            results += [(order[i], order[5 - i], 0.5, 0.5) for i in range(3)]
            rest = seeding[6:]
            rng.shuffle(rest)
            met = {frozenset((a, b)) for a, b, _, _ in results if b is not None}
            points = {row.player: row.points for row in standings(seeding, results)}
            results += _random_round(rng, rest, met, family, points, cap=0.5 * r + 0.6)
        first = 5
    for r in range(first, rounds):
        if family in ("withdraw", "mixed") and r == rounds - 1:
            withdrawn = sorted(rng.sample(seeding[6:], max(1, n // 10) | 1))
        pairs = pair_round(seeding, results, withdrawn=withdrawn)
        points = {row.player: row.points for row in standings(seeding, results)}
        cap = max(points[p] for p in top) + 1 if top else None
        for a, b in pairs:
            if b is None:
                results.append((a, None, 1.0, 0.0))
            elif a in top or b in top:
                results.append((a, b, 1.0, 0.0) if a in top else (a, b, 0.0, 1.0))
            else:
                results.append((a, b, *_capped(rng, family, points[a], points[b], cap)))
    return seeding, results, withdrawn


def _clusters(rng: random.Random, seeding: list[str], rounds: int) -> list[Result]:
    """``groupsmet``'s past (see the module's docstring): the pairs are fixed, not the bot's."""
    players = list(seeding)
    rng.shuffle(players)
    clusters: list[list[str]] = []
    for size in GROUPSMET_SIZES[: max(rounds - 1, 0)]:
        if len(players) < 3 * size:
            break
        clusters.append(players[:size])
        players = players[size:]
    rest = players
    results: list[Result] = []
    points = dict.fromkeys(seeding, 0.0)
    for r in range(rounds):
        met = {frozenset((a, b)) for a, b, _, _ in results if b is not None}
        pool = list(rest)
        rng.shuffle(pool)
        for k, cluster in enumerate(clusters):
            if r < rounds - (k + 1):  # inside the cluster, by the circle method
                m = len(cluster)
                order = [cluster[0], *_turn(cluster[1:], r)]
                results += [(order[i], order[m - 1 - i], 0.5, 0.5) for i in range(m // 2)]
                continue
            for p in cluster:  # a win against someone from the rest
                q = next(x for x in pool if frozenset((p, x)) not in met)
                pool.remove(q)
                results.append((p, q, 1.0, 0.0))
        results += _random_round(rng, pool, met, "draws", points, cap=rounds / 2 + 0.5)
        points = {row.player: row.points for row in standings(seeding, results)}
    return results


def _turn(items: list[str], by: int) -> list[str]:
    by %= len(items)
    return items[-by:] + items[:-by] if by else list(items)


def _capped(
    rng: random.Random, family: str, pa: float, pb: float, cap: float | None
) -> tuple[float, float]:
    """A result that keeps both players below the top six (``cap``) where one can."""
    first = outcome(rng, family)
    if cap is None:
        return first
    for score in (first, (0.5, 0.5), (1.0, 0.0), (0.0, 1.0)):
        if pa + score[0] < cap and pb + score[1] < cap:
            return score
    return first


def _random_round(
    rng: random.Random,
    pool: list[str],
    met: set[frozenset[str]],
    family: str,
    points: dict[str, float],
    cap: float,
) -> list[Result]:
    out: list[Result] = []
    pool = list(pool)
    while len(pool) >= 2:
        a = pool.pop()
        b = next((x for x in pool if frozenset((a, x)) not in met), None)
        if b is None:
            continue
        pool.remove(b)
        out.append((a, b, *_capped(rng, family, points[a], points[b], cap)))
    return out


def run_case(family: str, n: int, runs: int) -> dict[str, object]:
    seeding, results, withdrawn = history(family, n, seed=2019)
    times = []
    cpu = []
    pairs = []
    for _ in range(runs):
        began, began_cpu = time.perf_counter(), time.process_time()
        pairs = pair_round(seeding, results, withdrawn=withdrawn)
        times.append(time.perf_counter() - began)
        cpu.append(time.process_time() - began_cpu)
    value = objective(seeding, results, withdrawn, pairs)
    bye = next((a for a, b in pairs if b is None), None)
    engine = "networkx" if n <= 128 else "rustworkx"
    checked = best(seeding, results, withdrawn, engine=engine)
    agrees = checked is not None and checked == (bye, value)
    return {
        "family": family,
        "n": n,
        "median_ms": statistics.median(times) * 1000,
        "worst_ms": max(times) * 1000,
        "worst_cpu_ms": max(cpu) * 1000,
        "sent_down": sum(value[1]),
        "largest": float(value[0]),
        "total": float(value[2]),
        "exact": "yes" if agrees else f"NO {checked}",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    load_at_start = os.getloadavg()[0]
    print(
        "| family | players | median ms | worst ms | worst CPU ms | sent down | largest | total "
        "| exact |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    rows = []
    for n in map(int, args.sizes.split(",")):
        for family in args.families.split(","):
            row = run_case(family, n, args.runs)
            rows.append(row)
            print(
                f"| {row['family']} | {row['n']} | {row['median_ms']:.1f} | "
                f"{row['worst_ms']:.1f} | {row['worst_cpu_ms']:.1f} | {row['sent_down']} | "
                f"{row['largest']:g} | "
                f"{row['total']:g} | {row['exact']} |",
                flush=True,
            )
    agree = sum(1 for row in rows if row["exact"] == "yes")
    worst: dict[object, tuple[float, float]] = {}
    for row in rows:
        wall, cpu = worst.get(row["n"], (0.0, 0.0))
        wall = max(wall, float(str(row["worst_ms"])))
        worst[row["n"]] = (wall, max(cpu, float(str(row["worst_cpu_ms"]))))
    print(
        f"\n{len(rows)} cases, the exact check agrees on {agree}; worst round (CPU): "
        + ", ".join(f"{wall:.0f} ({cpu:.0f}) ms at {n}" for n, (wall, cpu) in worst.items())
        + f"; load average (1 min) {load_at_start:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end"
    )


if __name__ == "__main__":
    main()
