"""What follows what, read from the format: which stages may start once others finish, and
how a stage starts (its entrants and the rule that moved each on, its pools, its pairings).

Why here: the order of stages is the format's, not code's (2019's `next_stage` if-chain
knows three names). The engine asks `ready` which stages may start and `start` how; the
decisions are the pure rules' (`bot.rules.advancement`, `pools`, `knockout`), fed the
format's settings by this module.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from bot.format.entry import entry_rules
from bot.format.model import (
    FinalMatchStage,
    Format,
    KnockoutStage,
    Places,
    PreSeeded,
    Registered,
    RoundRobinStage,
    Stage,
    Top,
)
from bot.rules import advancement as adv
from bot.rules.knockout import Pairing, PoolPlace
from bot.rules.pools import PlacementMethod, place_in_pools

__all__ = ["StageStart", "destinations", "pairings", "ready", "sources", "start"]


@dataclass(frozen=True)
class StageStart:
    """A stage as it starts: ``entries`` in entry order (each with the rule that moved the
    player on, for the export); ``pools`` the players of each pool (round robin);
    ``pairings`` the matches (knock-out, final match: the first entrant first)."""

    key: str
    kind: str
    entries: tuple[adv.Entry, ...]
    pools: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    pairings: tuple[Pairing, ...] = ()


def sources(stage: Stage) -> frozenset[str]:
    """The earlier stages this one takes players from: it waits for all of them."""
    out: set[str] = set()
    for rule in stage.entry:
        if isinstance(rule, PreSeeded):
            if rule.if_absent is not None:
                out.add(rule.if_absent.stage)
        elif not isinstance(rule, Registered):
            out.add(rule.stage)
    return frozenset(out)


def ready(fmt: Format, finished: Collection[str], started: Collection[str]) -> list[str]:
    """The stages not started yet whose source stages have all finished, in format order
    (the Grand Final and the Third Place Playoff are ready together)."""
    return [
        s.key
        for s in fmt.stages
        if s.key not in started
        and not any(isinstance(r, Registered) for r in s.entry)
        and sources(s) <= set(finished)
    ]


def _seat(entry: adv.Entry) -> int | PoolPlace:
    if entry.pool is not None and entry.place is not None:
        return (entry.pool, entry.place)
    return entry.place if entry.place is not None else 0


def _pairing(name: str, a: adv.Entry, b: adv.Entry) -> Pairing:
    return Pairing(name, a.player, b.player, _seat(a), _seat(b), a.source or b.source)


def pairings(fmt: Format, key: str, entries: Sequence[adv.Entry]) -> tuple[Pairing, ...]:
    """The matches of knock-out or final match stage `key` between `entries` (in entry
    order): a knock-out's pairings seat by seat, a final match the two entrants, the first
    on side a. Also what a stage under way is re-paired by when a player left
    (`bot.features.rounds.leaving`). ``ValueError`` when too few players are left; ``()``
    for a stage of another kind."""
    stage = fmt.stage(key)
    if isinstance(stage, KnockoutStage):
        for pairing in stage.pairings:
            if max(pairing.a, pairing.b) > len(entries):
                raise ValueError(f"{pairing.name} needs seat {max(pairing.a, pairing.b)}")
        return tuple(_pairing(p.name, entries[p.a - 1], entries[p.b - 1]) for p in stage.pairings)
    if isinstance(stage, FinalMatchStage):
        if len(entries) != 2:
            raise ValueError(f"{stage.name} needs two players, has {len(entries)}")
        return (_pairing(stage.name, *entries),)
    return ()


def start(fmt: Format, key: str, outcomes: adv.Outcomes) -> StageStart:
    """How stage `key` starts after the stages it draws from (`outcomes`, by stage key).
    ``ValueError`` when too few players are left for its pairings."""
    stage = fmt.stage(key)
    entries = tuple(adv.stage_entrants(entry_rules(stage), outcomes))
    if isinstance(stage, RoundRobinStage):
        qualifiers, seeded = adv.split_pre_seeded(entries)
        pools = place_in_pools(
            qualifiers,
            [pool.key for pool in stage.pools],
            PlacementMethod(stage.placement),
            table=stage.placement_table or None,
            pre_seeded=seeded,
            pre_seeded_slots=stage.pre_seeded_pools,
        )
        placed = {pool: tuple(players) for pool, players in pools.items()}
        return StageStart(key, stage.kind, entries, pools=placed)
    return StageStart(key, stage.kind, entries, pairings=pairings(fmt, key, entries))


def destinations(fmt: Format, source: str, places: int) -> list[str]:
    """The name of the stage each of the first `places` places of stage `source` goes to
    (2020: Swiss 1-4 the Candidates, 5-12 the Knock-Out), for the post that says who
    qualified; a place no rule names goes where the first `top` rule sends its players."""
    named: dict[int, str] = {}
    default = ""
    for stage in fmt.stages:
        for rule in stage.entry:
            if isinstance(rule, Places) and rule.stage == source:
                for place in rule.places:
                    named.setdefault(place, stage.name)
            elif isinstance(rule, Top) and rule.stage == source:
                default = default or stage.name
                for place in range(1, rule.count + 1):
                    named.setdefault(place, stage.name)
    return [named.get(place, default) for place in range(1, places + 1)]
