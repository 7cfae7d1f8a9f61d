"""Round-robin pools: who plays in which pool, and each pool's schedule.

2019 has one Candidates group of four; 2020 on has an "upper" and a "lower" pool, the
previous champion and runner-up pre-seeded into them ("arimakat starts in the upper pool
and Ogul1 starts in the lower pool. If arimakat does not participate, then Ogul1 starts in
the upper pool", 2020 rules, Candidates), and from 2021 the Swiss places go into the pools
by fixed tables (:data:`ACWC_2021_POOL_TABLES`).

"Double round-robin" in the 2020-2024 texts is not two legs: "Each candidate plays a
10-game match against each other candidate in their pool", so each pair meets once, in one
10-game match whose colours alternate game by game (:func:`robin_schedule`).

Pure functions over plain values: players are strings, places 1-based.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from enum import StrEnum

from bot.rules.candidates import schedule

__all__ = [
    "ACWC_2020_SNAKE_POOLS",
    "ACWC_2021_POOL_TABLES",
    "ACWC_PRE_SEEDED_SLOTS",
    "LOWER",
    "UPPER",
    "PlacementMethod",
    "PoolTable",
    "moved_up",
    "place_in_pools",
    "robin_schedule",
    "snake",
]

UPPER, LOWER = "upper", "lower"

#: Places per pool, keyed by how many pre-seeded players are present.
PoolTable = Mapping[int, Mapping[str, Sequence[int]]]

#: 2021-2024 rules, Candidates: "The players that go into each Candidate group will be
#: divided accordingly" (the Swiss places of each pool, by the number of pre-seeded
#: players who participate; the one present starts in the upper pool).
ACWC_2021_POOL_TABLES: PoolTable = {
    2: {LOWER: (1, 3, 6, 7, 10), UPPER: (2, 4, 5, 8, 9)},
    1: {LOWER: (1, 2, 4, 7, 8, 11), UPPER: (3, 5, 6, 9, 10)},
    0: {LOWER: (2, 3, 5, 8, 10, 11), UPPER: (1, 4, 6, 7, 9, 12)},
}

#: 2020-2024: the champion starts in the upper pool, the runner-up in the lower one; the
#: present pre-seeded take these slots in order, so a lone runner-up starts upper.
ACWC_PRE_SEEDED_SLOTS: tuple[str, ...] = (UPPER, LOWER)


#: 2020 says only that the pools "are determined by placement in the previous rounds".
#: Chosen: a snake by Swiss place, starting with the lower pool, so that the best Swiss
#: player is not in the champion's pool, as the 2021 tables have it (place 1 lower).
ACWC_2020_SNAKE_POOLS: tuple[str, ...] = (LOWER, UPPER)


class PlacementMethod(StrEnum):
    """How the entrants are placed in pools."""

    TABLE = "table"  # a table of places per number of pre-seeded present (2021-2024)
    SNAKE = "snake"  # 1 to A, 2 to B, 3 to B, 4 to A, ... for any number of pools
    SINGLE = "single"  # everyone in one pool (2019's group of four)


def snake(count: int, pools: int) -> list[int]:
    """The pool index of each of ``count`` places dealt back and forth over ``pools``
    pools: with two, places 1-8 go A B B A A B B A."""
    if pools < 1:
        raise ValueError("a snake needs at least one pool")
    out: list[int] = []
    for index in range(count):
        lap, step = divmod(index, pools)
        out.append(step if lap % 2 == 0 else pools - 1 - step)
    return out


def _check_distinct(players: Sequence[str], what: str) -> None:
    if len(set(players)) != len(players):
        raise ValueError(f"{what} must be distinct players")


def _by_table(
    entrants: Sequence[str], pools: Sequence[str], places: Mapping[str, Sequence[int]]
) -> dict[str, list[str]]:
    """The players of each pool by the table's places (1-based into ``entrants``)."""
    unknown = [name for name in places if name not in pools]
    if unknown:
        raise ValueError(f"the table names pools the stage does not have: {unknown}")
    listed = [place for name in pools for place in places.get(name, ())]
    twice = sorted({place for place in listed if listed.count(place) > 1})
    if twice:
        raise ValueError(f"the table lists places {twice} twice")
    if len(listed) != len(entrants):
        raise ValueError(f"the table places {len(listed)} players, there are {len(entrants)}")
    missing = sorted(set(range(1, len(entrants) + 1)) - set(listed))
    if missing:
        raise ValueError(f"the table leaves out places {missing}")
    return {name: [entrants[place - 1] for place in sorted(places.get(name, ()))] for name in pools}


