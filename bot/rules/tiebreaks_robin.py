"""The round robin tiebreak catalogue: the criteria the editions' texts name for a
Candidates pool, as keys a stage's tiebreak chain lists in order.

2019 (rule III.F.3): match points, then "the sub-scores per match get added up". 2020, after
the match points: "Mutual match score. Mutual game score. Overall game score. Result in
Qualification round." 2021-2024: the same with "Result in <previous year> ACWC Finals if
applicable" before the Qualification round's result.

The ranking procedure: all players start as one group. For the chain's criteria in order,
each group still tied gets the criterion's value WITHIN that group (a mutual criterion
counts only the matches among the group's members), is split by value (best first), and
each part goes on with the next criterion. A group the chain cannot break shares a rank
(the TD breaks it). Listing a mutual key twice applies it again to the parts it made, the
way 2019's table goes on with "the matches among the players still tied"
(`bot.rules.candidates`).

A result is `bot.rules.candidates.CandidateResult`, ``(a, b, games_a, games_b)``: one
match of a pair, all its games played (the texts: "All 10 games must be played, since game
scores may be used for tiebreakers"). Pure functions over plain values.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.rules.candidates import CandidateResult, _check_players, _check_results
from bot.rules.match import match_points
from bot.rules.withdrawals import candidates_without

__all__ = [
    "ROBIN_TIEBREAKS",
    "PoolRow",
    "RobinTiebreak",
    "check_robin_chain",
    "pool_ranking",
]


class RobinTiebreak(StrEnum):
    """A key of a round robin stage's tiebreak chain. Higher is better for every key (a
    place's key orders the lower place first)."""

    #: Match points in the pool: 1 a match won, 0.5 tied, 0 lost (rule III.F.3).
    MATCH_POINTS = "match_points"
    #: Game points over all the player's pool matches (rule III.F.3, 2019's second).
    GAME_POINTS = "game_points"
    #: Match points only in the matches among the players still tied (2020-2024).
    MUTUAL_MATCH = "mutual_match"
    #: Game points only in the matches among the players still tied (2020-2024).
    MUTUAL_GAMES = "mutual_games"
    #: The 2020-2024 texts' "overall game score": the same measure as ``game_points``,
    #: under the texts' name.
    OVERALL_GAMES = "overall_games"
    #: The place in the previous ACWC Finals (2021-2024: "if applicable"), see
    #: :func:`pool_ranking`.
    PREVIOUS_FINAL = "previous_final"
    #: The place in an earlier stage (the Qualification round), lower is better.
    EARLIER_STAGE_PLACE = "earlier_stage_place"


ROBIN_TIEBREAKS: tuple[RobinTiebreak, ...] = tuple(RobinTiebreak)


@dataclass(frozen=True)
class PoolRow:
    """One row of a pool's table: match points, game points and the shared rank ("1, 2, 2,
    4": players the chain cannot separate share it and keep the order of ``players``)."""

    player: str
    match_points: float
    game_points: float
    rank: int


def check_robin_chain(chain: Sequence[str]) -> tuple[RobinTiebreak, ...]:
    """The chain as keys, each a catalogue key. A key may be listed again: a mutual key is
    then applied again to the parts it made; any other key splits nothing the second time."""
    keys = []
    for name in chain:
        if name not in ROBIN_TIEBREAKS:
            raise ValueError(
                f"unknown round robin tiebreak {name!r}; known: {list(ROBIN_TIEBREAKS)}"
            )
        keys.append(RobinTiebreak(name))
    return tuple(keys)


def _places(
    previous_final: Sequence[str], earlier_places: Mapping[str, int] | None
) -> tuple[dict[str, int], dict[str, int]]:
    """The two place inputs, checked: the Finals' order names each player once, an earlier
    stage's place is a whole number from 1."""
    final = list(previous_final)
    if any(not isinstance(p, str) for p in final) or len(set(final)) != len(final):
        raise ValueError(f"previous_final must name distinct players, got {final!r}")
    earlier = dict(earlier_places or {})
    for player, place in earlier.items():
        if isinstance(place, bool) or not isinstance(place, int) or place < 1:
            raise ValueError(
                f"{player}'s earlier place must be a whole number from 1, got {place!r}"
            )
    return {p: place for place, p in enumerate(final, start=1)}, earlier


