"""The Swiss pairing solver: the best pairing of an even set of players by the Swiss objective.

The objective and its order are written in `bot.rules.swiss`; this module finds its optimum
exactly and quickly.  Players are positions in the current standings (0 is the best placed);
scores are integers (the caller scales half points).

How it stays exact and fast:

1. A lower bound on (largest difference, crossings of each score-group boundary, total
   difference) from a small relaxation: every score group of more than ``2r + 3`` players
   (``r``: the most opponents any player has met) is replaced by ``2r + 2`` interchangeable
   players (one more for an odd group) who may meet anybody.  Ignoring rematches can only
   lower the optimum; and in an optimal relaxed pairing no group sends more than ``r + 1``
   players up, nor ``r + 1`` down (two of them crossing the same way could meet each other
   while their partners, who cannot all have met each other, meet instead: two crossings
   fewer, none more and no pair further apart), so the stand-ins lose nothing.  Small
   groups keep their real players and rematches: the bound sees a top group that has met.
2. A pairing with the bound's crossings crosses no boundary the bound leaves uncrossed, so
   the segments of groups between such boundaries are paired apart.  For each: a bound on
   its shape (`bot.rules.swiss_bounds`), and the pairing that reaches it when the floaters
   it picks can meet; otherwise a window of candidate pairs, those within ``limit`` of "top
   half against bottom half" and no further apart than the bound, and every pair across
   groups of a player the bound floats.  If the window's best reaches the bound's crossings
   and no pairing with a pair outside the window can have less shape, it is optimal;
   otherwise the window widens, only as far as a pairing of less shape could reach, up to
   every allowed pair of the segment (at once if a window's weights outgrow rustworkx, or
   if the window that could prove the pairing found would hold nearly every pair anyway:
   a big score group whose ideal pairs have all met, issue 34's 999 players drawing eight
   rounds, would otherwise be matched four times over ever wider windows).
3. If a segment cannot reach the bound's crossings, the whole field is matched over every
   allowed pair.

Each matching is one minimum-cost perfect matching (`bot.rules.swiss_matching`), in Rust.
"""

from __future__ import annotations

from bot.rules.swiss_bounds import group_bound, shape_slack
from bot.rules.swiss_matching import (
    Field,
    Pairs,
    TooWide,
    Value,
    candidate_edges,
    score_groups,
    solve,
)

__all__ = ["Field", "Value", "best_pairing"]

#: Score groups up to this size are solved one by one for the shape bound (every pair inside
#: them is a candidate); a field with a larger group (nearly all draws) relies on the window.
_GROUP_BOUND_LIMIT = 400

#: The first window's shape limit; it grows fourfold, or as far as a better pairing could reach.
_FIRST_WINDOW = 8


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
    every = candidate_edges(fld, groups, None, None)
    return solve(every, players, len(groups), bound.largest, cap)


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
    floaters: set[int] = set()
    if small:
        shape_bound, assembled, floaters = group_bound(fld, groups, crossings, largest)
        if assembled is not None:  # reaches every bound, so it is optimal
            total = sum(
                c * (fld.scores[groups[k][0]] - fld.scores[groups[k + 1][0]])
                for k, c in enumerate(crossings)
            )
            widest_pair = max((abs(fld.scores[a] - fld.scores[b]) for a, b in assembled), default=0)
            return assembled, Value(widest_pair, crossings, total, shape_bound)
    slack = shape_slack(fld, groups, largest)
    widest = 2 * max(len(g) for g in groups) + 2
    limit = _FIRST_WINDOW
    while limit < widest:
        window = candidate_edges(fld, groups, limit, largest, floaters)
        try:
            found = solve(window, players, len(groups), largest, None)
        except TooWide:  # the whole segment's weights are bounded by the rounds played
            break
        if found is None or found[1].crossings != crossings:
            limit *= 4
            continue
        # a pairing with a pair outside the window has shape > limit + slack
        reached = found[1].shape
        if reached <= limit + slack + 1 or (shape_bound is not None and reached <= shape_bound):
            return found
        # every pairing of less shape lies in this window, and the found one too
        if 2 * (reached - 1 - slack) >= widest:  # the window that could prove it holds
            break  # nearly every pair: the whole segment costs little more than the windows
        limit = min(4 * limit, reached - 1 - slack)
    found = solve(candidate_edges(fld, groups, None, largest), players, len(groups), largest, cap)
    return found if found is not None and found[1].crossings == crossings else None


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
    found = solve(edges, nodes, len(groups), odd_cut, cap)
    return None if found is None else found[1]
