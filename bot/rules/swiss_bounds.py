"""Lower bounds on the shape of a Swiss pairing, and the pairings that reach them.

Shape is the last criterion of the objective of `bot.rules.swiss` ("top half against bottom
half"); these bounds let `bot.rules.swiss_pairing` stop at a small matching once no other
pairing can do better, instead of matching the whole field.
"""

from __future__ import annotations

from bot.rules.swiss_matching import (
    Edge,
    Field,
    Pairs,
    TooWide,
    candidate_edges,
    internal_shape,
    match,
    min_cost_perfect,
)

#: Neighbouring score groups of at most this many players together are bounded as one
#: matching with their real pairs between them, so a rematch between the floaters of two
#: small groups (a top group that has met the next) is seen by the bound, not assumed away.
CLUSTER = 48

#: A unit's share of a bound: its cost, the pairs it skips, its inside pairs, the players
#: it sends up and down.
_Share = tuple[int, int, Pairs, list[int], list[int]]


def group_bound(
    fld: Field, groups: list[list[int]], crossings: tuple[int, ...], largest: int
) -> tuple[int, Pairs | None, set[int]]:
    """A lower bound on the shape of every pairing with these crossings per boundary.

    A pair across groups costs the upper player's distance from the bottom of their group
    plus the lower one's from the top of theirs, and at least one more for each group it
    skips, so a pairing's shape is at least a sum over units (a score group, or neighbouring
    small groups): each unit's inside pairs plus, for each of its floaters, that player's
    distance from the edge they leave by, plus the pairs that skip it.  Of the pairs across
    the boundary above a unit all but those that skip it (``s``) end in it, and those across
    the boundary below it less ``s`` leave it downwards; a unit's least such sum (its
    floaters stand-ins that may take any player) bounds its share for each ``s``.  The least
    sum over the skips that pairs no further apart than ``largest`` can make, unit by unit
    from the top, is the bound.

    When that least sum needs no skip and the players the units choose to float can meet
    across each boundary without a rematch, and that pairing costs the bound, it is optimal:
    it is returned too.  Last, every player some unit's least sum floats: the pairs of the
    optimum across groups are likely among theirs.
    """
    cross = [0, *crossings, 0]
    units: list[tuple[int, int]] = []
    shares: list[dict[int, _Share]] = []
    for start, end in _units(groups):
        options = _unit_options(fld, groups, start, end, cross, largest)
        if options is None:  # bound its groups one by one instead
            for g in range(start, end):
                units.append((g, g + 1))
                shares.append(_unit_options(fld, groups, g, g + 1, cross, largest) or {})
        else:
            units.append((start, end))
            shares.append(options)
    floaters = {p for options in shares for share in options.values() for p in share[3] + share[4]}
    if not all(shares):
        return -1, None, floaters  # a unit cannot be paired so: no bound
    scores = fld.scores
    # per state, the starting groups of the pairs across the boundary below the units so far
    # (those who go on past a unit are the latest to start: any later pair could too)
    least: dict[tuple[int, ...], int] = {(): 0}
    for (start, end), options in zip(units, shares, strict=True):
        after: dict[tuple[int, ...], int] = {}
        for state, so_far in least.items():
            for skip, share in options.items():
                going_on = state[len(state) - skip :] if skip else ()
                if any(scores[groups[g][0]] - scores[groups[end][0]] > largest for g in going_on):
                    continue
                key = tuple(sorted(going_on + (end - 1,) * (cross[end] - skip)))
                cost = so_far + share[0] + skip * (end - start)
                after[key] = min(cost, after.get(key, cost))
        least = after
        if not least:
            return -1, None, floaters
    total = min(least.values())
    if any(0 not in options for options in shares):
        return total, None, floaters
    if sum(options[0][0] for options in shares) != total:
        return total, None, floaters
    pairs = [p for options in shares for p in options[0][2]]
    for u in range(len(units) - 1):
        met = _across(fld, shares[u][0][4], shares[u + 1][0][3])
        if met is None:
            return total, None, floaters
        pairs.extend(met)
    reached = _shape_if_within(fld, groups, pairs, crossings, largest) == total
    return total, sorted(pairs) if reached else None, floaters


def _units(groups: list[list[int]]) -> list[tuple[int, int]]:
    """Runs of neighbouring groups of at most :data:`CLUSTER` players, as ``(start, end)``."""
    units: list[tuple[int, int]] = []
    size = CLUSTER + 1
    for g, group in enumerate(groups):
        if size + len(group) <= CLUSTER:
            units[-1] = (units[-1][0], g + 1)
            size += len(group)
        else:
            units.append((g, g + 1))
            size = len(group)
    return units


