"""Pairing a Swiss round, in the bot's own process.

The rule (`bot.rules.swiss.pair_round`) matches with rustworkx, which costs about 4 MB of
resident memory and 10 ms to import. It pairs every measured round up to 512 players in
under 0.2 s, but one family at 1,024 players (withdrawals) takes about 15 s
(`benchmarks/pairing.py`, docs/MEASUREMENTS.md), so the rounds service pairs in a worker thread,
never on the event loop. Earlier versions matched with networkx (23 MB)
and paired in a child process to keep it out of the bot, at 150-200 ms a round; neither
is worth it any more. networkx stays out of the bot: only the tests' independent check
loads it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot.rules import swiss


def pair_round(
    seeding: Sequence[str],
    results: Sequence[swiss.Result],
    *,
    withdrawn: Collection[str] = (),
    bye_points: float = 1.0,
    short_median_buchholz: str = "sum",
) -> list[swiss.Pair]:
    """:func:`bot.rules.swiss.pair_round`; raises ``ValueError`` when no valid pairing exists."""
    return swiss.pair_round(
        seeding,
        results,
        withdrawn=withdrawn,
        bye_points=bye_points,
        short_median_buchholz=short_median_buchholz,
    )
