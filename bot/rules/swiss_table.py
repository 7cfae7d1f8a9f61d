"""The Swiss table: standings with the tiebreaks of rule III.E.5, and the groups whose tie
matters for qualification. Also the checks on the plain inputs every Swiss rule shares.

Pure functions over plain values, deterministic as `bot.rules.swiss` describes.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

__all__ = [
    "Result",
    "Standing",
    "check_results",
    "check_seeding",
    "check_withdrawn",
    "standings",
    "tiebreak_groups",
]

Result = tuple[str, str | None, float, float]


# --------------------------------------------------------------------------- standings


@dataclass(frozen=True)
class Standing:
    """One row of the Swiss table.

    ``points`` include byes.  ``wins_vs_tied`` and ``median_buchholz`` are the
    tiebreaks of rule III.E.5 (Challonge's definitions).  ``rank`` is shared by
    players equal on points and both tiebreaks ("1, 2, 2, 4"); ``seed``
    (1-based) only orders equal rows for display.  Withdrawn and disqualified
    players stay in the table, ranked like everybody else, with
    ``withdrawn=True``: their results still count for their opponents'
    tiebreaks, and what a withdrawal means for qualification is the caller's
    decision.
    """

    player: str
    points: float
    wins_vs_tied: int
    median_buchholz: float
    rank: int
    seed: int
    byes: int
    opponents: tuple[str, ...]
    withdrawn: bool = False


#: How Median-Buchholz treats a player with fewer than three opponents: ``"sum"`` adds them
#: up (2019: the rule's "median" needs three to leave a middle), ``"drop"`` still leaves out
#: the best and the worst (the TDs' tool of 2021-2023: 0 after round 2).
SHORT_MEDIAN_BUCHHOLZ = ("sum", "drop")


def standings(
    seeding: Sequence[str],
    results: Sequence[Result],
    *,
    withdrawn: Collection[str] = (),
    short_median_buchholz: str = "sum",
) -> list[Standing]:
    """The table in rank order: points, wins against tied players, Median-Buchholz, then seed.

    ``wins_vs_tied`` counts matches *won* (more match points than the
    opponent; draws do not count) against opponents who finish on the same
    points.  ``median_buchholz`` sums the final points of the opponents (a
    bye is not an opponent), leaving out the highest and the lowest when there
    are at least three (with fewer: see :data:`SHORT_MEDIAN_BUCHHOLZ`); withdrawn
    or disqualified opponents count with the points they have.
    """
    if short_median_buchholz not in SHORT_MEDIAN_BUCHHOLZ:
        raise ValueError(
            f"short_median_buchholz must be 'sum' or 'drop', got {short_median_buchholz!r}"
        )
    seeds = check_seeding(seeding)
    index = {p: i for i, p in enumerate(seeds)}
    games = check_results(results, index)
    gone = check_withdrawn(withdrawn, index)
    n = len(seeds)
    scored: list[list[float]] = [[] for _ in range(n)]
    met: list[list[tuple[int, float, float]]] = [[] for _ in range(n)]
    byes = [0] * n
    for a, b, pa, pb in games:
        scored[a].append(pa)
        if b is None:
            byes[a] += 1
        else:
            scored[b].append(pb)
            met[a].append((b, pa, pb))
            met[b].append((a, pb, pa))
    points = [math.fsum(s) for s in scored]
    wins_vs_tied = [
        sum(1 for opp, mine, theirs in met[i] if mine > theirs and points[opp] == points[i])
        for i in range(n)
    ]
    buchholz = []
    for i in range(n):
        opp_points = sorted(points[opp] for opp, _, _ in met[i])
        if len(opp_points) >= 3 or short_median_buchholz == "drop":
            opp_points = opp_points[1:-1]
        buchholz.append(math.fsum(opp_points))
    order = sorted(range(n), key=lambda i: (-points[i], -wins_vs_tied[i], -buchholz[i], i))
    table: list[Standing] = []
    rank = 0
    previous: tuple[float, int, float] | None = None
    for position, i in enumerate(order, start=1):
        key = (points[i], wins_vs_tied[i], buchholz[i])
        if key != previous:
            rank, previous = position, key
        table.append(
            Standing(
                player=seeds[i],
                points=points[i],
                wins_vs_tied=wins_vs_tied[i],
                median_buchholz=buchholz[i],
                rank=rank,
                seed=i + 1,
                byes=byes[i],
                opponents=tuple(seeds[o] for o, _, _ in sorted(met[i])),
                withdrawn=i in gone,
            )
        )
    return table


def tiebreak_groups(standings: Sequence[Standing], places: int = 3) -> list[list[str]]:
    """Groups of players sharing a rank that straddles the last qualifying place (rule III.E.5).

    A tie "matters for the top 3" only when it decides who is in: players
    sharing ranks 1-2 with 3 places both qualify anyway and are not returned,
    while three players sharing rank 3 (places 3-5) are.  Groups come in rank
    order, players in the order of ``standings``.
    """
    if places < 0:
        raise ValueError(f"places must not be negative, got {places}")
    ordered = sorted(enumerate(standings), key=lambda item: (item[1].rank, item[0]))
    by_rank: dict[int, list[str]] = {}
    for _, row in ordered:
        by_rank.setdefault(row.rank, []).append(row.player)
    groups = []
    for rank in sorted(by_rank):
        group = by_rank[rank]
        if len(group) >= 2 and rank <= places < rank + len(group) - 1:
            groups.append(group)
    return groups


# --------------------------------------------------------------------------- validation


def check_seeding(seeding: Sequence[str]) -> list[str]:
    seeds = list(seeding)
    if len(set(seeds)) != len(seeds):
        raise ValueError("a player appears twice in the seeding")
    return seeds


def check_withdrawn(withdrawn: Collection[str], index: dict[str, int]) -> set[int]:
    unknown = sorted(p for p in withdrawn if p not in index)
    if unknown:
        raise ValueError(f"withdrawn players not in the seeding: {unknown}")
    return {index[p] for p in withdrawn}


def check_results(
    results: Sequence[Result], index: dict[str, int]
) -> list[tuple[int, int | None, float, float]]:
    """Results as seed indices, in a canonical order so input order cannot matter."""
    games: list[tuple[int, int | None, float, float]] = []
    for result in results:
        if len(result) != 4:
            raise ValueError(f"a result has four fields, got {result!r}")
        a, b, pa, pb = result
        if a not in index or (b is not None and b not in index):
            raise ValueError(f"result {result!r} names a player not in the seeding")
        if a == b:
            raise ValueError(f"result {result!r} pairs a player with themselves")
        pa, pb = float(pa), float(pb if b is not None else 0.0)
        if not (math.isfinite(pa) and math.isfinite(pb)):
            raise ValueError(f"result {result!r} has a non-finite score")
        games.append((index[a], None if b is None else index[b], pa, pb))
    games.sort(key=lambda g: (g[0], -1 if g[1] is None else g[1], g[2], g[3]))
    return games
