"""The Swiss pairing solver: the best pairing of an even set of players by the Swiss objective.

The objective and its order are written in `bot.rules.swiss`; this module finds its optimum
exactly and quickly.  Players are positions in the current standings (0 is the best placed);
scores are integers (the caller scales half points).

How it stays exact and fast:

1. A lower bound on (largest difference, floaters per group, total difference) from a small
   relaxation: every score group of more than ``2r + 3`` players (``r``: the most opponents
   any player has met) is replaced by ``2r + 2`` interchangeable players (one more for an
   odd group) who may meet anybody.  Ignoring rematches can only lower the optimum; and in an
   optimal relaxed pairing no group sends more than ``r + 1`` floaters up, nor ``r + 1``
   down (two floaters going the same way could meet each other while their partners, who
   cannot all have met each other, meet instead: the group has two floaters fewer and no
   pair a larger difference), so the stand-ins lose nothing.  Small groups keep their real
   players and their real rematches: the bound sees a top group whose members have all met.
2. The real field is then paired on a window of candidate pairs: the pairs within ``limit``
   of "top half against bottom half" (shape at most ``limit``) and with a difference no
   larger than the bound's.  If the result reaches the bound and no pairing with a pair
   outside the window can have a smaller shape, it is optimal; otherwise the window widens,
   up to every allowed pair (the exact whole-field solve).

Each matching is rustworkx's maximum weight matching (the blossom algorithm, in Rust) with
integer weights that encode the objective lexicographically.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import rustworkx as rx

Pairs = list[tuple[int, int]]

#: Score groups up to this size are solved one by one for the shape bound (every pair inside
#: them is a candidate); a field with a larger group (nearly all draws) relies on the window.
_GROUP_BOUND_LIMIT = 400


@dataclass(frozen=True)
class Field:
    """The active players by placement: integer scores and who has met whom."""

    scores: list[int]
    met: set[tuple[int, int]] = field(default_factory=set)

    def allowed(self, a: int, b: int) -> bool:
        return (min(a, b), max(a, b)) not in self.met


@dataclass(frozen=True, order=True)
class Value:
    """A pairing's objective, compared field by field: less is better."""

    largest: int
    crossings: tuple[int, ...]  # pairs across each score-group boundary, the top one first
    total: int
    shape: int


#: A candidate pair: (a, b, group of a, group of b, score difference, shape), a above b.
_Edge = tuple[int, int, int, int, int, int]


def best_pairing(fld: Field, players: list[int]) -> tuple[Pairs, Value] | None:
    """The optimal pairing of ``players`` (positions, best first) and its value, or None."""
    if not players:
        return [], Value(0, (), 0, 0)
    groups = score_groups(fld, players)
    inside = set(players)
    seen = {p: 0 for p in players}
    for a, b in fld.met:
        if a in inside and b in inside:
            seen[a] += 1
            seen[b] += 1
    cap = 2 * max(seen.values()) + 1
    bound = _lower_bound(fld, groups, cap)
    if bound is None:
        return None
    found = _by_segments(fld, groups, bound, cap)
    if found is not None:
        return found
    every = _edges(fld, groups, None, None)
    return _solve(every, players, len(groups), bound.largest, cap)


def _by_segments(
    fld: Field, groups: list[list[int]], bound: Value, cap: int
) -> tuple[Pairs, Value] | None:
    """The optimum when it reaches the bound's largest difference and crossings, or None.

    A pairing with the bound's crossings has no pair across a boundary the bound leaves
    uncrossed, so the groups between such boundaries are paired apart, each segment by its
    own least shape: a few small matchings instead of one over the whole field."""
    pairs: Pairs = []
    largest = total = shape = 0
    start = 0
    for end in range(1, len(groups) + 1):
        if end < len(groups) and bound.crossings[end - 1] > 0:
            continue
        part = bound.crossings[start : end - 1]
        found = _segment(fld, groups[start:end], bound.largest, part, cap)
        if found is None:
            return None
        pairs.extend(found[0])
        largest = max(largest, found[1].largest)
        total += found[1].total
        shape += found[1].shape
        start = end
    return sorted(pairs), Value(largest, bound.crossings, total, shape)


