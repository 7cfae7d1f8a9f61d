"""Swiss qualification stage: round count, pairings (rules III.E, VIII.A); the standings and
tiebreaks live in `bot.rules.swiss_table` and are re-exported here.

Pure functions over plain values: players are strings, scores floats.  A
*result* is ``(player_a, player_b_or_None, match_points_a, match_points_b)``;
``player_b`` None is a bye, worth ``match_points_a`` (the caller writes
``bye_points`` there) and ``match_points_b`` is ignored.

The pairing objective (rule III.E: score groups, "top half against bottom half"), strictly
in this order, each criterion deciding only between pairings equal on all before it:

1. Absolute: no rematch; no second bye; the bye to the lowest-placed player without one
   for whom the rest can still be paired.
2. The score groups are paired from the top, each player inside their group where possible
   and otherwise with the nearest group: (a) the smallest largest score difference of any
   pair; then (b) the fewest players sent down across each boundary between two score
   groups (the pairs that cross it, as FIDE counts downfloaters), boundary by boundary
   from the top, so a higher boundary is crossed as little as possible before a lower one,
   and a pair that skips a group counts at every boundary it crosses.
3. The smallest total of the score differences of all pairs.  (Each pair's difference is
   the sum of the score steps at the boundaries it crosses, so with the crossings of 2 (b)
   equal the total is equal too: it never decides, and is listed as Swiss systems state it.)
4. The closest to "top half against bottom half": inside a group of ``m``, places
   ``i < j`` cost ``|2 (j - i) - m|`` (less 1 when ``m`` is odd); across groups, how far
   the upper player is from the bottom of their group plus how far the lower one is from
   the top of theirs (the lowest of a group floats down, to meet the highest below), plus,
   for each score group a pair skips, the upper player's height above the bottom of their
   group (``m - i``), so the better-placed of several floaters meets the nearer group.

So a leader whose whole score group has met meets an unmet player of the nearest group
below wherever one is left for them: a pair that skips that group crosses two boundaries,
a pair that ends in it one, and a player sent to the bottom crosses them all.

Everything is deterministic: players are always handled in seeding or
standings order, never in set or dict order, and point sums use
:func:`math.fsum`, so neither the order of ``results`` nor the hash seed can
change an answer.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from fractions import Fraction

from bot.rules.swiss_pairing import Field, best_pairing
from bot.rules.swiss_table import (
    Result,
    Standing,
    check_results,
    check_seeding,
    check_withdrawn,
    standings,
    tiebreak_groups,
)

__all__ = [
    "Result",
    "Standing",
    "number_of_rounds",
    "pair_round",
    "round_robin_rounds",
    "standings",
    "tiebreak_groups",
    "uses_round_robin",
]

Pair = tuple[str, str | None]


# --------------------------------------------------------------------------- rounds


def number_of_rounds(n_players: int, *, rounding: str = "up", extra: int = 2) -> int:
    """Rounds of the Swiss for ``n_players`` (rule III.E.2).

    ``"up"`` (2019): the rule's own examples win over its wording at exact
    powers of two ("32-63 players is 8 rounds, 64-127 players is 9 rounds"), so
    it is ``floor(log2 n) + 1 + extra``.  ``"down"`` (later editions):
    ``floor(log2 n) + extra``, 32-63 players give 7.  A single player plays no
    round at all.  Whether a field this small is a round robin instead is
    :func:`uses_round_robin`'s question.
    """
    if n_players < 1:
        raise ValueError(f"a Swiss needs at least one player, got {n_players}")
    if rounding not in ("up", "down"):
        raise ValueError(f"rounding must be 'up' or 'down', got {rounding!r}")
    if extra < 0:
        raise ValueError(f"extra must not be negative, got {extra}")
    if n_players == 1:
        return 0
    floor_log2 = n_players.bit_length() - 1
    return floor_log2 + extra + (1 if rounding == "up" else 0)


def uses_round_robin(n_players: int, *, rounding: str = "up", extra: int = 2) -> bool:
    """True when the Swiss would need at least ``n_players - 1`` rounds.

    Then everybody would (nearly) meet everybody anyway and a Swiss can paint
    itself into a corner (a 4-player Swiss of 4 rounds is impossible), so the
    stage is played as a round robin (:func:`round_robin_rounds`).
    """
    return number_of_rounds(n_players, rounding=rounding, extra=extra) >= n_players - 1


def round_robin_rounds(seeding: Sequence[str]) -> list[list[Pair]]:
    """All rounds of a round robin by the circle method, for a field too small for a Swiss.

    Every pair meets exactly once; with an odd field each player gets exactly
    one bye, ``(player, None)``, listed last in its round.  Seed 1 (or the
    phantom "bye" seat) stays fixed while the others rotate.
    """
    players: list[str | None] = list(check_seeding(seeding))
    if len(players) % 2:
        players.append(None)
    n = len(players)
    rounds: list[list[Pair]] = []
    for r in range(n - 1):
        order = [players[0], *_rotate(players[1:], r)]
        pairs: list[Pair] = []
        bye: list[Pair] = []
        for i in range(n // 2):
            a, b = order[i], order[n - 1 - i]
            if a is None or b is None:
                real = a if b is None else b
                assert real is not None
                bye.append((real, None))
            else:
                pairs.append((a, b))
        rounds.append(pairs + bye)
    return rounds


def _rotate(items: list[str | None], by: int) -> list[str | None]:
    if not items:
        return items
    by %= len(items)
    return items[-by:] + items[:-by] if by else list(items)


# --------------------------------------------------------------------------- pairing


def pair_round(
    seeding: Sequence[str],
    results: Sequence[Result],
    *,
    withdrawn: Collection[str] = (),
    bye_points: float = 1.0,
    short_median_buchholz: str = "sum",
) -> list[Pair]:
    """The pairs of the next Swiss round, ``(player, None)`` for the bye.

    Absolute: no rematch, no second bye, withdrawn players are not paired,
    every other player exactly once; if no such pairing exists this raises
    ``ValueError``.  With an odd number of active players the bye goes first, to
    the lowest-placed player without a bye for whom the rest can still be paired.
    The rest is paired by the objective of the module's docstring, exactly (see
    `bot.rules.swiss_pairing` for how).  "Top", "bottom" and "placed" follow
    the current :func:`standings` (points, tiebreaks, seed); in round 1 that is
    the seeding, so 1 plays n/2+1, 2 plays n/2+2, ...  ``short_median_buchholz`` is
    the standings' convention (:data:`bot.rules.swiss_table.SHORT_MEDIAN_BUCHHOLZ`).

    The result lists boards in order: the pair with the best-placed player
    first, each pair with its better-placed player first, the bye last.

    ``bye_points`` is what the caller records for the bye; it does not change
    the pairing and is here so the signature states the stage's convention.
    """
    if not math.isfinite(bye_points):
        raise ValueError(f"bye_points must be finite, got {bye_points}")
    table = standings(
        seeding, results, withdrawn=withdrawn, short_median_buchholz=short_median_buchholz
    )
    seeds = check_seeding(seeding)
    index = {p: i for i, p in enumerate(seeds)}
    gone = check_withdrawn(withdrawn, index)
    games = check_results(results, index)
    # Players by current placement; the pairing works on positions 0..k-1.
    active = [row for row in table if index[row.player] not in gone]
    position = {index[row.player]: pos for pos, row in enumerate(active)}
    met: set[tuple[int, int]] = set()
    for a, b, _, _ in games:
        if b is not None and a in position and b in position:
            pa, pb = position[a], position[b]
            met.add((min(pa, pb), max(pa, pb)))
    scale = _score_scale([row.points for row in active])
    field = Field(scores=[int(Fraction(row.points) * scale) for row in active], met=met)
    everyone = list(range(len(active)))
    if len(everyone) % 2 == 0:
        pairs = _pairs(field, everyone)
        if pairs is None:
            raise ValueError("no valid pairing exists: every pairing would repeat a match")
        bye = None
    else:
        pairs, bye = None, None
        for candidate in reversed(everyone):
            if active[candidate].byes:
                continue
            rest = [p for p in everyone if p != candidate]
            pairs = _pairs(field, rest)
            if pairs is not None:
                bye = candidate
                break
        if pairs is None or bye is None:
            raise ValueError(
                "no valid pairing exists: no player without a bye leaves a field "
                "that can be paired without rematches"
            )
    boards: list[Pair] = [
        (active[a].player, active[b].player) for a, b in sorted(tuple(sorted(p)) for p in pairs)
    ]
    if bye is not None:
        boards.append((active[bye].player, None))
    return boards


def _pairs(field: Field, players: list[int]) -> list[tuple[int, int]] | None:
    found = best_pairing(field, players)
    return None if found is None else found[0]


def _score_scale(points: list[float]) -> int:
    """The least integer turning every score into an integer (2 for half points)."""
    scale = 1
    for value in points:
        if not math.isfinite(value):
            raise ValueError(f"scores must be finite, got {value}")
        scale = math.lcm(scale, Fraction(value).denominator)
    return scale
