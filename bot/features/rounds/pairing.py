"""Pairing a Swiss round in a short child process, so networkx stays out of the bot.

The exact pairing (`bot.rules.swiss.pair_round`) needs networkx's maximum weight matching
whenever a round cannot be paired at the lower bounds. Importing networkx costs about 23 MB
of resident memory, and the matching of a 256-player field several more, which a
months-long bot would keep after its first hard round. So the bot pairs in a child process
(`python -m bot.features.rounds.pairing`, the round's data as JSON on its stdin). The child
takes about a quarter of a second, once a round. The call blocks like the in-process
pairing did, so nothing else runs in the middle of the round's transaction.

A process that has already loaded networkx (a test run, an embedder) gains nothing from a
child and pairs in-process. The pairs are the same either way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from bot.rules import swiss

_ROOT = Path(__file__).resolve().parents[3]


def pair_round(
    seeding: Sequence[str],
    results: Sequence[swiss.Result],
    *,
    withdrawn: Collection[str] = (),
    bye_points: float = 1.0,
) -> list[swiss.Pair]:
    """:func:`bot.rules.swiss.pair_round`, in a child process unless networkx is loaded.

    Raises ``ValueError`` as the rule does when no valid pairing exists."""
    if "networkx" in sys.modules:
        return swiss.pair_round(seeding, results, withdrawn=withdrawn, bye_points=bye_points)
    request = {
        "seeding": list(seeding),
        "results": [list(result) for result in results],
        "withdrawn": sorted(withdrawn),
        "bye_points": bye_points,
    }
    path = os.pathsep.join(p for p in (str(_ROOT), os.environ.get("PYTHONPATH")) if p)
    child = subprocess.run(
        [sys.executable, "-m", __name__],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
    )
    if child.returncode != 0:
        raise RuntimeError(f"the pairing process failed (exit {child.returncode}):\n{child.stderr}")
    answer = json.loads(child.stdout)
    if "error" in answer:
        raise ValueError(answer["error"])
    return [(a, b) for a, b in answer["pairs"]]


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    """The child's work: the pairs, or the rule's reason why there are none."""
    results: list[swiss.Result] = [(a, b, sa, sb) for a, b, sa, sb in request["results"]]
    try:
        pairs = swiss.pair_round(
            request["seeding"],
            results,
            withdrawn=set(request["withdrawn"]),
            bye_points=request["bye_points"],
        )
    except ValueError as refused:
        return {"error": str(refused)}
    return {"pairs": [list(pair) for pair in pairs]}


if __name__ == "__main__":
    print(json.dumps(_answer(json.load(sys.stdin))))
