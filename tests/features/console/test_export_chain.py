"""The export's standings follow the format's Swiss tiebreak chain: each tiebreak of the
chain has a column, and under the 2019 chain the table is the one it always was."""

from __future__ import annotations

import csv
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.features.console import export
from bot.features.console.export import COLUMNS
from tests.features.console.test_cli import played_round
from tests.features.rounds.test_swiss_format import CHAIN_2022, with_swiss


async def test_the_2022_chain_exports_its_tiebreaks(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock, tmp_path: Path
) -> None:
    # Round 1: Alice 6-0 Bob, Carol 2-5.5 Dave, Eve's bye (scored 0 here); round 2 is
    # paired, with Dave's bye (1 point) and the others' matches still to play
    await played_round(sessions, config, clock)
    old = await export.collect(sessions, config)
    data = await export.collect(sessions, with_swiss(config, tiebreaks=CHAIN_2022))

    swiss = {r["player"]: r for r in data["standings"] if r["stage"] == "swiss"}
    assert [r["player"] for r in data["standings"]] == ["Dave", "Alice", "Carol", "Bob", "Eve"]
    alice, dave = swiss["Alice"], swiss["Dave"]
    # Median-Buchholz (Bob's 0), the running score 1 after both rounds, a win's Kashdan 4
    assert (alice["median_buchholz"], alice["cumulative"], alice["kashdan"]) == (0.0, 2.0, 4.0)
    assert (alice["seed"], alice["wins_vs_tied"]) == (1.0, None)  # not in the chain
    # Dave: 1 then 2 points (the bye of round 2), a win 4 and a bye 0 Kashdan, seed 4
    assert (dave["cumulative"], dave["kashdan"], dave["seed"]) == (3.0, 4.0, 4.0)
    # the 2019 chain: no column beyond the ones the export always had
    assert all(set(r) == set(COLUMNS["standings"]) for r in old["standings"])
    assert [r["player"] for r in old["standings"]] == ["Dave", "Alice", "Carol", "Bob", "Eve"]

    export.write_csv(data, tmp_path)
    with (tmp_path / "standings.csv").open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert list(reader.fieldnames or ()) == [
        *COLUMNS["standings"],
        "cumulative",
        "kashdan",
        "seed",
    ]
    assert next(r for r in rows if r["player"] == "Dave")["kashdan"] == "4.0"
