"""Entry rules: who plays a stage, in order, and which rule moved each of them on.

A championship format is an ordered list of stages of a kind (:class:`StageKind`), each
with entry rules (:class:`EntryRule`) read against the earlier stages' plain outcomes
(:class:`Outcomes`) by :func:`stage_entrants`. Every edition is a list of rules:
:data:`ACWC_2019_ENTRY` (Swiss top 3 and the runner-up to the Candidates; its winner and
the champion, or without the champion the Candidates runner-up, to the Final),
:data:`ACWC_2020_ENTRY` and :data:`ACWC_2021_ENTRY` (2021-2024).

Players who withdrew or were disqualified (``Outcomes.left``) are skipped and everyone
below them moves up one place (rule VIII; "the other players below them ... move up one
position", 2024 rules, withdrawals).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from bot.rules.knockout import Pairing, PoolPlace, below_in_pools, route, slots_after_leaving
from bot.rules.pools import LOWER, UPPER, moved_up

__all__ = [
    "ACWC_2019_ENTRY",
    "ACWC_2020_ENTRY",
    "ACWC_2021_ENTRY",
    "Entry",
    "EntryKind",
    "EntryRule",
    "Outcomes",
    "PreSeededRole",
    "StageKind",
    "StageOutcome",
    "by_place",
    "losers",
    "places",
    "pool_places",
    "pre_seeded",
    "split_pre_seeded",
    "stage_entrants",
    "top",
    "winners",
]


class StageKind(StrEnum):
    """The kinds of stage a format is made of."""

    SWISS = "swiss"
    ROUND_ROBIN = "round_robin"  # one or more pools
    KNOCKOUT = "knockout"  # 2020's Knock-Out, 2021-2024's Semifinals
    FINAL_MATCH = "final_match"  # the Final, Grand Final, Third Place Playoff


class EntryKind(StrEnum):
    """How an entry rule picks its players."""

    TOP = "top"  # the top N of an earlier stage's final ranking
    PLACES = "places"  # listed places of an earlier stage (Swiss 1-4)
    POOL_PLACES = "pool_places"  # places of pools (upper pool winner, lower pool runner-up)
    WINNERS = "winners"  # a knock-out's winners, in pairing order
    LOSERS = "losers"  # a knock-out's losers, in pairing order
    PRE_SEEDED = "pre_seeded"  # a named pre-seeded player by role


class PreSeededRole(StrEnum):
    """The previous edition's finalists, in priority order (the champion first)."""

    CHAMPION = "champion"
    RUNNER_UP = "runner_up"


@dataclass(frozen=True)
class EntryRule:
    """One rule of a stage's entry: ``kind`` and what it reads. ``source`` is the earlier
    stage's name (not for ``PRE_SEEDED``); ``count`` the N of ``TOP``, grown by the
    number of absent pre-seeded players when ``plus_absent_pre_seeded`` ("or more if ...
    doesn't play", 2021 rules, Qualification); ``places`` / ``pool_places`` the places
    taken; ``role`` the pre-seeded player's, and ``fallback`` who plays in their place when
    they are absent (2019: the Candidates runner-up for the champion, rule VIII.C.1)."""

    kind: EntryKind
    source: str = ""
    count: int = 0
    plus_absent_pre_seeded: bool = False
    places: tuple[int, ...] = ()
    pool_places: tuple[PoolPlace, ...] = ()
    role: PreSeededRole | None = None
    fallback: EntryRule | None = None

    def __post_init__(self) -> None:
        kind = self.kind
        if (kind is EntryKind.PRE_SEEDED) != (self.role is not None):
            raise ValueError("a role is given exactly for a pre_seeded rule")
        if kind is not EntryKind.PRE_SEEDED and not self.source:
            raise ValueError(f"a {kind} rule names its source stage")
        if self.fallback is not None and kind is not EntryKind.PRE_SEEDED:
            raise ValueError("only a pre_seeded rule has a fallback")
        if self.plus_absent_pre_seeded and kind is not EntryKind.TOP:
            raise ValueError("only a top rule grows by the absent pre-seeded players")
        if kind is EntryKind.TOP and self.count < 1:
            raise ValueError("a top rule takes at least one player")
        if kind is EntryKind.PLACES:
            _check_places(self.places)
        if kind is EntryKind.POOL_PLACES:
            _check_places(self.pool_places)
            if any(place < 1 for _, place in self.pool_places):
                raise ValueError("places start at 1")


def _check_places(listed: Sequence[object]) -> None:
    if not listed:
        raise ValueError("a places rule lists at least one place")
    if len(set(listed)) != len(listed):
        raise ValueError(f"a place is listed twice in {list(listed)}")
    if any(isinstance(p, int) and p < 1 for p in listed):
        raise ValueError("places start at 1")


def top(source: str, count: int, *, plus_absent_pre_seeded: bool = False) -> EntryRule:
    return EntryRule(EntryKind.TOP, source, count, plus_absent_pre_seeded)


