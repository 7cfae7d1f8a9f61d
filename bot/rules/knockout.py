"""Knock-out matches: who meets whom, and where winners and losers go next.

2020's Knock-Out pairs Swiss places ("5 vs 12, 6 vs 11, 7 vs 10, 8 vs 9", 2020 rules,
Knock-Out); 2021-2024's Semifinals pair pool places ("The winner of each pool of the
Candidates round will play a 10-game Semifinal Match against the second place player in
the opposite pool"); "The winners of each Semifinal match will go on to face each other in
the Grand Final, and the losers will go on to face each other in the Third Place Playoff"
(:func:`route`). A player who leaves is replaced by the one below them
(:func:`slots_after_leaving`).

Pure functions over plain values: players are strings, places 1-based.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from bot.rules.pools import LOWER, UPPER

__all__ = [
    "ACWC_2020_KNOCKOUT",
    "ACWC_2021_SEMIFINALS",
    "Pairing",
    "PoolPlace",
    "Routing",
    "Seat",
    "below_in_pools",
    "pairings_by_place",
    "pairings_by_pool_place",
    "route",
    "slots_after_leaving",
]

#: A place in a pool: ("upper", 1) is the upper pool's winner.
PoolPlace = tuple[str, int]
#: Where a player of a pairing came from: a place of a ranking, or a place of a pool.
Seat = int | PoolPlace

#: 2020 rules, Knock-Out: "5 vs 12, 6 vs 11, 7 vs 10, 8 vs 9" (Swiss places).
ACWC_2020_KNOCKOUT: tuple[tuple[int, int], ...] = ((5, 12), (6, 11), (7, 10), (8, 9))

#: 2021-2024 rules, Candidates: "the second place player in the opposite pool".
ACWC_2021_SEMIFINALS: tuple[tuple[PoolPlace, PoolPlace], ...] = (
    ((UPPER, 1), (LOWER, 2)),
    ((LOWER, 1), (UPPER, 2)),
)


@dataclass(frozen=True)
class Pairing:
    """One knock-out match: ``first`` is the higher placed, ``first_seat`` and
    ``second_seat`` where each came from in the ``source`` stage."""

    name: str
    first: str
    second: str
    first_seat: Seat
    second_seat: Seat
    source: str = ""

    @property
    def players(self) -> tuple[str, str]:
        return (self.first, self.second)


def _place(seat: Seat) -> int:
    return seat if isinstance(seat, int) else seat[1]


def _pairings(
    seats: Sequence[tuple[Seat, Seat]],
    player_at: Mapping[Seat, str],
    name: str,
    source: str,
) -> list[Pairing]:
    """The pairings of ``seats``, each named from ``name`` ("Semifinal {number}"), the
    higher placed first (a lower place number; equal places keep the table's order)."""
    used = [seat for pair in seats for seat in pair]
    twice = [seat for seat in dict.fromkeys(used) if used.count(seat) > 1]
    if twice:
        raise ValueError(f"the pairing table seats {twice} twice")
    out: list[Pairing] = []
    for number, (a, b) in enumerate(seats, 1):
        if _place(b) < _place(a):
            a, b = b, a
        title = name.format(number=number)
        out.append(Pairing(title, player_at[a], player_at[b], a, b, source))
    return out


def pairings_by_place(
    ranking: Sequence[str],
    table: Sequence[tuple[int, int]],
    *,
    name: str = "Knock-Out {number}",
    source: str = "",
) -> list[Pairing]:
    """Pairings from places of an earlier ranking (best first): 2020's Knock-Out is
    :data:`ACWC_2020_KNOCKOUT` over the Swiss ranking. ``ValueError`` for a place below 1,
    past the ranking, or seated twice."""
    if len(set(ranking)) != len(ranking):
        raise ValueError("a ranking lists each player once")
    player_at: dict[Seat, str] = {}
    for pair in table:
        for place in pair:
            if not 1 <= place <= len(ranking):
                raise ValueError(f"place {place} is not in a ranking of {len(ranking)}")
            player_at[place] = ranking[place - 1]
    return _pairings(list(table), player_at, name, source)


def pairings_by_pool_place(
    pool_rankings: Mapping[str, Sequence[str]],
    table: Sequence[tuple[PoolPlace, PoolPlace]],
    *,
    name: str = "Semifinal {number}",
    source: str = "",
) -> list[Pairing]:
    """Pairings from places of pools: 2021-2024's Semifinals are
    :data:`ACWC_2021_SEMIFINALS` over the Candidates pools' rankings (best first).
    ``ValueError`` for an unknown pool, a place it does not have, a seat used twice."""
    player_at: dict[Seat, str] = {}
    for pair in table:
        for pool, place in pair:
            if pool not in pool_rankings:
                raise ValueError(f"there is no pool {pool!r}")
            ranking = pool_rankings[pool]
            if not 1 <= place <= len(ranking):
                raise ValueError(f"pool {pool!r} has no place {place}")
            player_at[(pool, place)] = ranking[place - 1]
    return _pairings(list(table), player_at, name, source)


@dataclass(frozen=True)
class Routing:
    """A decided knock-out's winners and losers, in pairing order."""

    winners: tuple[str, ...]
    losers: tuple[str, ...]


def _loser(pairing: Pairing, winner: str) -> str:
    if winner not in pairing.players:
        raise ValueError(f"{winner!r} does not play {pairing.name}")
    return pairing.second if winner == pairing.first else pairing.first


def route(pairings: Sequence[Pairing], winners: Mapping[str, str]) -> Routing:
    """Winners and losers in pairing order, so that the next stage takes "the winners of
    each Semifinal match" (Grand Final) or "the losers" (Third Place Playoff).
    ``winners`` maps each pairing's name to its winner. ``ValueError`` for a pairing
    without a winner, a winner who did not play it, a decision for no pairing."""
    names = [p.name for p in pairings]
    stray = [name for name in winners if name not in names]
    if stray:
        raise ValueError(f"decisions for pairings that do not exist: {stray}")
    undecided = [name for name in names if name not in winners]
    if undecided:
        raise ValueError(f"not decided yet: {undecided}")
    won = tuple(winners[p.name] for p in pairings)
    lost = tuple(_loser(p, w) for p, w in zip(pairings, won, strict=True))
    return Routing(won, lost)


def below_in_pools(
    pairings: Sequence[Pairing], pool_rankings: Mapping[str, Sequence[str]]
) -> dict[str, list[str]]:
    """For each player seated from a pool, the players below them in it who play none of
    the ``pairings``: who moves up when they leave (2024 rules, withdrawals: "the other
    players below them in the Semifinals and Candidates move up one position"). A player
    seated from a plain ranking has nobody listed (the texts move up only pool players)."""
    seated = {player for p in pairings for player in p.players}
    out: dict[str, list[str]] = {}
    for p in pairings:
        for player, seat in ((p.first, p.first_seat), (p.second, p.second_seat)):
            if isinstance(seat, int):
                out[player] = []
                continue
            ranking = list(pool_rankings.get(seat[0], ()))
            after = ranking[ranking.index(player) + 1 :] if player in ranking else []
            out[player] = [q for q in after if q not in seated]
    return out


def slots_after_leaving(
    pairing: Pairing,
    winner: str,
    left: Collection[str],
    *,
    below: Mapping[str, Sequence[str]] | None = None,
) -> tuple[str | None, str | None]:
    """Who takes a decided match's winner and loser slots in the next stages once some
    players left (2024 rules, withdrawals: "the other players below them in the
    Semifinals and Candidates move up one position in their placement in the Final
    Matches"): the winner gone, the loser moves up into the winner's slot and the first
    still in below the winner (``below``, :func:`below_in_pools`) takes the loser's; the
    loser gone, the first still in below the loser takes it. None: nobody is left to."""
    loser = _loser(pairing, winner)
    gone = set(left)
    lines = below or {}

    def reserve(player: str, taken: Collection[str]) -> str | None:
        return next((q for q in lines.get(player, ()) if q not in gone and q not in taken), None)

    if winner not in gone:
        return winner, loser if loser not in gone else reserve(loser, {winner})
    if loser not in gone:
        return loser, reserve(winner, {loser})
    first = reserve(winner, ())
    second = reserve(loser, {first} if first else ())
    return first, second