def _segment(
    fld: Field, groups: list[list[int]], largest: int, crossings: tuple[int, ...], cap: int
) -> tuple[Pairs, Value] | None:
    """Score groups paired apart from the rest: the least shape with these crossings and no
    pair further apart than ``largest``, or None if no pairing of them reaches that."""
    players = [p for g in groups for p in g]
    small = max(len(g) for g in groups) <= _GROUP_BOUND_LIMIT
    shape_bound: int | None = None
    if small:
        shape_bound, assembled = _group_bound(fld, groups, crossings, largest)
        if assembled is not None:  # reaches every bound, so it is optimal
            total = sum(
                c * (fld.scores[groups[k][0]] - fld.scores[groups[k + 1][0]])
                for k, c in enumerate(crossings)
            )
            steps = [
                fld.scores[groups[k][0]] - fld.scores[groups[k + 1][0]]
                for k, c in enumerate(crossings)
                if c
            ]
            return assembled, Value(max(steps, default=0), crossings, total, shape_bound)
    slack = _shape_slack(fld, groups, largest)
    widest = 2 * max(len(g) for g in groups) + 2
    limit = 8
    while limit < widest:
        found = _solve(_edges(fld, groups, limit, largest), players, len(groups), largest, None)
        if found is None or found[1].crossings != crossings:
            limit *= 4
            continue
        # a pairing with a pair outside the window has shape > limit + slack
        if found[1].shape <= limit + slack:
            return found
        if shape_bound is not None and found[1].shape <= shape_bound:
            return found
        limit *= 4
    found = _solve(_edges(fld, groups, None, largest), players, len(groups), largest, cap)
    return found if found is not None and found[1].crossings == crossings else None


def score_groups(fld: Field, players: list[int]) -> list[list[int]]:
    """Players split into score groups, best score first, each in placement order."""
    groups: list[list[int]] = []
    for p in players:  # players are sorted by placement, hence by score
        if groups and fld.scores[groups[-1][0]] == fld.scores[p]:
            groups[-1].append(p)
        else:
            groups.append([p])
    return groups


def internal_shape(i: int, j: int, m: int) -> int:
    """Distance of places ``i``, ``j`` of a group of ``m`` from top half against bottom half."""
    return abs(2 * abs(j - i) - m) - m % 2


