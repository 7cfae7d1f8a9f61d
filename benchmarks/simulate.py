"""Wall time and peak memory of whole offline championships (`acwc simulate`), and the
Lichess requests they make. Run: .venv/bin/python benchmarks/simulate.py [players ...]"""

from __future__ import annotations

import argparse
import asyncio
import resource
import tempfile
import time
from pathlib import Path

from bot.sim.run import simulate


def main(sizes: list[int]) -> None:
    for players in sizes:
        with tempfile.TemporaryDirectory() as folder:
            started = time.perf_counter()
            result = asyncio.run(simulate(players, 1, Path(folder)))
            wall = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        games = sum(len(r) for r in [result["standings"].get("swiss", {}).get("rows", [])])
        print(
            f"{players:4d} players: {wall:6.1f} s wall, peak RSS {peak_mb:6.0f} MB (process so "
            f"far), {result['lichess_requests']:5d} Lichess requests, {result['messages']:5d} "
            f"messages, {sum(result['rounds'].values())} rounds, {games} Swiss rows"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Time whole offline championships.")
    parser.add_argument("players", nargs="*", type=int, default=[24, 56], help="entrant counts")
    main(parser.parse_args().players)
