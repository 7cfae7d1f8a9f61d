"""`result.json`'s `stages`: each stage of the format as it ran, and which entry rule moved
each player on (read from the stage rows for the 2019 engine, which records none)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acwc_sim.run import simulate
from bot.config import load_config
from bot.features.console.export import collect, write

pytestmark = pytest.mark.slow


async def test_each_stage_is_described_with_its_entries(tmp_path: Path) -> None:
    result = await simulate(6, 2, tmp_path)
    stages = {stage["key"]: stage for stage in result["stages"]}
    assert next(s["key"] for s in result["stages"]) == "swiss"
    assert [s["key"] for s in result["stages"] if s["key"] != "swiss_tiebreak"] == [
        "swiss",
        "candidates",
        "final",
    ]
    swiss, candidates, final = stages["swiss"], stages["candidates"], stages["final"]
    assert (swiss["name"], swiss["kind"]) == ("Qualification", "swiss")
    assert {e["rule"] for e in swiss["entries"]} == {"registered"}
    assert len(swiss["entries"]) == 6
    assert swiss["rounds"] == result["rounds"]["swiss"]
    assert candidates["pools"] == [{"key": "candidates", "name": "Candidates"}]
    rules = [(e["rule"], e["source"], e["place"]) for e in candidates["entries"]]
    top = [("top", "swiss", 1), ("top", "swiss", 2), ("top", "swiss", 3)]
    assert rules == [*top, ("pre_seeded", "", None)]
    assert candidates["entries"][3]["player"] == "Ogul1"
    assert result["challenger"] == final["entries"][1]["player"]
    assert final["entries"][1]["rule"] == "places"
    assert final["entries"][0] == {
        "player": "arimakat",
        "rule": "pre_seeded",
        "source": "",
        "place": None,
        "pool": None,
        "moved_up": 0,
    }
    (decided,) = final["matches"]
    assert decided["winner"] == result["champion"]
    # the export has the same: the stages with their keys and names, and the entries
    config = load_config(None, environ={"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/x"})
    from db.engine import make_engine, make_sessionmaker

    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'acwc.sqlite3'}")
    try:
        data = await collect(make_sessionmaker(engine), config)
    finally:
        await engine.dispose()
    assert [(s["key"], s["name"], s["position"]) for s in data["stages"]][:1] == [
        ("swiss", "Qualification", 0)
    ]
    exported = [(e["stage"], e["player"], e["rule"]) for e in data["entries"]]
    assert ("final", "arimakat", "pre_seeded") in exported
    assert ("candidates", "Ogul1", "pre_seeded") in exported
    written = write(data, tmp_path / "csv", "csv")
    entries = next(p for p in written if p.name == "entries.csv").read_text(encoding="utf-8")
    assert entries.splitlines()[0] == "stage,player,rule,source,place,pool,moved_up"
    assert json.loads(json.dumps(result["stages"])) == result["stages"]
