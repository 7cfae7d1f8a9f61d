"""Lower bounds on the shape of a Swiss pairing, and the pairings that reach them.

Shape is the last criterion of the objective of `bot.rules.swiss` ("top half against bottom
half"); these bounds let `bot.rules.swiss_pairing` stop at a small matching once no other
pairing can do better, instead of matching the whole field.
"""

from __future__ import annotations

from bot.rules.swiss_matching import Field, Pairs, internal_shape, min_cost_perfect


def group_bound(
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


def shape_slack(fld: Field, groups: list[list[int]], largest: int) -> int:
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