def places(source: str, *listed: int) -> EntryRule:
    return EntryRule(EntryKind.PLACES, source, places=tuple(listed))


def pool_places(source: str, *listed: PoolPlace) -> EntryRule:
    return EntryRule(EntryKind.POOL_PLACES, source, pool_places=tuple(listed))


def winners(source: str) -> EntryRule:
    return EntryRule(EntryKind.WINNERS, source)


def losers(source: str) -> EntryRule:
    return EntryRule(EntryKind.LOSERS, source)


def pre_seeded(role: PreSeededRole, *, fallback: EntryRule | None = None) -> EntryRule:
    return EntryRule(EntryKind.PRE_SEEDED, role=role, fallback=fallback)


@dataclass(frozen=True)
class StageOutcome:
    """What a finished stage decided: its final ``ranking`` (best first), its ``pools``'
    rankings, and for a knock-out its ``pairings`` and each one's winner by name."""

    ranking: tuple[str, ...] = ()
    pools: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    pairings: tuple[Pairing, ...] = ()
    winners: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcomes:
    """The earlier stages' outcomes by stage name; the edition's pre-seeded players by
    role (None: the role is nobody's, or they do not play); who withdrew or was
    disqualified since (``left``: skipped, a pre-seeded one counts as absent)."""

    stages: Mapping[str, StageOutcome] = field(default_factory=dict)
    pre_seeded: Mapping[PreSeededRole, str | None] = field(default_factory=dict)
    left: frozenset[str] = frozenset()

    def present(self, role: PreSeededRole) -> str | None:
        player = self.pre_seeded.get(role)
        return player if player is not None and player not in self.left else None

    def present_pre_seeded(self) -> list[str]:
        """The pre-seeded players who play, champion first."""
        return [p for role in PreSeededRole if role in self.pre_seeded if (p := self.present(role))]

    def absent_pre_seeded(self) -> int:
        return sum(1 for role in self.pre_seeded if self.present(role) is None)


@dataclass(frozen=True)
class Entry:
    """Who entered a stage and by which rule, for the export: the rule's ``kind`` and
    ``source``; ``place`` the place counted (a knock-out's: the pairing's number);
    ``pool`` for a pool place; ``moved_up`` how many places they moved up because players
    above left (a knock-out stand-in: 1); ``role`` a pre-seeded player's; ``instead_of``
    the absent pre-seeded role whose fallback they came by."""

    player: str
    rule: EntryKind
    source: str = ""
    place: int | None = None
    pool: str | None = None
    moved_up: int = 0
    role: PreSeededRole | None = None
    instead_of: PreSeededRole | None = None


def _stage(outcomes: Outcomes, name: str) -> StageOutcome:
    if name not in outcomes.stages:
        raise ValueError(f"no outcome for the stage {name!r}")
    return outcomes.stages[name]


def _from_ranking(
    rule: EntryRule, ranking: Sequence[str], wanted: Sequence[int], outcomes: Outcomes
) -> list[Entry]:
    """The players at the ``wanted`` places of ``ranking`` once those who left are out."""
    moved = moved_up(ranking, outcomes.left)
    return [
        Entry(moved[p - 1], rule.kind, rule.source, p, moved_up=ranking.index(moved[p - 1]) + 1 - p)
        for p in wanted
        if p <= len(moved)
    ]


def _knockout(rule: EntryRule, outcomes: Outcomes) -> list[Entry]:
    stage = _stage(outcomes, rule.source)
    route(stage.pairings, stage.winners)  # every pairing decided, by one of its players
    out: list[Entry] = []
    for number, pairing in enumerate(stage.pairings, 1):
        source = outcomes.stages.get(pairing.source)
        below = below_in_pools(stage.pairings, source.pools if source else {})
        winner = stage.winners[pairing.name]
        slots = slots_after_leaving(pairing, winner, outcomes.left, below=below)
        index = 0 if rule.kind is EntryKind.WINNERS else 1
        player = slots[index]
        if player is not None:
            own = winner if index == 0 else next(p for p in pairing.players if p != winner)
            out.append(Entry(player, rule.kind, rule.source, number, moved_up=int(player != own)))
    return out


