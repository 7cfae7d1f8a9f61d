"""The Swiss tiebreak catalogue: the criteria the editions' texts name for the
Qualification round, as keys a stage's tiebreak chain lists in order.

2019 (rule III.E.5): wins against tied participants, then Median-Buchholz (Challonge's
definitions, computed by `bot.rules.swiss_table`, which this module reuses). 2020-2021:
"Median-Buchholz. Cumulative score. Seed in Qualification round." 2022-2024: the same with
"Kashdan score" before the seed. Sonneborn-Berger is in the catalogue for formats that want
it; no edition used it.

A Swiss match is a 10-game match scored 1 / 0.5 / 0 for the player; a result is the plain
`bot.rules.swiss_table.Result`, ``(a, b_or_None, points_a, points_b)``, a bye carrying its
points for ``a`` as the caller recorded them. Pure functions over plain values.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import pairwise

from bot.rules.swiss_table import (
    SHORT_MEDIAN_BUCHHOLZ,
    Result,
    check_results,
    check_seeding,
    standings,
)

__all__ = [
    "SWISS_TIEBREAKS",
    "SwissRow",
    "SwissTiebreak",
    "check_swiss_chain",
    "separating_tiebreaks",
    "swiss_ranking",
]


class SwissTiebreak(StrEnum):
    """A key of a Swiss stage's tiebreak chain. Higher is better for all but ``SEED``."""

    #: Matches won against the players who finish on the same points (2019, rule III.E.5).
    WINS_AGAINST_TIED = "wins_against_tied"
    #: The opponents' final points without the best and the worst (rule III.E.5; 2020-2024).
    MEDIAN_BUCHHOLZ = "median_buchholz"
    #: The running score after each round, summed (progressive score; 2020-2024).
    CUMULATIVE = "cumulative"
    #: 4 per match won, 2 per match tied, 1 per match lost, 0 for a bye (2022-2024).
    KASHDAN = "kashdan"
    #: The final points of the opponents beaten, plus half those of the opponents tied with.
    SONNEBORN_BERGER = "sonneborn_berger"
    #: The seed in the Qualification round (1 = best): separates every tie left (2020-2024).
    SEED = "seed"


SWISS_TIEBREAKS: tuple[SwissTiebreak, ...] = tuple(SwissTiebreak)


@dataclass(frozen=True)
class SwissRow:
    """One row of a Swiss table ranked by a chain.

    ``tiebreaks`` holds each key of the chain with its value, in the chain's order (the
    seed as the seed number). ``rank`` is shared ("1, 2, 2, 4") by players equal on points
    and every value of the chain; rows equal on all of them come in seed order. Withdrawn
    and disqualified players stay in the table, ranked like everybody else, as in
    `bot.rules.swiss_table.standings`: their results still count for their opponents.
    """

    player: str
    points: float
    tiebreaks: tuple[tuple[SwissTiebreak, float], ...]
    rank: int
    seed: int
    withdrawn: bool = False

    def value(self, key: SwissTiebreak | str) -> float:
        """The value of one key of the chain (ValueError when the chain has not got it)."""
        for name, value in self.tiebreaks:
            if name == key:
                return value
        raise ValueError(f"{key!r} is not in this table's chain")


def check_swiss_chain(chain: Sequence[str]) -> tuple[SwissTiebreak, ...]:
    """The chain as keys: each a catalogue key, none twice, nothing after ``seed`` (the seed
    separates every tie, so a key after it could never decide anything: a format mistake)."""
    keys: list[SwissTiebreak] = []
    for name in chain:
        if name not in SWISS_TIEBREAKS:
            raise ValueError(f"unknown Swiss tiebreak {name!r}; known: {list(SWISS_TIEBREAKS)}")
        key = SwissTiebreak(name)
        if key in keys:
            raise ValueError(f"Swiss tiebreak {name!r} is twice in the chain")
        if SwissTiebreak.SEED in keys:
            raise ValueError(f"Swiss tiebreak {name!r} follows 'seed', which breaks every tie")
        keys.append(key)
    return tuple(keys)


def _check_rounds(
    rounds_results: Sequence[Sequence[Result]], index: dict[str, int]
) -> list[list[tuple[int, int | None, float, float]]]:
    """Each round's results as seed indices; nobody twice in one round."""
    checked = []
    for number, results in enumerate(rounds_results, start=1):
        games = check_results(results, index)
        seen: set[int] = set()
        for a, b, _, _ in games:
            for player in (a, b):
                if player is None:
                    continue
                if player in seen:
                    raise ValueError(f"a player has two results in round {number}")
                seen.add(player)
        checked.append(games)
    return checked


def _kashdan(mine: float, theirs: float) -> float:
    if mine > theirs:
        return 4.0
    return 2.0 if mine == theirs else 1.0