def _edges(
    fld: Field, groups: list[list[int]], limit: int | None, largest: int | None
) -> list[_Edge]:
    """Allowed pairs of shape at most ``limit`` and difference at most ``largest`` (None: any)."""
    edges: list[_Edge] = []
    scores = fld.scores
    met = fld.met
    for g, group in enumerate(groups):
        m = len(group)
        odd = m % 2
        for i, a in enumerate(group):
            if limit is None:
                low, high = i + 1, m - 1
            else:  # |2 (j - i) - m| - m % 2 <= limit
                reach = limit + m % 2
                low, high = max(i + 1, i + (m - reach + 1) // 2), min(m - 1, i + (m + reach) // 2)
            for j in range(low, high + 1):
                b = group[j]
                if (a, b) not in met:
                    edges.append((a, b, g, g, 0, abs(2 * (j - i) - m) - odd))
        for h in range(g + 1, len(groups)):
            lower = groups[h]
            diff = scores[group[0]] - scores[lower[0]]
            if largest is not None and diff > largest:
                break
            for i, a in enumerate(group):
                up = m - 1 - i
                extra = (h - g - 1) * (m - i)  # a better-placed floater skips fewer groups
                reach = len(lower) if limit is None else min(len(lower), limit - up - extra + 1)
                edges.extend(
                    (a, b, g, h, diff, up + j + extra)
                    for j, b in enumerate(lower[: max(reach, 0)])
                    if (a, b) not in met
                )
    return edges


def _solve(
    edges: list[_Edge], nodes: list[int], n_groups: int, largest_from: int, cap: int | None
) -> tuple[Pairs, Value] | None:
    """The optimum over ``edges``: the smallest largest difference (from ``largest_from``)
    that pairs everyone, then the rest of the objective by one weighted matching.

    ``cap``: when ``edges`` are every allowed pair up to each difference tried, no optimal
    pairing crosses a boundary more than ``cap`` times (see :func:`_cut_weights`)."""
    diffs = sorted({e[4] for e in edges} | {largest_from})
    for threshold in (d for d in diffs if d >= largest_from):
        found = _match([e for e in edges if e[4] <= threshold], nodes, n_groups, cap)
        if found is not None:
            return found
    return None


def _cut_weights(
    edges: list[_Edge], nodes: list[int], group_of: dict[int, int], n_groups: int, cap: int | None
) -> list[int]:
    """Integer weights per boundary (boundary ``k`` lies below group ``k``) such that a pair's
    cost, the weights of the boundaries it crosses plus its shape, orders pairings like the
    objective: each boundary outweighs what the optimum can save on all below it.

    The crossings of boundary ``k`` have the parity of the players above it, so two pairings
    that differ there differ by two or more.  Below it, the optimum saves at most what it
    spends over that parity: no more crossings than the players who can cross from either
    side, nor than ``cap``.  (Two pairs across one boundary whose upper players have not met
    and whose lower players have not met could be re-paired upper with upper, lower with
    lower: two crossings fewer there and none more anywhere.  So an optimum's uppers and
    lowers there pair off in rematches, which ``r`` rounds allow ``2r + 1`` of at most.)
    This bounds the weights by the rounds played, not by the field, so they fit rustworkx.
    """
    n_cuts = max(n_groups - 1, 0)
    above: list[set[int]] = [set() for _ in range(n_cuts)]
    below: list[set[int]] = [set() for _ in range(n_cuts)]
    for a, b, ga, gb, _, _ in edges:
        for k in range(ga, gb):
            above[k].add(a)
            below[k].add(b)
    sizes = [0] * n_groups
    for p in nodes:
        sizes[group_of[p]] += 1
    half = len(nodes) // 2
    slack = half * max((e[5] for e in edges), default=0)  # shape: the optimum's at most
    weights = [0] * n_cuts
    running = sum(sizes)
    parity = [0] * n_cuts
    for k in range(n_cuts):
        running -= sizes[k]
        parity[k] = (sum(sizes) - running) % 2
    for k in reversed(range(n_cuts)):
        weights[k] = slack // 2 + 1
        most = min(len(above[k]), len(below[k]), cap if cap is not None else half)
        most -= (most - parity[k]) % 2
        slack += weights[k] * max(most - parity[k], 0)
    return weights


def _match(
    edges: list[_Edge], nodes: list[int], n_groups: int, cap: int | None
) -> tuple[Pairs, Value] | None:
    """Minimum-cost perfect matching; a pair costs the weights of the boundaries it crosses
    (:func:`_cut_weights`) plus its shape.  The total difference follows from the crossings:
    it is the sum over boundaries of crossings times the step in score there."""
    if len(nodes) % 2:
        return None
    group_of: dict[int, int] = {}
    for a, b, ga, gb, _, _ in edges:
        group_of[a], group_of[b] = ga, gb
    if len(group_of) < len(nodes):
        return None
    weights = _cut_weights(edges, nodes, group_of, n_groups, cap)
    prefix = [0, *itertools.accumulate(weights)]
    index = {p: k for k, p in enumerate(nodes)}
    matching = min_cost_perfect(
        len(nodes),
        [(index[a], index[b], prefix[gb] - prefix[ga] + shape) for a, b, ga, gb, _, shape in edges],
    )
    if 2 * len(matching) != len(nodes):
        return None
    keys = {(nodes[x], nodes[y]) for x, y in matching} | {(nodes[y], nodes[x]) for x, y in matching}
    chosen = [e for e in edges if (e[0], e[1]) in keys]
    crossings = [0] * max(n_groups - 1, 0)
    for _, _, ga, gb, _, _ in chosen:
        for k in range(ga, gb):
            crossings[k] += 1
    value = Value(
        max((e[4] for e in chosen), default=0),
        tuple(crossings),
        sum(e[4] for e in chosen),
        sum(e[5] for e in chosen),
    )
    return sorted((min(e[:2]), max(e[:2])) for e in chosen), value


def _group_bound(
    fld: Field, groups: list[list[int]], crossings: tuple[int, ...], largest: int
) -> tuple[int, Pairs | None]:
    """A lower bound on the shape of every pairing with these crossings per boundary.

    A pair across groups costs the upper player's distance from the bottom of their group
    plus the lower one's from the top of theirs (more if it skips a group), so a pairing's
    shape is at least a sum over groups: each group's inside pairs plus, for each of its
    floaters, that player's distance from the edge they leave by.  Of the pairs across the
    boundary above a group all but those that skip the group (``s``) end in it, and those
    across the boundary below it less ``s`` leave it downwards; each group's least such sum
    (its floaters stand-ins that may take any player), over every possible ``s``, bounds
    its share.

    When no group's least sum needs a skip and the players the groups choose to float can
    meet across each boundary without a rematch, those pairs and each group's inside pairs
    are a pairing that reaches the bound: it is returned too.
    """
    total = 0
    inside: Pairs = []
    going: list[tuple[list[int], list[int]]] = []  # per group: players floating up, down
    cross = [0, *crossings, 0]
    scores = fld.scores
    clean = True
    for g, group in enumerate(groups):
        skippable = 0 < g < len(groups) - 1
        skippable = skippable and scores[groups[g - 1][0]] - scores[groups[g + 1][0]] <= largest
        internal = [
            (i, j, internal_shape(i, j, len(group)))
            for i in range(len(group))
            for j in range(i + 1, len(group))
            if (group[i], group[j]) not in fld.met
        ]
        best: tuple[int, int, Pairs, list[int], list[int]] | None = None
        for skip in range(min(cross[g], cross[g + 1]) + 1 if skippable else 1):
            share = _group_share(group, internal, cross[g] - skip, cross[g + 1] - skip)
            if share is not None and (best is None or share[0] < best[0]):
                best = (share[0], skip, *share[1:])
        if best is None:
            return -1, None  # this group cannot be paired so: no bound
        total += best[0]
        clean = clean and best[1] == 0
        inside.extend(best[2])
        going.append((best[3], best[4]))
    if not clean:
        return total, None
    across: Pairs = []
    for g in range(len(groups) - 1):
        met = _across(fld, going[g][1], going[g + 1][0])
        if met is None:
            return total, None
        across.extend(met)
    return total, sorted(inside + across)


def _group_share(
    group: list[int], internal: list[tuple[int, int, int]], n_up: int, n_down: int
) -> tuple[int, Pairs, list[int], list[int]] | None:
    """A group's least shape with ``n_up`` and ``n_down`` floaters: the cost, its inside
    pairs and the players floating up and down (None if it cannot be paired so)."""
    m = len(group)
    edges = list(internal)
    for k in range(n_up + n_down):
        edges.extend((i, m + k, i if k < n_up else m - 1 - i) for i in range(m))
    if m + n_up + n_down == 0:
        return 0, [], [], []
    matching = min_cost_perfect(m + n_up + n_down, edges)
    if 2 * len(matching) != m + n_up + n_down:
        return None
    cost = {(a, b): c for a, b, c in edges}
    pairs: Pairs = []
    up: list[int] = []
    down: list[int] = []
    total = 0
    for a, b in matching:
        i, k = min(a, b), max(a, b)
        total += cost[(i, k)]
        if k < m:
            pairs.append((group[i], group[k]))
        else:
            (up if k - m < n_up else down).append(group[i])
    return total, pairs, sorted(up), sorted(down)


def _across(fld: Field, down: list[int], up: list[int]) -> Pairs | None:
    """Floaters of two neighbouring groups paired without a rematch (any way costs the same)."""
    if len(down) != len(up):
        return None
    edges = [
        (x, len(down) + y, 0)
        for x, a in enumerate(down)
        for y, b in enumerate(up)
        if fld.allowed(a, b)
    ]
    matching = min_cost_perfect(2 * len(down), edges)
    if 2 * len(matching) != 2 * len(down):
        return None
    return [(down[min(x, y)], up[max(x, y) - len(down)]) for x, y in matching]


def min_cost_perfect(n: int, edges: list[tuple[int, int, int]]) -> set[tuple[int, int]]:
    """A maximum matching of nodes ``0..n-1`` of least total cost (a perfect one if any).

    Same input, same answer: rustworkx walks nodes and edges in the order given (checked
    across hash seeds and processes by the tests). A pseudo-random tie-break below the
    objective was tried and made its blossom algorithm a hundred times slower.
    """
    if not edges:
        return set()
    half = n // 2 + 1
    top = max(c for _, _, c in edges) + 1
    weighted = [(a, b, top - c) for a, b, c in edges]
    if (top * half).bit_length() < 120:
        graph = rx.PyGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from(weighted)
        return set(rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int))
    import networkx as nx  # pragma: no cover - unbounded integers, no measured field needs them

    big_graph = nx.Graph()
    big_graph.add_nodes_from(range(n))
    big_graph.add_weighted_edges_from(weighted)
    return {(a, b) for a, b in nx.max_weight_matching(big_graph, maxcardinality=True)}


