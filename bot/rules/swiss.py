"""Swiss qualification stage: round count, pairings (rules III.E, VIII.A); the standings and
tiebreaks live in `bot.rules.swiss_table` and are re-exported here.

Pure functions over plain values: players are strings, scores floats.  A
*result* is ``(player_a, player_b_or_None, match_points_a, match_points_b)``;
``player_b`` None is a bye, worth ``match_points_a`` (the caller writes
``bye_points`` there) and ``match_points_b`` is ignored.

Everything is deterministic: players are always handled in seeding or
standings order, never in set or dict order, and point sums use
:func:`math.fsum`, so neither the order of ``results`` nor the hash seed can
change an answer.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from fractions import Fraction

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

#: Fields up to this many players (after the bye) are paired on the complete
#: graph in one go; larger ones are split into independent units first (see
#: :func:`pair_round`).  The split is exact whenever it succeeds, the cut-off
#: only trades speed.
FULL_GRAPH_LIMIT = 24
#: When a unit cannot be paired at the lower bounds, fields up to this size
#: are paired again as one unit on the complete graph (exact, about 1 s at 128
#: players on this project's 2-core machine, in the rare rounds that need it);
#: larger ones merge score groups around the failing unit instead (valid, but
#: not proven optimal). Every championship so far had far fewer players.
EXACT_FALLBACK_LIMIT = 128


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
) -> list[Pair]:
    """The pairs of the next Swiss round, ``(player, None)`` for the bye.

    Absolute: no rematch, no second bye, withdrawn players are not paired,
    every other player exactly once.  If no such pairing exists this raises
    ``ValueError``.  Among valid pairings the best one is chosen, strictly in
    this order: fewest players paired outside their score group (both players
    of a pair with different points count), smallest sum of score differences,
    then closest to "top half against bottom half" inside each score group
    (a floater is preferably the lowest of its group and meets the highest of
    the other).  "Top" and "bottom" and every "placed" below mean the order of
    the current :func:`standings` (points, tiebreaks, seed); in round 1 that is
    the seeding, so 1 plays n/2+1, 2 plays n/2+2, ...

    With an odd number of active players the bye goes first, to the
    lowest-placed player without a bye for whom the rest can still be paired.

    The optimum is exact for fields up to :data:`EXACT_FALLBACK_LIMIT` players
    and whenever every score group can be paired at the lower bounds (see
    :func:`_pair_players`); otherwise larger fields get a valid pairing that is
    optimal within merged runs of score groups.

    The result lists boards in order: the pair with the best-placed player
    first, each pair with its better-placed player first, the bye last.

    ``bye_points`` is what the caller records for the bye; it does not change
    the pairing and is here so the signature states the stage's convention.
    """
    if not math.isfinite(bye_points):
        raise ValueError(f"bye_points must be finite, got {bye_points}")
    table = standings(seeding, results, withdrawn=withdrawn)
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
    field = _Field(
        scores=[int(Fraction(row.points) * scale) for row in active],
        met=met,
    )
    everyone = list(range(len(active)))
    if len(everyone) % 2 == 0:
        pairs = _pair_players(field, everyone)
        if pairs is None:
            raise ValueError("no valid pairing exists: every pairing would repeat a match")
        bye = None
    else:
        pairs, bye = None, None
        for candidate in reversed(everyone):
            if active[candidate].byes:
                continue
            rest = [p for p in everyone if p != candidate]
            pairs = _pair_players(field, rest)
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


@dataclass(frozen=True)
class _Field:
    """The active players by placement: integer scores and who has met whom."""

    scores: list[int]
    met: set[tuple[int, int]]

    def allowed(self, a: int, b: int) -> bool:
        return (min(a, b), max(a, b)) not in self.met


def _pair_players(field: _Field, players: list[int]) -> list[tuple[int, int]] | None:
    """The best pairing of ``players`` (positions, best first), or None when none is valid.

    Small fields go straight to one maximum weight matching on every allowed
    pair.  Larger ones are first split by score group: each even group pairs
    inside itself and the odd groups pair up in score order, each sending one
    floater to the next odd group.  That is the least any pairing can do (an
    odd group always has a floater; floaters of consecutive odd groups give
    the smallest score differences), so when every unit can be paired this
    way the union is optimal on all three criteria.  If a unit cannot, score
    groups are merged around it and paired together, and in the end the
    whole field is one unit, so a valid pairing is always found when one
    exists.  Optimality then holds within each merged unit but is not proven
    for the whole field, so fields up to :data:`EXACT_FALLBACK_LIMIT` players
    are instead paired exactly as one unit.
    """
    if not players:
        return []
    groups = _score_groups(field, players)
    if len(players) <= FULL_GRAPH_LIMIT:
        return _solve_unit(field, groups, list(range(len(groups))))
    # Segments: runs of consecutive score groups paired as one unit.
    segments: list[list[int]] = [[g] for g in range(len(groups))]
    while True:
        units = _units(groups, segments)
        pairs: list[tuple[int, int]] = []
        failed: list[int] | None = None
        for unit in units:
            merged = len(unit) > 2 or any(len(s) > 1 for s in segments if s[0] in unit)
            solved = _solve_unit(field, groups, unit, require_minimum=not merged)
            if solved is None:
                failed = unit
                break
            pairs.extend(solved)
        if failed is None:
            return pairs
        if len(players) <= EXACT_FALLBACK_LIMIT:
            return _solve_unit(field, groups, list(range(len(groups))))
        if len(segments) == 1:
            return None
        segments = _merge(segments, failed)


def _score_groups(field: _Field, players: list[int]) -> list[list[int]]:
    """Players split into score groups, best score first, each in placement order."""
    groups: list[list[int]] = []
    for p in players:  # players are sorted by placement, hence by score
        if groups and field.scores[groups[-1][0]] == field.scores[p]:
            groups[-1].append(p)
        else:
            groups.append([p])
    return groups


def _units(groups: list[list[int]], segments: list[list[int]]) -> list[list[int]]:
    """Units of score groups to pair independently: even segments alone, odd ones in twos."""
    units: list[list[int]] = []
    pending: list[int] | None = None
    for segment in segments:
        size = sum(len(groups[g]) for g in segment)
        if size % 2 == 0:
            units.append(list(segment))
        elif pending is None:
            pending = list(segment)
        else:
            units.append(pending + list(segment))
            pending = None
    assert pending is None, "an even field has an even number of odd segments"
    return units


def _merge(segments: list[list[int]], failed_unit: list[int]) -> list[list[int]]:
    """Merge the segments spanned by a failed unit, plus the next one below (or above)."""
    first = next(i for i, s in enumerate(segments) if failed_unit[0] in s)
    last = next(i for i, s in enumerate(segments) if failed_unit[-1] in s)
    if last + 1 < len(segments):
        last += 1
    elif first > 0:
        first -= 1
    merged = [g for s in segments[first : last + 1] for g in s]
    return [*segments[:first], merged, *segments[last + 1 :]]


def _solve_unit(
    field: _Field,
    groups: list[list[int]],
    unit: list[int],
    *,
    require_minimum: bool = False,
) -> list[tuple[int, int]] | None:
    """Optimal pairing of the players of the score groups ``unit`` (indices into ``groups``).

    The cost of a pair is lexicographic (see :func:`_pair_cost`).  With
    ``require_minimum`` the unit must get by with the least floaters any
    pairing can have (one per odd group), else None.

    Speed: the matching first runs on the pairs whose shape cost is at most a
    window ``limit``.  Its answer is certainly optimal for the whole unit when
    floaters and score differences are at their lower bounds (odd groups
    send one floater each, to the next odd group) and its total shape cost is
    at most ``limit``: any pairing using a pair outside the window costs more.
    Otherwise the window widens, up to every allowed pair.
    """
    if require_minimum:
        ideal = _ideal(field, groups, unit)
        if ideal is not None:
            return ideal
    sizes = [len(groups[g]) for g in unit]
    odd_scores = [field.scores[groups[g][0]] for g in unit if len(groups[g]) % 2]
    least_floaters = len(odd_scores)
    least_diff = sum(odd_scores[i] - odd_scores[i + 1] for i in range(0, len(odd_scores), 2))
    widest = 2 * max(sizes)
    limit = 8
    while True:
        complete = limit >= widest
        solved = _match(field, groups, unit, None if complete else limit)
        if solved is None:
            if complete:
                return None
            limit *= 4
            continue
        pairs, (floaters, diff, shape) = solved
        at_bounds = (floaters, diff) == (least_floaters, least_diff)
        if require_minimum and complete and not at_bounds:
            return None
        if complete or (at_bounds and shape <= limit):
            return pairs
        limit = max(2 * limit, shape)


def _pair_cost(
    field: _Field, a: int, b: int, slot: dict[int, tuple[int, int, int]]
) -> tuple[int, int, int]:
    """(floaters, score difference, shape) of the pair ``a < b`` (placements).

    Floaters: 2 for a pair across score groups (both players leave their
    group), else 0.  Shape, the distance from "top half against bottom half":
    ``|2 (j - i) - m|`` for places ``i < j`` in a group of ``m``, less 1 when
    ``m`` is odd so that the best pairs of every group cost 0; across
    groups, how far the upper player is from the bottom of his group plus how
    far the lower one is from the top of hers.
    """
    ga, ia, ma = slot[a]
    gb, ib, _ = slot[b]
    if ga == gb:
        return 0, 0, abs(2 * (ib - ia) - ma) - ma % 2
    return 2, field.scores[a] - field.scores[b], (ma - 1 - ia) + ib


def _match(
    field: _Field,
    groups: list[list[int]],
    unit: list[int],
    limit: int | None,
) -> tuple[list[tuple[int, int]], tuple[int, int, int]] | None:
    """Minimum-cost perfect matching of the unit over allowed pairs of shape <= ``limit``.

    The three criteria are folded into one integer cost with bases larger
    than any total of the lower criteria; weights are ``big - cost`` with
    maximum cardinality, so a perfect matching wins first and then the least
    total cost.  Nodes are placements (ints) and edges are added in a fixed
    order, so the result does not depend on the hash seed.  Returns the pairs
    and their total (floaters, score difference, shape), or None when the
    candidate pairs admit no perfect matching.
    """
    slot: dict[int, tuple[int, int, int]] = {}  # player -> (group, place, group size)
    for g in unit:
        for place, p in enumerate(groups[g]):
            slot[p] = (g, place, len(groups[g]))
    members = [p for g in unit for p in groups[g]]
    edges: list[tuple[int, int, tuple[int, int, int]]] = []
    for x, g in enumerate(unit):
        group = groups[g]
        m = len(group)
        for i, a in enumerate(group):
            if limit is None:
                partners = group[i + 1 :]
            else:  # |2 (j - i) - m| - m % 2 <= limit
                reach = limit + m % 2
                low = max(i + 1, i + (m - reach + 1) // 2)
                partners = group[low : i + (m + reach) // 2 + 1]
            edges.extend((a, b, _pair_cost(field, a, b, slot)) for b in partners)
        for h in unit[x + 1 :]:
            lower = groups[h]
            for i, a in enumerate(group):
                reach = len(lower) if limit is None else limit - (m - 1 - i) + 1
                edges.extend((a, b, _pair_cost(field, a, b, slot)) for b in lower[: max(reach, 0)])
    edges = [(a, b, c) for a, b, c in edges if field.allowed(a, b)]
    half = len(members) // 2
    max_diff = max((c[1] for _, _, c in edges), default=0)
    max_shape = max((c[2] for _, _, c in edges), default=0)
    shape_base = half * max_shape + 1
    diff_base = (half * max_diff + 1) * shape_base
    costs = [(a, b, f * diff_base + d * shape_base + s) for a, b, (f, d, s) in edges]
    big = max((c for _, _, c in costs), default=0) + 1
    # networkx is imported here, when a round is paired: it is a tenth of the bot's memory
    # and nothing else needs it
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(members)
    graph.add_weighted_edges_from((a, b, big - c) for a, b, c in costs)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != len(members):
        return None
    pairs = sorted((min(a, b), max(a, b)) for a, b in matching)
    totals = [_pair_cost(field, a, b, slot) for a, b in pairs]
    return pairs, (sum(t[0] for t in totals), sum(t[1] for t in totals), sum(t[2] for t in totals))


def _ideal(field: _Field, groups: list[list[int]], unit: list[int]) -> list[tuple[int, int]] | None:
    """The pairing with zero shape cost, if it repeats no match (then it is optimal)."""
    if len(unit) == 1:
        inside = [groups[unit[0]]]
        cross: list[tuple[int, int]] = []
    else:
        upper, lower = groups[unit[0]], groups[unit[1]]
        inside = [upper[:-1], lower[1:]]
        cross = [(upper[-1], lower[0])]
    pairs = list(cross)
    for members in inside:
        half = len(members) // 2
        pairs.extend(zip(members[:half], members[half:], strict=True))
    if all(field.allowed(a, b) for a, b in pairs):
        return sorted(pairs)
    return None


def _score_scale(points: list[float]) -> int:
    """The least integer turning every score into an integer (2 for half points)."""
    scale = 1
    for value in points:
        if not math.isfinite(value):
            raise ValueError(f"scores must be finite, got {value}")
        scale = math.lcm(scale, Fraction(value).denominator)
    return scale