def pool_ranking(
    players: Sequence[str],
    matches: Sequence[CandidateResult],
    chain: Sequence[str],
    *,
    previous_final: Sequence[str] = (),
    earlier_places: Mapping[str, int] | None = None,
    withdrawn: Collection[str] = (),
) -> list[PoolRow]:
    """A pool's table in rank order, by the chain (the module's procedure).

    ``previous_final`` lists the previous ACWC Finals' players by their place, the champion
    first, the runner-up second (the Third Place Playoff's, third and fourth, may follow).
    It orders a tied group only when every member of the group has a place there ("if
    applicable"); otherwise the group goes on tied to the next criterion: a player who did
    not play those Finals is neither above nor below one who did.

    ``earlier_places`` maps a player to their place in the earlier stage (the Swiss), lower
    is better. A player without one (pre-seeded, so no Swiss) leaves their whole tied group
    for the next criterion, as for ``previous_final``: the texts rank no pre-seeded player
    against a Swiss place.

    Withdrawn and disqualified players (``withdrawn``): every match of theirs is
    disregarded (rule VIII.B: "all of their games will be disregarded") and they take no
    place, so they are not in the table. Matches not played yet count nothing.

    Raises ``ValueError`` for an unknown key, unknown or duplicate players, a pair with
    two results, invalid game points, or invalid places.
    """
    keys = check_robin_chain(chain)
    names = _check_players(players)
    checked = _check_results(names, matches)
    unknown = sorted(set(withdrawn) - set(names))
    if unknown:
        raise ValueError(f"withdrawn players not in the pool: {unknown}")
    final_place, earlier = _places(previous_final, earlier_places)
    results: list[CandidateResult] = list(checked)
    for player in withdrawn:
        results = candidates_without(results, player)
    active = [p for p in names if p not in set(withdrawn)]

    def scores(group: Collection[str]) -> tuple[dict[str, float], dict[str, float]]:
        """Match and game points from the matches among ``group`` only."""
        mps = dict.fromkeys(group, 0.0)
        gps = dict.fromkeys(group, 0.0)
        for a, b, ga, gb in results:
            if a in mps and b in mps:
                pa, pb = match_points(ga, gb)
                mps[a] += pa
                mps[b] += pb
                gps[a] += ga
                gps[b] += gb
        return mps, gps

    total_mp, total_gp = scores(active)

    def place_value(places: Mapping[str, int], group: Sequence[str]) -> dict[str, float]:
        if all(p in places for p in group):
            return {p: -float(places[p]) for p in group}
        return dict.fromkeys(group, 0.0)

    criteria: dict[RobinTiebreak, Callable[[Sequence[str]], Mapping[str, float]]] = {
        RobinTiebreak.MATCH_POINTS: lambda group: total_mp,
        RobinTiebreak.GAME_POINTS: lambda group: total_gp,
        RobinTiebreak.OVERALL_GAMES: lambda group: total_gp,
        RobinTiebreak.MUTUAL_MATCH: lambda group: scores(group)[0],
        RobinTiebreak.MUTUAL_GAMES: lambda group: scores(group)[1],
        RobinTiebreak.PREVIOUS_FINAL: lambda group: place_value(final_place, group),
        RobinTiebreak.EARLIER_STAGE_PLACE: lambda group: place_value(earlier, group),
    }

    def split(group: list[str], step: int) -> list[list[str]]:
        if len(group) < 2 or step == len(keys):
            return [group]
        value = criteria[keys[step]](group)
        parts: list[list[str]] = []
        for level in sorted({value[p] for p in group}, reverse=True):
            part = [p for p in group if value[p] == level]
            parts.extend(split(part, step + 1))
        return parts

    rows: list[PoolRow] = []
    for tied in split(active, 0):
        rank = len(rows) + 1
        rows.extend(PoolRow(p, total_mp[p], total_gp[p], rank) for p in tied)
    return rows