def _unit_options(
    fld: Field, groups: list[list[int]], start: int, end: int, cross: list[int], largest: int
) -> dict[int, _Share] | None:
    """The least share of groups ``start..end-1`` for each number of pairs that may skip
    them; None when a cluster's matching cannot tell (then its groups are bounded alone)."""
    scores = fld.scores
    skippable = 0 < start and end < len(groups)
    skippable = skippable and scores[groups[start - 1][0]] - scores[groups[end][0]] <= largest
    options: dict[int, _Share] = {}
    internal = _internal(fld, groups[start]) if end - start == 1 else []
    for skip in range(min(cross[start], cross[end]) + 1 if skippable else 1):
        inner = tuple(c - skip for c in cross[start + 1 : end])
        if end - start == 1:
            share = _group_share(groups[start], internal, cross[start] - skip, cross[end] - skip)
        else:
            known, share = _cluster_share(
                fld, groups, (start, end), (cross[start] - skip, inner, cross[end] - skip), largest
            )
            if not known:
                return None
        if share is not None:
            options[skip] = (share[0], skip, *share[1:])
    return options


def _internal(fld: Field, group: list[int]) -> list[tuple[int, int, int]]:
    """The allowed pairs inside a group as places, with their shape (`internal_shape`)."""
    m = len(group)
    odd = m % 2
    met = fld.met
    return [
        (i, j, abs(2 * (j - i) - m) - odd)
        for i in range(m)
        for j in range(i + 1, m)
        if (group[i], group[j]) not in met
    ]


def _cluster_share(
    fld: Field,
    groups: list[list[int]],
    unit: tuple[int, int],
    crossing: tuple[int, tuple[int, ...], int],
    largest: int,
) -> tuple[bool, tuple[int, Pairs, list[int], list[int]] | None]:
    """The least share of neighbouring groups with ``n_up`` floaters up, these crossings
    between them and ``n_down`` down: one matching of their players and the floaters'
    stand-ins, by the whole objective.  ``(False, None)`` when its best crossings are not
    these (its shape then bounds nothing), ``(True, None)`` when they cannot be paired so."""
    start, end = unit
    n_up, inner, n_down = crossing
    part = groups[start:end]
    scores = fld.scores
    edges: list[Edge] = [
        (a, b, ga + 1, gb + 1, diff, shape)
        for a, b, ga, gb, diff, shape in candidate_edges(fld, part, None, largest)
    ]
    ups = list(range(len(scores), len(scores) + n_up))
    downs = list(range(len(scores) + n_up, len(scores) + n_up + n_down))
    for h, group in enumerate(part):
        for i, p in enumerate(group):
            if ups and scores[groups[start - 1][0]] - scores[p] <= largest:
                diff = scores[groups[start - 1][0]] - scores[p]
                edges.extend((u, p, 0, h + 1, diff, i) for u in ups)
            if downs and scores[p] - scores[groups[end][0]] <= largest:
                diff = scores[p] - scores[groups[end][0]]
                edges.extend((p, d, h + 1, len(part) + 1, diff, len(group) - 1 - i) for d in downs)
    nodes = ups + [p for group in part for p in group] + downs
    try:
        found = match(edges, nodes, len(part) + 2, None)
    except TooWide:
        return False, None
    if found is None:
        return True, None
    if found[1].crossings != (n_up, *inner, n_down):
        return False, None
    real = [(a, b) for a, b in found[0] if b < len(scores)]
    up = sorted(a for a, b in found[0] if b in ups)
    down = sorted(a for a, b in found[0] if b in downs)
    return True, (found[1].shape, real, up, down)


def _shape_if_within(
    fld: Field, groups: list[list[int]], pairs: Pairs, crossings: tuple[int, ...], largest: int
) -> int | None:
    """The shape of ``pairs`` if they have these crossings, no rematch and no pair further
    apart than ``largest`` (None otherwise)."""
    where = {p: (g, i, len(group)) for g, group in enumerate(groups) for i, p in enumerate(group)}
    counted = [0] * len(crossings)
    shape = 0
    for x, y in pairs:
        (ga, i, m), (gb, j, _) = sorted((where[x], where[y]))
        if not fld.allowed(x, y) or abs(fld.scores[x] - fld.scores[y]) > largest:
            return None
        for k in range(ga, gb):
            counted[k] += 1
        if ga == gb:
            shape += internal_shape(i, j, m)
        else:
            shape += (m - 1 - i) + j + (gb - ga - 1) * (m - i)
    return shape if tuple(counted) == crossings else None


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
