"""The tiebreak catalogue: the keys a stage's tiebreak chain lists, the editions' chains,
and the ties that straddle a cut.

A format's Swiss or round robin stage names its tiebreaks as a chain of keys, applied in
order after the primary score; the keys and the ranking over them are in
`bot.rules.tiebreaks_swiss` (:func:`swiss_ranking`) and `bot.rules.tiebreaks_robin`
(:func:`pool_ranking`), re-exported here. Pure functions over plain values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bot.rules.tiebreaks_robin import (
    ROBIN_TIEBREAKS,
    PoolRow,
    RobinTiebreak,
    check_robin_chain,
    pool_ranking,
)
from bot.rules.tiebreaks_swiss import (
    SWISS_TIEBREAKS,
    SwissRow,
    SwissTiebreak,
    check_swiss_chain,
    swiss_ranking,
)

__all__ = [
    "ROBIN_CHAIN_2019",
    "ROBIN_CHAIN_2020",
    "ROBIN_CHAIN_2021",
    "ROBIN_TIEBREAKS",
    "SWISS_CHAIN_2019",
    "SWISS_CHAIN_2020",
    "SWISS_CHAIN_2022",
    "SWISS_TIEBREAKS",
    "PoolRow",
    "RankedRow",
    "RobinTiebreak",
    "SwissRow",
    "SwissTiebreak",
    "check_robin_chain",
    "check_swiss_chain",
    "pool_ranking",
    "swiss_ranking",
    "tied_across_cut",
]

_S, _R = SwissTiebreak, RobinTiebreak

#: 2019 (rule III.E.5): wins against tied participants, then Median-Buchholz.
SWISS_CHAIN_2019 = (_S.WINS_AGAINST_TIED, _S.MEDIAN_BUCHHOLZ)
#: 2020 and 2021: "Median-Buchholz. Cumulative score. Seed in Qualification round."
SWISS_CHAIN_2020 = (_S.MEDIAN_BUCHHOLZ, _S.CUMULATIVE, _S.SEED)
#: 2022, 2023, 2024: Median-Buchholz, cumulative score, Kashdan score, seed.
SWISS_CHAIN_2022 = (_S.MEDIAN_BUCHHOLZ, _S.CUMULATIVE, _S.KASHDAN, _S.SEED)

#: 2019 (rule III.F.3): match points, then the game points added up. (The 2019 table of
#: `bot.rules.candidates` goes on with the matches among the players still tied, which
#: the text leaves to the TD.)
ROBIN_CHAIN_2019 = (_R.MATCH_POINTS, _R.GAME_POINTS)
#: 2020: match points, then mutual match score, mutual game score, overall game score,
#: the result in the Qualification round.
ROBIN_CHAIN_2020 = (
    _R.MATCH_POINTS,
    _R.MUTUAL_MATCH,
    _R.MUTUAL_GAMES,
    _R.OVERALL_GAMES,
    _R.EARLIER_STAGE_PLACE,
)
#: 2021-2024: as 2020, with the result in the previous ACWC Finals before the Swiss's.
ROBIN_CHAIN_2021 = (
    _R.MATCH_POINTS,
    _R.MUTUAL_MATCH,
    _R.MUTUAL_GAMES,
    _R.OVERALL_GAMES,
    _R.PREVIOUS_FINAL,
    _R.EARLIER_STAGE_PLACE,
)


class RankedRow(Protocol):
    """A table row: a player and their (shared) rank."""

    @property
    def player(self) -> str: ...

    @property
    def rank(self) -> int: ...


def tied_across_cut(rows: Sequence[RankedRow], places: int) -> list[list[str]]:
    """Groups sharing a rank that straddles the last of ``places`` (the tie decides who is
    in: rule III.E.5's "it matters for the top 3", any chain, any cut).

    Players sharing ranks 1-2 with 3 places are both in and are not returned; three sharing
    rank 3 (places 3-5) are. Groups come in rank order, players in the order of ``rows``.
    """
    if places < 0:
        raise ValueError(f"places must not be negative, got {places}")
    by_rank: dict[int, list[str]] = {}
    for row in sorted(rows, key=lambda row: row.rank):
        by_rank.setdefault(row.rank, []).append(row.player)
    return [
        group
        for rank, group in sorted(by_rank.items())
        if len(group) >= 2 and rank <= places < rank + len(group) - 1
    ]