def _entries(rule: EntryRule, outcomes: Outcomes) -> list[Entry]:
    """The players ``rule`` names, before duplicates are dropped."""
    if rule.role is not None:  # a pre_seeded rule
        player = outcomes.present(rule.role)
        if player is not None:
            return [Entry(player, rule.kind, role=rule.role)]
        if rule.fallback is None:
            return []
        return [
            Entry(e.player, e.rule, e.source, e.place, e.pool, e.moved_up, e.role, rule.role)
            for e in _entries(rule.fallback, outcomes)
        ]
    if rule.kind in (EntryKind.WINNERS, EntryKind.LOSERS):
        return _knockout(rule, outcomes)
    stage = _stage(outcomes, rule.source)
    if rule.kind is EntryKind.TOP:
        extra = outcomes.absent_pre_seeded() if rule.plus_absent_pre_seeded else 0
        return _from_ranking(rule, stage.ranking, range(1, rule.count + extra + 1), outcomes)
    if rule.kind is EntryKind.PLACES:
        return _from_ranking(rule, stage.ranking, rule.places, outcomes)
    out: list[Entry] = []
    for pool, place in rule.pool_places:
        if pool not in stage.pools:
            raise ValueError(f"the stage {rule.source!r} has no pool {pool!r}")
        for entry in _from_ranking(rule, stage.pools[pool], [place], outcomes):
            out.append(Entry(entry.player, rule.kind, rule.source, place, pool, entry.moved_up))
    return out


def stage_entrants(rules: Sequence[EntryRule], outcomes: Outcomes) -> list[Entry]:
    """A stage's entrants in the order of its ``rules``, each with the rule that moved
    them on. A player a rule names again is left where the first rule put them (rule 3.4,
    III.D: the runner-up joins "after the Swiss qualifiers"), and a place nobody holds
    stays empty. ``ValueError`` for a source stage with no outcome, an unknown pool, or
    a knock-out not fully decided."""
    out: list[Entry] = []
    seen: set[str] = set()
    for rule in rules:
        for entry in _entries(rule, outcomes):
            if entry.player not in seen:
                seen.add(entry.player)
                out.append(entry)
    return out


def split_pre_seeded(entries: Sequence[Entry]) -> tuple[list[str], list[str]]:
    """The qualifiers (in entry order) and the pre-seeded players present (champion
    first), as :func:`bot.rules.pools.place_in_pools` takes them."""
    seeded = [e for e in entries if e.role is not None]
    seeded.sort(key=lambda e: list(PreSeededRole).index(e.role or PreSeededRole.CHAMPION))
    return [e.player for e in entries if e.role is None], [e.player for e in seeded]


def by_place(players: Sequence[str], ranking: Sequence[str]) -> list[str]:
    """``players`` ordered by their place in ``ranking`` (those not in it last, in their
    order): 2020's Candidates by Swiss place, Knock-Out winners among them."""
    index = {player: place for place, player in enumerate(ranking)}
    return sorted(players, key=lambda p: index.get(p, len(ranking)))


CHAMPION, RUNNER_UP = PreSeededRole.CHAMPION, PreSeededRole.RUNNER_UP

#: 2019: "The three players that scored highest in the Swiss, will proceed to the
#: Candidates", the runner-up "automatically proceeds to the Candidates" (rule III.D), the
#: champion to the Final against "the Candidate with most points" (rule III.C); without
#: the champion "the Challenger plays the Candidates runner-up" (rule VIII.C.1), who takes
#: the champion's side as :func:`bot.rules.stages.final_players` has it.
ACWC_2019_ENTRY: Mapping[str, tuple[EntryRule, ...]] = {
    "candidates": (top("swiss", 3), pre_seeded(RUNNER_UP)),
    "final": (pre_seeded(CHAMPION, fallback=places("candidates", 2)), places("candidates", 1)),
}

#: 2020: "Players who ranked 1-4 in the Qualification round get to skip the Knock-Out",
#: "the players ranked 5-12" play it, "Those who win their knock-out match continue on to
#: the Candidates round"; the pre-seeded start in the pools; "The winners of each pool
#: will go on to face each other in the Grand Final. The second place players in each
#: pool will go on to face each other in the Third Place Playoff."
ACWC_2020_ENTRY: Mapping[str, tuple[EntryRule, ...]] = {
    "knockout": (places("swiss", *range(5, 13)),),
    "candidates": (
        places("swiss", 1, 2, 3, 4),
        winners("knockout"),
        pre_seeded(CHAMPION),
        pre_seeded(RUNNER_UP),
    ),
    "grand_final": (pool_places("candidates", (UPPER, 1), (LOWER, 1)),),
    "third_place": (pool_places("candidates", (UPPER, 2), (LOWER, 2)),),
}

#: 2021-2024: "The 10 players that place highest in the Swiss (or more if [a pre-seeded
#: player] doesn't play) will proceed"; "The winner of each pool ... against the second
#: place player in the opposite pool"; Semifinal winners to the Grand Final, losers to the
#: Third Place Playoff.
ACWC_2021_ENTRY: Mapping[str, tuple[EntryRule, ...]] = {
    "candidates": (
        top("swiss", 10, plus_absent_pre_seeded=True),
        pre_seeded(CHAMPION),
        pre_seeded(RUNNER_UP),
    ),
    "semifinals": (pool_places("candidates", (UPPER, 1), (LOWER, 2), (LOWER, 1), (UPPER, 2)),),
    "grand_final": (winners("semifinals"),),
    "third_place": (losers("semifinals"),),
}
