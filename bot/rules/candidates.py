"""Candidates stage: Berger round robin and its standings (rule III.F).

The 2019 Candidates are four players in a round robin of 10-game matches
(rule III.F.1).  The schedule follows the FIDE Berger tables; the standings
rank by match points, then the sum of game points (rule III.F.3), then the
matches among the players still tied.  Whatever is still tied after that shares
a rank: the rules leave it to the TD.

Pure functions over plain values: players are strings, scores floats.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bot.rules.match import check_game_points, match_points
from bot.rules.withdrawals import candidates_without

__all__ = [
    "CandidateResult",
    "CandidateStanding",
    "RobinMatch",
    "robin_results",
    "schedule",
    "standings",
    "winner_and_runner_up",
]

#: ``(a, b, games_a, games_b)``: a finished match and its game points.
CandidateResult = tuple[str, str, float, float]


def _check_players(players: Sequence[str]) -> list[str]:
    """Players must be distinct strings: a duplicate would meet itself."""
    names = list(players)
    for p in names:
        if not isinstance(p, str):
            raise ValueError(f"players must be strings, got {p!r}")
    if len(set(names)) != len(names):
        raise ValueError("players must be distinct")
    return names


def schedule(players: Sequence[str]) -> list[list[tuple[str, str]]]:
    """Berger round robin: one list of ``(first, second)`` pairs per round.

    ``players`` are numbered 1..n in the given order.  For even n there are
    n-1 rounds of n/2 pairs, exactly the FIDE Berger tables; for 4 players:
    ``1-4, 2-3 / 4-3, 1-2 / 2-4, 3-1``.  The first of a pair is the listed
    (White) side of the table; the pairs of a round are in board order.

    Odd n uses the table for n+1 with the dummy number n+1 as the bye (FIDE
    convention): the player drawn against the dummy is simply absent from that
    round, so every round has (n-1)/2 pairs and every player sits out once.
    Fewer than two players give no rounds.
    """
    names = _check_players(players)
    if len(names) < 2:
        return []
    n = len(names) + (len(names) % 2)  # with the bye dummy for odd counts
    m = n - 1
    rounds: list[list[tuple[str, str]]] = []
    for r in range(1, n):
        # The fixed player n meets p with 2p = r + 1 (mod n - 1); the others pair
        # off symmetrically around p.  Odd rounds p has White against n, even
        # rounds n has White; on the other boards the number above p has White.
        p = next(i for i in range(1, n) if (2 * i - (r + 1)) % m == 0)
        board_one = (p, n) if r % 2 == 1 else (n, p)
        numbered = [board_one]
        for b in range(1, n // 2):
            white = (p - 1 + b) % m + 1
            black = (p - 1 - b) % m + 1
            numbered.append((white, black))
        rounds.append(
            [
                (names[x - 1], names[y - 1])
                for x, y in numbered
                if x <= len(names) and y <= len(names)
            ]
        )
    return rounds


@dataclass(frozen=True)
class CandidateStanding:
    """One row of the Candidates table.

    ``points`` are match points, ``game_points`` the sum of game points
    (rule III.F.3).  ``rank`` is 1-based and shared (1, 1, 3) when every
    tiebreak is still equal, so the TD decides.
    """

    player: str
    points: float
    game_points: float
    rank: int
    matches: int = 0


def _check_results(
    names: Sequence[str], results: Sequence[CandidateResult]
) -> list[tuple[str, str, float, float]]:
    """Results must be between listed players, each pair at most once (a round robin)."""
    known = set(names)
    seen: set[frozenset[str]] = set()
    checked: list[tuple[str, str, float, float]] = []
    for result in results:
        if len(result) != 4:
            raise ValueError(f"a result is (a, b, games_a, games_b), got {result!r}")
        a, b, ga, gb = result
        if a not in known or b not in known:
            raise ValueError(f"result {result!r} names a player who is not a Candidate")
        if a == b:
            raise ValueError(f"result {result!r} pairs a player with themself")
        pair = frozenset((a, b))
        if pair in seen:
            raise ValueError(f"{a} and {b} have more than one result")
        seen.add(pair)
        checked.append((a, b, check_game_points(ga, "games_a"), check_game_points(gb, "games_b")))
    return checked


def _mini_points(
    group: Sequence[str], results: Sequence[tuple[str, str, float, float]]
) -> dict[str, float]:
    """Match points from the matches played among ``group`` only."""
    members = set(group)
    pts = dict.fromkeys(group, 0.0)
    for a, b, ga, gb in results:
        if a in members and b in members:
            pa, pb = match_points(ga, gb)
            pts[a] += pa
            pts[b] += pb
    return pts


def _split_tied(
    group: list[str], results: Sequence[tuple[str, str, float, float]]
) -> list[list[str]]:
    """Order a tied group by the matches among them, recursively.

    For two players this is their direct match.  For three or more it is the
    mini-table of their mutual matches; when that splits the group, each
    smaller subgroup is split again by its own mutual matches.  A group the
    mini-table cannot split (e.g. a cycle A>B>C>A, or a drawn or unplayed
    direct match) stays together and shares a rank.
    """
    if len(group) < 2:
        return [group]
    mini = _mini_points(group, results)
    levels = sorted({mini[p] for p in group}, reverse=True)
    if len(levels) == 1:
        return [group]
    out: list[list[str]] = []
    for level in levels:
        sub = [p for p in group if mini[p] == level]
        out.extend(_split_tied(sub, results))
    return out


def standings(
    players: Sequence[str], results: Sequence[CandidateResult]
) -> list[CandidateStanding]:
    """The Candidates table in rank order.

    Ordered by match points (:func:`~bot.rules.match.match_points` of each
    result), then the sum of game points (rule III.F.3), then the matches
    among the players still tied (see :func:`_split_tied`).  Players still
    tied after all that share a rank and keep their order in ``players``.
    Works on partial results too (matches not yet played simply count nothing).

    Raises ``ValueError`` for unknown or duplicate players, a player paired with
    themself, a pair with two results, or invalid game points.
    """
    names = _check_players(players)
    checked = _check_results(names, results)
    points = dict.fromkeys(names, 0.0)
    game_points = dict.fromkeys(names, 0.0)
    matches = dict.fromkeys(names, 0)
    for a, b, ga, gb in checked:
        pa, pb = match_points(ga, gb)
        points[a] += pa
        points[b] += pb
        game_points[a] += ga
        game_points[b] += gb
        matches[a] += 1
        matches[b] += 1

    # Groups equal on (points, game points), best first, in input order inside.
    keys = sorted({(points[p], game_points[p]) for p in names}, reverse=True)
    rows: list[CandidateStanding] = []
    for key in keys:
        group = [p for p in names if (points[p], game_points[p]) == key]
        for tied in _split_tied(group, checked):
            rank = len(rows) + 1
            for p in tied:
                rows.append(CandidateStanding(p, points[p], game_points[p], rank, matches[p]))
    return rows


def winner_and_runner_up(
    table: Sequence[CandidateStanding],
) -> tuple[str | None, str | None]:
    """The Challenger and the runner-up (rules III.F.3, VIII.C), None where still tied.

    The winner is the sole player ranked 1; the runner-up the sole player
    ranked 2 (who exists only when the winner is unique).  A shared place is
    the TD's call (a tiebreak match or a decision), so it is reported as None.
    """
    first = [s.player for s in table if s.rank == 1]
    if len(first) != 1:
        return (None, None)
    second = [s.player for s in table if s.rank == 2]
    return (first[0], second[0] if len(second) == 1 else None)


@dataclass(frozen=True)
class RobinMatch:
    """A round robin match as stored: its players, whether it is decided (finished or
    forfeited), its game points (None when it has none: disregarded) and a forfeit's
    winner."""

    a: str
    b: str
    decided: bool
    score_a: float | None
    score_b: float | None
    forfeit_winner: str | None = None


def robin_results(
    matches: Sequence[RobinMatch],
    field: Collection[str],
    *,
    games: int,
    left_candidates: Collection[str] = (),
) -> list[CandidateResult]:
    """The results a round robin stage is ranked on (rules 3.6.3, 8.2 / III.F.3, VIII.B):
    the decided matches between players of its `field`; a forfeit counts as every one of
    the `games` won (a design choice, docs/DESIGN-CHOICES.md); a match forfeited without
    a winner is disregarded, and so is every match of a player who left the Candidates
    (`left_candidates`, :func:`bot.rules.withdrawals.candidates_without`)."""
    players = set(field)
    out: list[CandidateResult] = []
    for m in matches:
        if not m.decided or not {m.a, m.b} <= players:
            continue
        if m.forfeit_winner is not None:
            won, all_games = m.forfeit_winner == m.a, float(games)
            out.append((m.a, m.b, all_games if won else 0.0, 0.0 if won else all_games))
        elif m.score_a is not None and m.score_b is not None:
            out.append((m.a, m.b, m.score_a, m.score_b))
    for player in left_candidates:
        out = candidates_without(out, player)
    return out
