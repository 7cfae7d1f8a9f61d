"""`acwc simulate`: a whole championship offline, the same seed giving the same result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acwc_sim.run import simulate
from bot.cli import main

pytestmark = pytest.mark.slow


async def test_a_small_championship_runs_to_its_champion_and_repeats_itself(
    tmp_path: Path,
) -> None:
    first = await simulate(8, 3, tmp_path / "one")
    again = await simulate(8, 3, tmp_path / "two")
    one = (tmp_path / "one" / "result.json").read_bytes()
    assert one == (tmp_path / "two" / "result.json").read_bytes()
    assert first == again
    assert first["rounds"]["swiss"] >= 3 and first["rounds"]["candidates"] == 3
    assert first["rounds"]["final"] >= 1
    assert first["champion"] in (first["challenger"], "arimakat")
    kinds = " | ".join(first["incidents"])
    for happened in ("TD assigned a time", "took a break", "cheat report", "no-show", "withdrew"):
        assert happened in kinds, kinds
    assert set(first["standings"]) >= {"swiss", "candidates", "final"}
    assert first["messages"] > 100 and first["lichess_requests"] > 50
    assert first["refused_by_discord"] == []  # every message within Discord's limits
    story = (tmp_path / "one" / "transcript.md").read_text(encoding="utf-8")
    assert "## " in story and "is the" in story and "champion" in story
    assert "<@" not in story  # mentions are names in the story


def test_the_command_writes_its_files_and_says_what_happened(tmp_path: Path, capsys) -> None:
    code = main(["simulate", "--players", "6", "--seed", "2", "--out", str(tmp_path)])
    assert code == 0
    out = capsys.readouterr().out
    assert "Champion:" in out and "Lichess requests:" in out
    result = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    assert result["seed"] == 2 and result["players"] == 6
    assert main(["simulate", "--players", "1"]) == 2
