"""Ctrl-C in `acwc simulate` (issue 32): it printed a 65-line traceback. Now it stops with one
line that says how to go on, and the same command goes on where it stopped and finishes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
COMMAND = (sys.executable, "-m", "bot.cli", "simulate", "--players", "12", "--seed", "2")


def simulate(out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*COMMAND, "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A terminal's Ctrl-C reaches a process whose SIGINT is the default; a test worker
        # (like a shell's background job) may start its children with SIGINT ignored, and
        # Python then never raises KeyboardInterrupt.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def steps(out: Path) -> int:
    log = out / "progress.jsonl"
    if not log.exists():
        return 0
    lines = log.read_text(encoding="utf-8").splitlines()
    return sum(1 for line in lines if line.strip() and json.loads(line).get("op") == "step")


def test_ctrl_c_is_one_line_and_the_same_command_goes_on(tmp_path: Path) -> None:
    out = tmp_path / "sim"
    first = simulate(out)
    deadline = time.monotonic() + 120
    # early in a 12-player run, so the run is far from its end when the signal arrives
    while steps(out) < 5 and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert first.poll() is None, "the run ended before it could be interrupted"
    done_before = steps(out)
    first.send_signal(signal.SIGINT)  # what Ctrl-C sends
    stdout, stderr = first.communicate(timeout=60)
    printed = [line for line in (stdout + stderr).splitlines() if line.strip()]
    assert first.returncode == 130, printed
    assert len(printed) <= 2 and "Traceback" not in stdout + stderr, printed
    assert printed[-1].startswith("Stopped. Run the same command to go on where it stopped")
    assert not (out / "result.json").exists()

    again = simulate(out)
    stdout, stderr = again.communicate(timeout=300)
    assert again.returncode == 0, stderr[-2000:]
    assert stdout.startswith("Going on with the unfinished run in"), stdout
    assert (out / "result.json").exists()
    assert steps(out) > done_before
