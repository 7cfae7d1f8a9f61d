"""Pairing a Swiss round: in the bot's own process, or a child process for a big field.

The rule (`bot.rules.swiss.pair_round`) matches with rustworkx, which costs about 4 MB of
resident memory and 10 ms to import. Every measured round pairs in under 0.03 s up to 256
players and in about 1 s at worst at 1,024 (`benchmarks/pairing.py`, docs/MEASUREMENTS.md:
a round 9 with 999 players in one score group); the rounds service pairs in a worker thread,
never on the event loop, with a time limit (`swiss.pairing_timeout_seconds`). But
rustworkx's matching holds the GIL while it runs, up to 0.7 s at 1,024 players, and the
event loop cannot run meanwhile: so a field of more than :data:`CHILD_ABOVE` active players
is paired in a child process (`bot.features.rounds.pairing_child`, the rule and rustworkx
only: about 20 MB and a few tens of milliseconds to start), which the worker thread waits
for. Earlier versions matched with networkx (23 MB to import) in a child process for every
round, at 150-200 ms a round. networkx is imported only for weights too large for
rustworkx's integers, which no measured field reaches.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Collection, Sequence
from pathlib import Path

import bot
from bot.rules import swiss

#: Fields of more active players than this are paired in a child process (see above); up to
#: it the longest measured round takes 30 ms.
CHILD_ABOVE = 256


def pair_round(
    seeding: Sequence[str],
    results: Sequence[swiss.Result],
    *,
    withdrawn: Collection[str] = (),
    bye_points: float = 1.0,
    short_median_buchholz: str = "sum",
) -> list[swiss.Pair]:
    """:func:`bot.rules.swiss.pair_round`; raises ``ValueError`` when no valid pairing exists."""
    if len(set(seeding) - set(withdrawn)) > CHILD_ABOVE:
        return _in_child(seeding, results, withdrawn, bye_points, short_median_buchholz)
    return swiss.pair_round(
        seeding,
        results,
        withdrawn=withdrawn,
        bye_points=bye_points,
        short_median_buchholz=short_median_buchholz,
    )


def _in_child(
    seeding: Sequence[str],
    results: Sequence[swiss.Result],
    withdrawn: Collection[str],
    bye_points: float,
    short_median_buchholz: str,
) -> list[swiss.Pair]:
    """The rule in `bot.features.rounds.pairing_child`: the GIL stays with the bot."""
    args = {
        "seeding": list(seeding),
        "results": [list(r) for r in results],
        "withdrawn": sorted(withdrawn),
        "bye_points": bye_points,
        "short_median_buchholz": short_median_buchholz,
    }
    root = str(Path(bot.__file__).resolve().parents[1])  # the child imports this bot
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [sys.executable, "-m", "bot.features.rounds.pairing_child"],
        input=json.dumps(args),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the pairing's child process failed: {done.stderr[-2000:]}")
    answer = json.loads(done.stdout)
    if "error" in answer:
        raise ValueError(answer["error"])
    return [(a, b) for a, b in answer["pairs"]]
