"""Wall time, CPU time, peak memory and Lichess requests of whole offline championships
(`acwc simulate`).

Each run is a process of its own, so its peak RSS is that championship's alone (imports
included, as for `acwc simulate`), and the wall time is the whole command's. Per size it
prints the median and the worst of the runs (the CPU time is the run's process and its
children, user and system: what the machine spends, whatever else runs beside it), and the
Lichess requests: per championship,
per match under way per results poll, and per poll with no match under way (idle).

Run: .venv/bin/python benchmarks/simulate.py [SIZE[:RUNS] ...] [--runs K] [--seed S]
(default sizes 24 and 56; 3 runs each below 100 players, 1 from 100 up, unless `--runs` or
`SIZE:RUNS` says otherwise; e.g. `benchmarks/simulate.py 24 56 256:2`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's code, not an installed copy


def child(players: int, seed: int, out: Path) -> None:
    """One championship in this process; prints its figures as one JSON line."""
    from acwc_sim import run
    from acwc_sim.fake_lichess import FakeLichess
    from bot.features.results.service import ResultsService

    fakes: list[FakeLichess] = []
    polls = {"active": 0, "active_requests": 0, "matches": 0, "idle": 0, "idle_requests": 0}
    original_fake, original_poll = vars(run)["fake_lichess"], ResultsService.poll

    @asynccontextmanager
    async def recorded_fake(seed: int | None = None) -> AsyncIterator[FakeLichess]:
        async with original_fake(seed) as fake:
            fakes.append(fake)
            yield fake

    async def counted_poll(self: ResultsService) -> Any:
        before = fakes[0].request_count if fakes else 0
        report = await original_poll(self)
        made = (fakes[0].request_count if fakes else 0) - before
        if report.polled:
            polls["active"] += 1
            polls["matches"] += report.polled
            polls["active_requests"] += made
        else:
            polls["idle"] += 1
            polls["idle_requests"] += made
        return report

    setattr(run, "fake_lichess", recorded_fake)  # noqa: B010 (the name run.py uses)
    setattr(ResultsService, "poll", counted_poll)  # noqa: B010
    result = asyncio.run(run.simulate(players, seed, out))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "peak_mb": peak_mb,
                "lichess_requests": result["lichess_requests"],
                "messages": result["messages"],
                "rounds": sum(result["rounds"].values()),
                **polls,
            }
        )
    )


def one_run(players: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, __file__, "--child", str(players), "--seed", str(seed)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [*command, "--out", folder], capture_output=True, text=True, check=False, cwd=ROOT
        )
        wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # waited-for children, added up
    if done.returncode != 0:
        raise SystemExit(f"{players} players failed:\n{done.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    figures["wall"] = wall
    figures["cpu"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    figures["errors"] = sum(
        1 for line in done.stderr.splitlines() if "Traceback" in line or "not delivered" in line
    )
    return figures


def report(players: int, runs: list[dict[str, Any]]) -> None:
    walls = [r["wall"] for r in runs]
    cpus = [r["cpu"] for r in runs]
    peaks = [r["peak_mb"] for r in runs]
    last = runs[-1]
    per_match = last["active_requests"] / last["matches"] if last["matches"] else 0.0
    per_idle = last["idle_requests"] / last["idle"] if last["idle"] else 0.0
    print(
        f"{players:4d} players, {len(runs)} run(s): wall median {statistics.median(walls):6.1f} s, "
        f"worst {max(walls):6.1f} s; CPU median {statistics.median(cpus):6.1f} s, "
        f"worst {max(cpus):6.1f} s; peak RSS median {statistics.median(peaks):4.0f} MB, "
        f"worst {max(peaks):4.0f} MB; {last['messages']} messages, {last['rounds']} rounds, "
        f"{sum(r['errors'] for r in runs)} delivery errors"
    )
    print(
        f"     Lichess requests: {last['lichess_requests']} per championship; "
        f"{per_match:.2f} per match under way per poll ({last['active_requests']} in "
        f"{last['active']} polls of {last['matches']} matches); {per_idle:.2f} per idle poll "
        f"({last['idle_requests']} in {last['idle']} polls)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="Time whole offline championships.")
    parser.add_argument("sizes", nargs="*", default=["24", "56"], help="players[:runs]")
    parser.add_argument("--runs", type=int, help="runs per size (default 3, 1 from 100 up)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.seed, args.out)
        return
    for size in args.sizes:
        players_text, _, runs_text = size.partition(":")
        players = int(players_text)
        runs = int(runs_text) if runs_text else args.runs or (3 if players < 100 else 1)
        report(players, [one_run(players, args.seed) for _ in range(runs)])


if __name__ == "__main__":
    main()
