"""What the tables read off stored rows, apart from the service: the Swiss table built once
per content (`swiss_table_once`: the tables are immutable values, and /standings asks for
the same one again and again between two results) and who won a knock-out's match."""

from __future__ import annotations

from functools import lru_cache

from bot.features.tables.builders import swiss_table
from bot.features.tables.types import SwissPairing, Table
from bot.rules.tiebreaks import SWISS_CHAIN_2019
from db.models import Match, MatchState

__all__ = ["Board", "Seed", "match_winner", "swiss_table_once"]

DONE_STATES = (MatchState.FINISHED, MatchState.FORFEITED, MatchState.BYE)


Seed = tuple[int, str, str, bool]  # a player's id, key (Lichess id), name, and whether left
# a board's round number, player ids, match points (None until decided), and whether forfeited
Board = tuple[int, int, int | None, float | None, float | None, bool]


@lru_cache(maxsize=8)
def swiss_table_once(
    seeding: tuple[Seed, ...],
    boards: tuple[Board, ...],
    rounds: int,
    qualifiers: int,
    title: str,
    short_median_buchholz: str = "sum",
    chain: tuple[str, ...] = SWISS_CHAIN_2019,
    bye_points: float = 1.0,
) -> Table:
    """`swiss_table` of the seeding and the boards by the stage's tiebreak ``chain``, once
    per content: the tables are immutable values, and /standings asks for the same one
    again and again between two results."""
    keys = {pid: key for pid, key, _, _ in seeding}
    pairings = []
    for round_number, a_id, b_id, points_a, points_b, forfeit in boards:
        b = keys[b_id] if b_id else None
        pairings.append(
            SwissPairing(
                round_number, keys[a_id], b, points_a, points_b if b else None, forfeit=forfeit
            )
        )
    return swiss_table(
        [key for _, key, _, _ in seeding],
        pairings,
        names={key: name for _, key, name, _ in seeding},
        withdrawn={key for _, key, _, left in seeding if left},
        rounds=rounds,
        qualifiers=qualifiers,
        title=title,
        short_median_buchholz=short_median_buchholz,
        chain=chain,
        bye_points=bye_points,
    )


def match_winner(match: Match) -> int | None:
    """Who won a decided match: the forfeit's winner, else the one with more points."""
    if match.forfeit_winner_id is not None:
        return match.forfeit_winner_id
    if match.state not in DONE_STATES or match.points_a is None or match.points_b is None:
        return None
    if match.points_a == match.points_b:
        return None
    return match.player_a_id if match.points_a > match.points_b else match.player_b_id
