"""An independent exact check of Swiss pairing: the objective of `bot.rules.swiss` computed from
the names, and its optimum by brute force or by one matching over all allowed pairs.

Written apart from `bot.rules.swiss_pairing` on purpose (no windows, no relaxation, no shared
code but the standings): the tests and `benchmarks/pairing.py` compare the two.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction

from bot.rules.swiss import Result, standings

Objective = tuple[Fraction, tuple[int, ...], Fraction, int]


class Table:
    """The active players by placement, their score groups and who met whom."""

    def __init__(self, seeding: Sequence[str], results: Sequence[Result], withdrawn: Sequence[str]):
        rows = [r for r in standings(seeding, results) if r.player not in set(withdrawn)]
        self.order = [r.player for r in rows]
        self.points = {r.player: Fraction(r.points) for r in rows}
        self.byes = {r.player for r in rows if r.byes}
        self.met = {frozenset((a, b)) for a, b, _, _ in results if b is not None}
        distinct = sorted(set(self.points.values()), reverse=True)
        self.group = {p: distinct.index(self.points[p]) for p in self.order}
        self.n_groups = len(distinct)
        self.place: dict[str, tuple[int, int]] = {}

    def paired(self, players: Sequence[str]) -> Table:
        """Score groups and places of the players being paired (the bye left out: a group
        that was only the bye is no group of this round, and no pair skips it)."""
        distinct = sorted({self.points[p] for p in players}, reverse=True)
        self.group = {p: distinct.index(self.points[p]) for p in players}
        self.n_groups = len(distinct)
        members: dict[int, list[str]] = {}
        for p in self.order:
            if p in set(players):
                members.setdefault(self.group[p], []).append(p)
        self.place = {p: (i, len(m)) for m in members.values() for i, p in enumerate(m)}
        return self

    def shape(self, a: str, b: str) -> int:
        (ia, ma), (ib, mb) = self.place[a], self.place[b]
        if self.group[a] == self.group[b]:
            return abs(2 * abs(ib - ia) - ma) - ma % 2
        skipped = abs(self.group[a] - self.group[b]) - 1
        if self.group[a] > self.group[b]:
            (ia, ma), (ib, mb) = (ib, mb), (ia, ma)
        return (ma - 1 - ia) + ib + skipped * (ma - ia)

    def boundaries(self, a: str, b: str) -> range:
        """The score-group boundaries a pair crosses (boundary k lies below group k)."""
        ga, gb = sorted((self.group[a], self.group[b]))
        return range(ga, gb)

    def value(self, pairs: Sequence[tuple[str, str]]) -> Objective:
        """(largest difference, pairs across each boundary from the top, total, shape)."""
        crossings = [0] * max(self.n_groups - 1, 0)
        for a, b in pairs:
            for boundary in self.boundaries(a, b):
                crossings[boundary] += 1
        diffs = [abs(self.points[a] - self.points[b]) for a, b in pairs]
        return (
            max(diffs, default=Fraction(0)),
            tuple(crossings),
            sum(diffs, Fraction(0)),
            sum(self.shape(a, b) for a, b in pairs),
        )


def objective(
    seeding: Sequence[str],
    results: Sequence[Result],
    withdrawn: Sequence[str],
    pairs: Sequence[tuple[str, str | None]],
) -> Objective:
    """The objective of a pairing the bot made (the bye left out)."""
    real = [(a, b) for a, b in pairs if b is not None]
    return Table(seeding, results, withdrawn).paired([p for q in real for p in q]).value(real)


def best(
    seeding: Sequence[str],
    results: Sequence[Result],
    withdrawn: Sequence[str],
    *,
    brute: bool = False,
    engine: str = "networkx",
) -> tuple[str | None, Objective] | None:
    """The rule's bye and the optimal objective, or None when no valid pairing exists."""
    table = Table(seeding, results, withdrawn)
    active = table.order
    solve = _brute if brute else _matching
    if len(active) % 2 == 0:
        found = solve(table, active, engine)
        return None if found is None else (None, found)
    for candidate in reversed(active):
        if candidate in table.byes:
            continue
        found = solve(table, [p for p in active if p != candidate], engine)
        if found is not None:
            return candidate, found
    return None


def _perfect_matchings(players: list[str]) -> Iterator[list[tuple[str, str]]]:
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        for tail in _perfect_matchings(rest[:i] + rest[i + 1 :]):
            yield [(first, other), *tail]


def _brute(table: Table, players: list[str], engine: str) -> Objective | None:
    table.paired(players)
    values = [
        table.value(m)
        for m in _perfect_matchings(players)
        if all(frozenset(p) not in table.met for p in m)
    ]
    return min(values, default=None)


def _matching(table: Table, players: list[str], engine: str) -> Objective | None:
    """Every allowed pair; the largest difference by trying each bound from the smallest; the
    rest as one integer cost per pair: the weights of the boundaries it crosses, each
    outweighing every boundary below it and the shape, plus its shape.

    With networkx the weights are unbounded (a boundary is crossed at most n/2 times).  With
    rustworkx (big fields) they use that an optimum crosses a boundary at most ``2r + 1``
    times after ``r`` rounds and that crossings keep the parity of the players above, as
    argued in `bot.rules.swiss_matching`, so that they fit its 128-bit integers."""
    table.paired(players)
    pairs = [
        (a, b)
        for x, a in enumerate(players)
        for b in players[x + 1 :]
        if frozenset((a, b)) not in table.met
    ]
    if not players:
        return (Fraction(0), tuple([0] * max(table.n_groups - 1, 0)), Fraction(0), 0)
    n = len(players)
    rounds = max(sum(1 for q in players if frozenset((p, q)) in table.met) for p in players)
    shape_most = (n // 2) * max((table.shape(a, b) for a, b in pairs), default=0)
    ratio = n // 2 + 1 if engine == "networkx" else rounds + 1
    weight = [0] * max(table.n_groups - 1, 0)
    unit = shape_most + 1
    for boundary in reversed(range(len(weight))):
        weight[boundary] = unit
        unit *= ratio

    def cost(a: str, b: str) -> int:
        return sum(weight[k] for k in table.boundaries(a, b)) + table.shape(a, b)

    for bound in sorted({abs(table.points[a] - table.points[b]) for a, b in pairs}):
        usable = [(a, b) for a, b in pairs if abs(table.points[a] - table.points[b]) <= bound]
        costs = [cost(a, b) for a, b in usable]
        big = max(costs) + 1
        matching = _max_weight(players, usable, [big - c for c in costs], engine)
        if 2 * len(matching) == n:
            return table.value(matching)
    return None


def _max_weight(
    players: list[str], pairs: list[tuple[str, str]], weights: list[int], engine: str
) -> list[tuple[str, str]]:
    if engine == "rustworkx" and max(weights) * len(players) < 2**120:
        import rustworkx as rx

        graph = rx.PyGraph()
        graph.add_nodes_from(players)
        index = {p: i for i, p in enumerate(players)}
        graph.add_edges_from(
            [(index[a], index[b], w) for (a, b), w in zip(pairs, weights, strict=True)]
        )
        found = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
        return [(players[x], players[y]) for x, y in found]
    import networkx as nx

    nx_graph = nx.Graph()
    nx_graph.add_nodes_from(players)
    nx_graph.add_weighted_edges_from((a, b, w) for (a, b), w in zip(pairs, weights, strict=True))
    return [tuple(p) for p in nx.max_weight_matching(nx_graph, maxcardinality=True)]  # type: ignore[misc]
