"""The simulation's step log and request log, and what rerunning `acwc simulate` on a folder
does: go on with an unfinished run of the same seed, start over otherwise."""

from __future__ import annotations

import json
import signal
from datetime import UTC, datetime
from pathlib import Path

import pytest

from acwc_sim.resume import Counters, RequestLog, StepLog
from bot.cli import main
from tests.sim.test_simulate_killed import child, steps_of

pytestmark = pytest.mark.slow

AT = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)


def test_the_step_log_gives_back_each_step_its_clock_and_counters(tmp_path: Path) -> None:
    path = tmp_path / "progress.jsonl"
    log = StepLog(path, seed=1, players=8)
    assert not log.resumable
    log.begin(fresh=True)
    log.record("register:Ann", None, AT, Counters({"swiss": 1}, ["Ann withdrew"]))
    log.record("round:1:open", {"round": 3, "matches": [5, 6]}, AT, Counters())
    with path.open("a", encoding="utf-8") as file:
        file.write('{"op": "step", "key": "round:1:co')  # cut off by a kill
    again = StepLog(path, seed=1, players=8)
    assert again.resumable and again.clock() == AT
    assert again.steps == 2
    entry = again.recorded("round:1:open")
    assert entry is not None and entry["value"] == {"round": 3, "matches": [5, 6]}
    assert "round:1:open" not in again.done  # given back once (a key comes once): let go
    assert again.recorded("round:1:count") is None  # the cut-off step is to be redone
    with pytest.raises(RuntimeError, match="twice"):
        again.recorded("round:1:open")
    again.begin(fresh=False)
    again.record("round:1:count", None, AT, Counters({"swiss": 2}, []))
    third = StepLog(path, seed=1, players=8)
    assert list(third.done) == ["register:Ann", "round:1:open", "round:1:count"]
    assert third.steps == 3
    assert third.counters() == Counters({"swiss": 2}, [])
    assert not StepLog(path, seed=2, players=8).resumable  # another seed starts over
    third.begin(fresh=False)
    third.finish()
    assert not StepLog(path, seed=1, players=8).resumable  # a finished run starts over


def test_requests_repeated_at_the_same_moment_count_once(tmp_path: Path) -> None:
    path = tmp_path / "requests.jsonl"
    first = RequestLog(path, fresh=True)
    first("GET", "/api/user/ann", 10.0)
    first("GET", "/api/user/ann", 10.0)  # asked twice at once
    first.close()
    second = RequestLog(path, fresh=False)  # a restarted process repeats a poll
    second("GET", "/api/user/ann", 10.0)
    second("GET", "/api/user/ann", 70.0)  # the next poll
    second("GET", "/api/games/user/ann?vs=ben", 70.0)
    assert second.count() == 3
    second.close()
    assert RequestLog(path, fresh=True).count() == 0


def test_rerun_goes_on_with_an_unfinished_run_and_fresh_starts_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    killed = child(out, "--kill-in", "results", "--kill-after", "5", "--from-step", "40")
    killed.communicate(timeout=120)
    assert killed.returncode == -signal.SIGKILL
    done_before = steps_of(out)
    assert len(done_before) >= 40
    assert main(["simulate", "--players", "8", "--seed", "3", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "Going on with the unfinished run" in said
    steps = steps_of(out)
    assert steps[: len(done_before)] == done_before and len(steps) > len(done_before)
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    assert main(["simulate", "--players", "8", "--seed", "3", "--out", str(out)]) == 0
    assert "Going on" not in capsys.readouterr().out  # a finished run is run again whole
    assert json.loads((out / "result.json").read_text(encoding="utf-8")) == result
    starts = (out / "progress.jsonl").read_text(encoding="utf-8").count('"op": "start"')
    assert starts == 1
    killed = child(out, "--kill-in", "outbox", "--kill-after", "3", "--from-step", "20")
    killed.communicate(timeout=120)
    assert killed.returncode == -signal.SIGKILL
    args = ["simulate", "--players", "8", "--seed", "3", "--out", str(out), "--fresh"]
    assert main(args) == 0
    assert "Going on" not in capsys.readouterr().out
    starts = (out / "progress.jsonl").read_text(encoding="utf-8").count('"op": "start"')
    assert starts == 1  # --fresh: the unfinished run was dropped, not continued
    assert json.loads((out / "result.json").read_text(encoding="utf-8")) == result