def _lower_bound(fld: Field, groups: list[list[int]], cap: int) -> Value | None:
    """The relaxation of step 1 of the module's docstring (shape left at 0); ``cap`` is
    ``2r + 1``."""
    keep = cap + 1
    nodes: list[int] = []
    group_of: dict[int, int] = {}
    real: set[int] = set()
    stand_in = len(fld.scores)
    for g, group in enumerate(groups):
        if len(group) <= keep + 1:
            members = list(group)
            real.update(group)
        else:
            count = keep + (len(group) - keep) % 2
            members = list(range(stand_in, stand_in + count))
            stand_in += count
        for p in members:
            group_of[p] = g
        nodes.extend(members)
    score = [fld.scores[g[0]] for g in groups]
    edges = [
        (a, b, group_of[a], group_of[b], abs(score[group_of[a]] - score[group_of[b]]), 0)
        for x, a in enumerate(nodes)
        for b in nodes[x + 1 :]
        if not (a in real and b in real) or fld.allowed(a, b)
    ]
    # a pair must cross every boundary with an odd number of players above it
    odd_cut, above = 0, 0
    for g in range(len(groups) - 1):
        above += len(groups[g])
        if above % 2:
            odd_cut = max(odd_cut, score[g] - score[g + 1])
    found = _solve(edges, nodes, len(groups), odd_cut, cap)
    return None if found is None else found[1]