def swiss_ranking(
    seeding: Sequence[str],
    rounds_results: Sequence[Sequence[Result]],
    chain: Sequence[str],
    *,
    bye_points: float = 1.0,
    short_median_buchholz: str = "sum",
    withdrawn: Collection[str] = (),
) -> list[SwissRow]:
    """The Swiss table in rank order: points, then the chain's keys in order.

    ``rounds_results`` lists each round's results (round 1 first); a player has at most one
    result a round. Points, ``wins_against_tied`` and ``median_buchholz`` are exactly
    `bot.rules.swiss_table.standings`'s on the same results (a bye is no opponent;
    ``short_median_buchholz`` is its convention for fewer than three opponents), so the
    chain ``("wins_against_tied", "median_buchholz")`` is the 2019 table. ``cumulative``
    adds the running score after every round of ``rounds_results``, a round without a
    result for the player (after a withdrawal) adding the score unchanged. ``kashdan``
    scores each match by its match points against the opponent's (won, tied, lost) and a
    bye 0. ``sonneborn_berger`` uses the opponents' final points, byes included.

    ``bye_points`` is what the stage records for a bye; each bye's result carries the
    points it gave (an engine user's bye may be scored 0, `bot.rules.withdrawals`), so it
    does not change the table and is here so the signature states the stage's convention.
    """
    if not math.isfinite(bye_points):
        raise ValueError(f"bye_points must be finite, got {bye_points}")
    if short_median_buchholz not in SHORT_MEDIAN_BUCHHOLZ:
        raise ValueError(
            f"short_median_buchholz must be 'sum' or 'drop', got {short_median_buchholz!r}"
        )
    keys = check_swiss_chain(chain)
    seeds = check_seeding(seeding)
    index = {p: i for i, p in enumerate(seeds)}
    rounds = _check_rounds(rounds_results, index)
    table = standings(
        seeds,
        [r for results in rounds_results for r in results],
        withdrawn=withdrawn,
        short_median_buchholz=short_median_buchholz,
    )
    n = len(seeds)
    points = [0.0] * n
    for row in table:
        points[index[row.player]] = row.points

    running = [0.0] * n
    cumulative = [0.0] * n
    kashdan = [0.0] * n
    beaten: list[list[float]] = [[] for _ in range(n)]
    for games in rounds:
        for a, b, pa, pb in games:
            running[a] += pa
            if b is None:
                continue
            running[b] += pb
            kashdan[a] += _kashdan(pa, pb)
            kashdan[b] += _kashdan(pb, pa)
            for me, opp, mine, theirs in ((a, b, pa, pb), (b, a, pb, pa)):
                if mine > theirs:
                    beaten[me].append(points[opp])
                elif mine == theirs:
                    beaten[me].append(points[opp] / 2)
        for i in range(n):
            cumulative[i] += running[i]

    def values(i: int, wins: int, buchholz: float) -> tuple[float, ...]:
        by_key = {
            SwissTiebreak.WINS_AGAINST_TIED: float(wins),
            SwissTiebreak.MEDIAN_BUCHHOLZ: buchholz,
            SwissTiebreak.CUMULATIVE: cumulative[i],
            SwissTiebreak.KASHDAN: kashdan[i],
            SwissTiebreak.SONNEBORN_BERGER: math.fsum(beaten[i]),
            SwissTiebreak.SEED: float(i + 1),
        }
        return tuple(by_key[key] for key in keys)

    computed = {
        row.player: values(index[row.player], row.wins_vs_tied, row.median_buchholz)
        for row in table
    }

    def sort_key(i: int) -> tuple[float, ...]:
        """Best first: more points, then each value (higher is better, the seed lower)."""
        pairs = zip(keys, computed[seeds[i]], strict=True)
        better = (v if k is SwissTiebreak.SEED else -v for k, v in pairs)
        return (-points[i], *better, float(i))

    order = sorted(range(n), key=sort_key)
    gone = {index[p] for p in withdrawn}
    rows: list[SwissRow] = []
    previous: tuple[float, ...] | None = None
    rank = 0
    for position, i in enumerate(order, start=1):
        tied_on = (points[i], *computed[seeds[i]])
        if tied_on != previous:
            rank, previous = position, tied_on
        rows.append(
            SwissRow(
                player=seeds[i],
                points=points[i],
                tiebreaks=tuple(zip(keys, computed[seeds[i]], strict=True)),
                rank=rank,
                seed=i + 1,
                withdrawn=i in gone,
            )
        )
    return rows


def separating_tiebreaks(rows: Sequence[SwissRow], places: int) -> list[SwissTiebreak]:
    """The chain's tiebreaks that put players on equal points in order across the first
    ``places`` rows and the first row after them (the places that move on, and the cut),
    each once, in the chain's order: what the qualification post explains. For each two
    neighbours on equal points, the first tiebreak whose values differ decided them."""
    top = list(rows[: places + 1])
    used: set[SwissTiebreak] = set()
    for upper, lower in pairwise(top):
        if upper.points != lower.points:
            continue
        theirs = dict(lower.tiebreaks)
        for key, value in upper.tiebreaks:
            if theirs.get(key) != value:
                used.add(key)
                break
    return [key for key, _ in top[0].tiebreaks if key in used] if top else []