def place_in_pools(
    entrants_by_place: Sequence[str],
    pools: Sequence[str],
    method: PlacementMethod,
    *,
    table: PoolTable | None = None,
    pre_seeded: Sequence[str] = (),
    pre_seeded_slots: Sequence[str] = (),
) -> dict[str, list[str]]:
    """The players of each pool (rules 2020-2024, Candidates: "the upper and lower pools
    ... are determined by placement in the previous rounds").

    ``entrants_by_place`` are the players who qualified, best place first (place 1 is the
    first); ``pre_seeded`` the pre-seeded players who are present, in priority order
    (champion, then runner-up). They take ``pre_seeded_slots`` (pool names) in order, so
    with the champion absent the runner-up takes the first slot, the upper pool.

    ``TABLE`` reads ``table[len(pre_seeded)]``, the places of each pool; ``SNAKE`` deals
    the places over ``pools`` in order, A B B A ...; ``SINGLE`` puts everyone in the one
    pool. Each pool lists its qualifiers best place first, then its pre-seeded players, the
    order 2019's :func:`bot.rules.stages.candidates_field` gives (the Berger numbers of
    :func:`robin_schedule` follow it).

    ``ValueError``: no pool or a pool named twice, a player twice, more pre-seeded than
    slots, a slot or table pool that is not a pool, no table (or no row for this many
    pre-seeded), a place the table lists twice or leaves out, a table of another size.
    """
    names = list(pools)
    if not names or len(set(names)) != len(names):
        raise ValueError("the pools must be distinct names, at least one")
    _check_distinct([*entrants_by_place, *pre_seeded], "entrants and pre-seeded")
    if len(pre_seeded) > len(pre_seeded_slots) and method is not PlacementMethod.SINGLE:
        raise ValueError(f"{len(pre_seeded)} pre-seeded players for {len(pre_seeded_slots)} slots")
    if any(slot not in names for slot in pre_seeded_slots):
        raise ValueError(f"a pre-seeded slot is not one of the pools {names}")
    if method is PlacementMethod.SINGLE:
        if len(names) != 1:
            raise ValueError("a single pool placement takes exactly one pool")
        return {names[0]: [*entrants_by_place, *pre_seeded]}
    if method is PlacementMethod.TABLE:
        if table is None or len(pre_seeded) not in table:
            raise ValueError(f"no pool table for {len(pre_seeded)} pre-seeded players present")
        out = _by_table(entrants_by_place, names, table[len(pre_seeded)])
    else:
        out = {name: [] for name in names}
        for player, index in zip(
            entrants_by_place, snake(len(entrants_by_place), len(names)), strict=True
        ):
            out[names[index]].append(player)
    for player, slot in zip(pre_seeded, pre_seeded_slots, strict=False):
        out[slot].append(player)
    return out


def robin_schedule(pool: Sequence[str]) -> list[list[tuple[str, str]]]:
    """A pool's rounds, each pair meeting once (2020-2024 rules, Candidates: "Each
    candidate plays a 10-game match against each other candidate in their pool", so the
    texts' "double round-robin" is one match per pair, its colours alternating inside it).
    Any size: the Berger tables of :func:`bot.rules.candidates.schedule`, an odd pool
    with one player sitting out each round."""
    return schedule(pool)


def moved_up(ranking: Sequence[str], left: Collection[str]) -> list[str]:
    """A ranking once the players who left are out of it: everyone below them moves up
    one place (2024 rules, withdrawals: "the other players below them in their Candidate
    pool move up one position")."""
    gone = set(left)
    return [player for player in ranking if player not in gone]