def _shape_slack(fld: Field, groups: list[list[int]], largest: int) -> int:
    """How much shape the pairs of any pairing have at least, beyond one pair outside the window.

    Every player's pair costs at least the least shape of any allowed pair of theirs (``mu``),
    so a pairing costs at least half the sum of ``mu``; one pair outside the window costs
    more than ``limit`` and covers two players, whose ``mu`` (at most the largest) it replaces.
    """
    mu: list[int] = []
    scores = fld.scores
    for g, group in enumerate(groups):
        m = len(group)
        has_up = g > 0 and scores[groups[g - 1][0]] - scores[group[0]] <= largest
        has_down = g + 1 < len(groups) and scores[group[0]] - scores[groups[g + 1][0]] <= largest
        by_shape = sorted(range(1, m), key=lambda d: abs(2 * d - m))
        for i in range(m):
            least = _least_internal(fld, group, i, by_shape)
            mu.append(min([i] * has_up + [m - 1 - i] * has_down + [least]))
    return max(0, (sum(mu) - 2 * max(mu, default=0)) // 2)


def _least_internal(fld: Field, group: list[int], i: int, by_shape: list[int]) -> int:
    """The least shape of an allowed pair of place ``i`` inside its own group (large if none).

    ``by_shape``: the distances between places, best shape first."""
    m = len(group)
    for d in by_shape:
        for j in (i + d, i - d):
            if 0 <= j < m and fld.allowed(group[i], group[j]):
                return internal_shape(i, j, m)
    return 4 * m + 4
