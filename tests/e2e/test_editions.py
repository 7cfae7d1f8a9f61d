"""`acwc simulate --edition`: each later preset's whole championship, from the Swiss through
its own stages (2020's Knock-Out, the pools, the Semifinals) to the Grand Final and the Third
Place Playoff, as the rules pages have them, deterministic by seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acwc_sim.run import simulate
from bot.cli import main

pytestmark = pytest.mark.slow

KINDS = {
    "acwc-2020": ["swiss", "knockout", "round_robin", "final_match", "final_match"],
    "acwc-2021": ["swiss", "round_robin", "knockout", "final_match", "final_match"],
    "acwc-2024": ["swiss", "round_robin", "knockout", "final_match", "final_match"],
}


def format_stages(result: dict) -> list[dict]:
    return [s for s in result["stages"] if not s["key"].endswith("_tiebreak")]


@pytest.mark.parametrize("edition", sorted(KINDS))
async def test_a_preset_runs_to_a_champion(edition: str, tmp_path: Path) -> None:
    result = await simulate(40, 1, tmp_path, edition=edition)
    stages = format_stages(result)
    assert [s["kind"] for s in stages] == KINDS[edition]
    assert result["champion"] is not None
    robin = next(s for s in stages if s["kind"] == "round_robin")
    assert [p["key"] for p in robin["pools"]] in (["upper", "lower"], ["lower", "upper"])
    for pool in robin["standings"]:
        assert pool["state"] == "finished" and len(pool["rows"]) >= 4
    # every stage after the Swiss says which rule moved each player on
    for stage in stages[1:]:
        assert stage["entries"], stage["key"]
        assert all(e["rule"] != "registered" for e in stage["entries"])
    grand, third = stages[-2], stages[-1]
    assert (grand["name"], third["name"]) == ("Grand Final", "Third Place Playoff")
    assert grand["matches"][0]["winner"] == result["champion"]
    assert third["matches"][0]["winner"] is not None
    # the two finals are played in the same week
    assert grand["matches"] and third["matches"]
    transcript = (tmp_path / "transcript.md").read_text(encoding="utf-8")
    assert "Grand Final" in transcript
    if edition == "acwc-2020":  # places 1-4 to the Candidates, 5-12 to the Knock-Out
        assert "Qualified for the Knock-Out: " in transcript
    if edition != "acwc-2021":  # 2020 and 2024: equal bids go to rock-paper-scissors
        incidents = " | ".join(result["incidents"])
        assert "the Third Place Playoff went to the Armageddon" in incidents
        assert "won rock-paper-scissors after equal bids" in incidents


async def test_2024_with_70_players(tmp_path: Path) -> None:
    result = await simulate(70, 1, tmp_path, edition="acwc-2024")
    stages = format_stages(result)
    semis = next(s for s in stages if s["key"] == "semifinals")
    assert len(semis["matches"]) == 2
    assert all(m["winner"] for m in semis["matches"])
    assert result["champion"] is not None


async def test_the_same_seed_gives_the_same_result(tmp_path: Path) -> None:
    one = await simulate(40, 2, tmp_path / "a", edition="acwc-2024")
    two = await simulate(40, 2, tmp_path / "b", edition="acwc-2024")
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


def test_the_command_plays_the_edition(tmp_path: Path) -> None:
    code = main(["simulate", "--edition", "acwc-2021", "--players", "40", "--out", str(tmp_path)])
    assert code == 0
    result = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    assert [s["key"] for s in format_stages(result)][-1] == "third_place"


def test_the_export_and_the_terminal_show_every_pool_and_both_finals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`acwc export` and `acwc standings` over a finished 2024 championship: a table per
    pool, the Semifinals' matches, the Grand Final and the Third Place Playoff."""
    run = tmp_path / "run"
    assert main(["simulate", "--edition", "acwc-2024", "--players", "40", "--out", str(run)]) == 0
    config = tmp_path / "config.yaml"
    config.write_text("preset: acwc-2024\n", encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{run / 'acwc.sqlite3'}")
    out = tmp_path / "export"
    assert main(["--config", str(config), "export", "--out", str(out)]) == 0
    exported = json.loads((out / "championship.json").read_text(encoding="utf-8"))
    stages = {row["stage"] for row in exported["standings"]}
    assert {"swiss", "upper", "lower", "grand_final", "third_place"} <= stages
    capsys.readouterr()
    assert main(["--config", str(config), "standings", "--stage", "semifinals"]) == 0
    printed = capsys.readouterr().out
    assert "Semifinal 1" in printed and "Semifinal 2" in printed
    assert main(["--config", str(config), "standings", "--stage", "lower"]) == 0
    assert "Lower pool crosstable" in capsys.readouterr().out
