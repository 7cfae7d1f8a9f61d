"""The matchings behind Swiss pairing: candidate pairs, and the best pairing over them by the
objective of `bot.rules.swiss`, as one minimum-cost perfect matching.

Players are positions in the current standings (0 is the best placed); scores are integers
(the caller scales half points).  Each matching is rustworkx's maximum weight matching (the
blossom algorithm, in Rust) with integer weights that encode the objective
lexicographically; :func:`_cut_weights` keeps them within its 128-bit integers.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection
from dataclasses import dataclass, field
from operator import itemgetter

import rustworkx as rx

Pairs = list[tuple[int, int]]


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
Edge = tuple[int, int, int, int, int, int]


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


def candidate_edges(
    fld: Field,
    groups: list[list[int]],
    limit: int | None,
    largest: int | None,
    floaters: Collection[int] = (),
) -> list[Edge]:
    """Allowed pairs of shape at most ``limit`` and difference at most ``largest`` (None: any),
    and every allowed pair across groups of one of ``floaters`` within ``largest``."""
    edges: list[Edge] = []
    scores = fld.scores
    met = fld.met
    for g, group in enumerate(groups):
        m = len(group)
        odd = m % 2
        shape_at = [abs(2 * d - m) - odd for d in range(m)]  # by the distance of the places
        for i, a in enumerate(group):
            if limit is None:
                low, high = i + 1, m - 1
            else:  # |2 (j - i) - m| - m % 2 <= limit
                reach = limit + m % 2
                low, high = max(i + 1, i + (m - reach + 1) // 2), min(m - 1, i + (m + reach) // 2)
            edges += [
                (a, b, g, g, 0, shape_at[j - i])
                for j, b in enumerate(group[low : high + 1], start=low)
                if (a, b) not in met
            ]
        for h in range(g + 1, len(groups)):
            lower = groups[h]
            diff = scores[group[0]] - scores[lower[0]]
            if largest is not None and diff > largest:
                break
            hinted = [(j, b) for j, b in enumerate(lower) if b in floaters]
            for i, a in enumerate(group):
                up = m - 1 - i
                extra = (h - g - 1) * (m - i)  # a better-placed floater skips fewer groups
                reach = len(lower) if limit is None else min(len(lower), limit - up - extra + 1)
                reach = len(lower) if a in floaters else max(reach, 0)
                edges.extend(
                    (a, b, g, h, diff, up + j + extra)
                    for j, b in enumerate(lower[:reach])
                    if (a, b) not in met
                )
                edges.extend(
                    (a, b, g, h, diff, up + j + extra)
                    for j, b in hinted
                    if j >= reach and (a, b) not in met
                )
    return edges


def solve(
    edges: list[Edge], nodes: list[int], n_groups: int, largest_from: int, cap: int | None
) -> tuple[Pairs, Value] | None:
    """The optimum over ``edges``: the smallest largest difference (from ``largest_from``)
    that pairs everyone, then the rest of the objective by one weighted matching.

    ``cap``: when ``edges`` are every allowed pair up to each difference tried, no optimal
    pairing crosses a boundary more than ``cap`` times (see :func:`_cut_weights`)."""
    diffs = sorted({e[4] for e in edges} | {largest_from})
    for threshold in (d for d in diffs if d >= largest_from):
        usable = edges if threshold >= diffs[-1] else [e for e in edges if e[4] <= threshold]
        found = match(usable, nodes, n_groups, cap)
        if found is not None:
            return found
    return None


def _cut_weights(
    edges: list[Edge], nodes: list[int], group_of: dict[int, int], n_groups: int, cap: int | None
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
    deepest: dict[int, int] = {}  # an upper player: the lowest group any pair of theirs reaches
    highest: dict[int, int] = {}  # a lower player: the highest
    widest_shape = 0
    for a, b, ga, gb, _, shape in edges:
        if shape > widest_shape:
            widest_shape = shape
        if ga != gb:
            if deepest.get(a, ga) < gb:
                deepest[a] = gb
            if highest.get(b, gb) > ga:
                highest[b] = ga
    # above[k], below[k]: players who can cross boundary k from above, from below
    above = [0] * (n_cuts + 1)
    below = [0] * (n_cuts + 1)
    for a, low in deepest.items():
        above[group_of[a]] += 1
        above[low] -= 1
    for b, high in highest.items():
        below[high] += 1
        below[group_of[b]] -= 1
    above = list(itertools.accumulate(above))
    below = list(itertools.accumulate(below))
    sizes = [0] * n_groups
    for p in nodes:
        sizes[group_of[p]] += 1
    half = len(nodes) // 2
    slack = half * widest_shape  # shape: the optimum's at most
    weights = [0] * n_cuts
    running = sum(sizes)
    parity = [0] * n_cuts
    for k in range(n_cuts):
        running -= sizes[k]
        parity[k] = (sum(sizes) - running) % 2
    for k in reversed(range(n_cuts)):
        weights[k] = slack // 2 + 1
        most = min(above[k], below[k], cap if cap is not None else half)
        most -= (most - parity[k]) % 2
        slack += weights[k] * max(most - parity[k], 0)
    return weights


def match(
    edges: list[Edge], nodes: list[int], n_groups: int, cap: int | None
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
    if cap is None and not fits(len(nodes), prefix[-1] + max((e[5] for e in edges), default=0) + 1):
        raise TooWide
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


#: rustworkx's matching takes 128-bit integers; a matching whose costs reach this many bits
#: (with the dual's headroom) goes to networkx's unbounded ones instead, much slower.
RUST_BITS = 120


class TooWide(Exception):
    """A window's weights need more bits than rustworkx has; the caller solves otherwise."""


def fits(n: int, top: int) -> bool:
    """Whether costs below ``top`` on ``n`` nodes fit rustworkx's integers."""
    return (top * (n // 2 + 1)).bit_length() < RUST_BITS


def min_cost_perfect(n: int, edges: list[tuple[int, int, int]]) -> set[tuple[int, int]]:
    """A maximum matching of nodes ``0..n-1`` of least total cost (a perfect one if any).

    Same input, same answer: rustworkx walks nodes and edges in the order given (checked
    across hash seeds and processes by the tests). A pseudo-random tie-break below the
    objective was tried and made its blossom algorithm a hundred times slower.
    """
    if not edges:
        return set()
    top = max(map(itemgetter(2), edges)) + 1
    weighted = [(a, b, top - c) for a, b, c in edges]
    if fits(n, top):
        graph = rx.PyGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from(weighted)
        return set(rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int))
    import networkx as nx  # pragma: no cover - unbounded integers, no measured field needs them

    big_graph = nx.Graph()
    big_graph.add_nodes_from(range(n))
    big_graph.add_weighted_edges_from(weighted)
    return {(a, b) for a, b in nx.max_weight_matching(big_graph, maxcardinality=True)}
