"""Which stages a bracket picture or page draws together, and where each seat of a match
stage comes from: read from the format's entry rules alone, so the Discord bracket
(`bot.features.tables`) and the web's (`bot.features.web`) draw the same bracket."""

from __future__ import annotations

from dataclasses import dataclass

from bot.format.flow import sources
from bot.format.model import (
    FinalMatchStage,
    Format,
    KnockoutStage,
    Losers,
    Places,
    PoolPlaces,
    PreSeeded,
    Top,
    Winners,
)

__all__ = [
    "Feeder",
    "MatchSeats",
    "Seat",
    "bracket_stages",
    "columns_of",
    "seats",
    "stage_matches",
]

MatchSeats = tuple[str, int, int]  # a match's name, and its sides' seats (from 1)
Feeder = tuple[str, int, bool]  # a stage key, the match's index in it, True: its winner


@dataclass(frozen=True)
class Seat:
    """Where a seat of a match stage comes from: a `place` of a stage or pool (`where` its
    name), the winner or loser (`won`) of the match `match` (`feeder` names it), or the
    pre-seeded `role`."""

    where: str = ""
    place: int | None = None
    match: str = ""
    won: bool = False
    feeder: Feeder | None = None
    role: str | None = None


def stage_matches(fmt: Format, key: str) -> tuple[MatchSeats, ...]:
    """The matches stage `key` plays: a knock-out's pairings in board order, a final
    match's one match (named by the stage, the first entrant side a); none for a stage of
    groups or rounds (a Swiss, a round robin) or a key outside the format."""
    if key not in fmt.keys():
        return ()
    stage = fmt.stage(key)
    if isinstance(stage, KnockoutStage):
        return tuple((p.name, p.a, p.b) for p in stage.pairings)
    if isinstance(stage, FinalMatchStage):
        return ((stage.name, 1, 2),)
    return ()


def bracket_stages(fmt: Format, key: str) -> tuple[str, ...]:
    """The match stages drawn in one bracket with stage `key`, in format order: those linked
    to it by drawing one on the other, or on the same stages. Empty when `key` plays no
    matches, or the bracket would be one match."""
    playing = [s.key for s in fmt.stages if stage_matches(fmt, s.key)]
    if key not in playing:
        return ()
    drawn = {k: sources(fmt.stage(k)) for k in playing}
    group, todo = {key}, [key]
    while todo:
        here = todo.pop()
        for other in playing:
            linked = here in drawn[other] or other in drawn[here] or drawn[here] == drawn[other]
            if other not in group and linked:
                group.add(other)
                todo.append(other)
    keys = tuple(k for k in playing if k in group)
    return keys if sum(len(stage_matches(fmt, k)) for k in keys) > 1 else ()


def columns_of(fmt: Format, keys: tuple[str, ...]) -> dict[str, int]:
    """Each bracket stage's column, from 0: one right of the latest stage it draws on."""
    depth: dict[str, int] = {}
    for key in keys:
        before = [depth[s] for s in sources(fmt.stage(key)) if s in depth]
        depth[key] = 1 + max(before) if before else 0
    return depth


def seats(fmt: Format, key: str) -> list[Seat]:
    """Stage `key`'s seats in entry order, each with where it comes from."""
    found: list[Seat] = []
    for rule in fmt.stage(key).entry:
        if isinstance(rule, Top | Places):
            name = fmt.stage(rule.stage).name
            numbers = range(1, rule.count + 1) if isinstance(rule, Top) else rule.places
            found.extend(Seat(where=name, place=place) for place in numbers)
        elif isinstance(rule, PoolPlaces):
            pools = {p.key: p.name for p in getattr(fmt.stage(rule.stage), "pools", ())}
            found.extend(
                Seat(where=pools.get(pool, pool), place=place) for pool, place in rule.places
            )
        elif isinstance(rule, Winners | Losers):
            won = isinstance(rule, Winners)
            found.extend(
                Seat(match=name, won=won, feeder=(rule.stage, index, won))
                for index, (name, _, _) in enumerate(stage_matches(fmt, rule.stage))
            )
        elif isinstance(rule, PreSeeded):
            found.append(Seat(role=rule.role))
    return found
