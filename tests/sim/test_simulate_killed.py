"""`acwc simulate` killed with SIGKILL again and again and started again on the same folder
ends exactly as an uninterrupted run: the same `result.json`, byte for byte, and the same
story in `transcript.md` (so no message was posted twice and none was lost).

The child (tests/sim/sim_child.py) is the real command. Twelve kills are aimed: the child
SIGKILLs itself at a random database statement of a command, a due-action sweep, a results
poll or an outbox flush, three of each, in turn, spread from registration to the Final. Two
more come from outside at a random moment (starting up, or anywhere). After each kill the
same command is run again and goes on from the database, the run's step log and "Discord's"
journal.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.sim.sim_child import PHASES

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SIMULATE = ["--players", "8", "--seed", "3"]
AIMED_PER_PHASE = 3
RANDOM_KILLS = 2


def child(out: Path, *aim: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.sim.sim_child", *aim, "--", *SIMULATE, "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def kill_plan(rng: random.Random, steps: int) -> list[tuple[str, int, int]]:
    """(phase, at its N-th statement, once the run has K steps): each phase in turn, the
    kills spread evenly over the whole championship; the random kills ("", 0, 0) among them."""
    aimed = len(PHASES) * AIMED_PER_PHASE
    plan = [
        (PHASES[i % len(PHASES)], rng.randint(1, 30), (i + 1) * steps // (aimed + 1))
        for i in range(aimed)
    ]
    for _ in range(RANDOM_KILLS):
        plan.insert(rng.randrange(1, len(plan)), ("", 0, 0))
    return plan


def run_killed(out: Path, plan: list[tuple[str, int, int]], rng: random.Random) -> list[str]:
    """The same command again after each kill until it ends; returns the kills' phases."""
    killed: list[str] = []
    for phase, after, from_step in plan:
        if phase:
            aim = ("--kill-in", phase, "--kill-after", str(after), "--from-step", str(from_step))
            proc = child(out, *aim)
        else:
            proc = child(out)
            time.sleep(rng.uniform(0.8, 1.8))
            proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == -signal.SIGKILL, (len(killed), phase, err.decode()[-2000:])
        killed.append(phase or "random")
    proc = child(out)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()[-2000:]
    return killed


def steps_of(out: Path) -> list[str]:
    lines = (out / "progress.jsonl").read_text(encoding="utf-8").splitlines()
    return [entry["key"] for entry in map(json.loads, lines) if entry["op"] == "step"]


def test_killed_fourteen_times_the_simulation_ends_as_if_never_killed(tmp_path: Path) -> None:
    calm = child(tmp_path / "calm", "--count")
    out, err = calm.communicate(timeout=300)
    assert calm.returncode == 0, err.decode()[-2000:]
    assert set(PHASES) <= set(json.loads(out.decode().strip().splitlines()[-1]))
    calm_steps = steps_of(tmp_path / "calm")
    rng = random.Random(2019)
    killed = run_killed(tmp_path / "killed", kill_plan(rng, len(calm_steps)), rng)
    assert len(killed) == len(PHASES) * AIMED_PER_PHASE + RANDOM_KILLS
    calm_result = (tmp_path / "calm" / "result.json").read_bytes()
    assert (tmp_path / "killed" / "result.json").read_bytes() == calm_result
    result = json.loads(calm_result)
    assert result["champion"] and result["messages"] > 100
    calm_story = (tmp_path / "calm" / "transcript.md").read_text(encoding="utf-8")
    assert (tmp_path / "killed" / "transcript.md").read_text(encoding="utf-8") == calm_story
    with sqlite3.connect(tmp_path / "killed" / "acwc.sqlite3") as db:
        unsent = db.execute("SELECT count(*) FROM outbox WHERE sent_at IS NULL").fetchone()[0]
    assert unsent == 0
    assert steps_of(tmp_path / "killed") == calm_steps  # each step once, in the same order
