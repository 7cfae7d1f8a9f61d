"""The Swiss pairing of a big field, in a child process (`bot.features.rounds.pairing`).

Reads the rule's arguments as JSON on stdin and writes ``{"pairs": [...]}`` (or
``{"error": "..."}`` when no valid pairing exists) on stdout. Imports only the pure rule and
rustworkx: about 20 MB and a few tens of milliseconds to start.
"""

from __future__ import annotations

import json
import sys

from bot.rules import swiss


def main() -> None:
    args = json.load(sys.stdin)
    try:
        pairs = swiss.pair_round(
            args["seeding"],
            [(a, b, pa, pb) for a, b, pa, pb in args["results"]],
            withdrawn=args["withdrawn"],
            bye_points=args["bye_points"],
            short_median_buchholz=args["short_median_buchholz"],
        )
    except ValueError as exc:
        json.dump({"error": str(exc)}, sys.stdout)
        return
    json.dump({"pairs": pairs}, sys.stdout)


if __name__ == "__main__":
    main()
