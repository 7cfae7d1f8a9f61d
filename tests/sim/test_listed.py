"""`result.json` lists an incident only when the database shows the bot accepted it: a
step's `done()` check decides, after the command has run (or, in a restarted run, instead
of running it again)."""

from __future__ import annotations

from pathlib import Path

from acwc_sim.games import START, SimBase
from acwc_sim.resume import StepLog
from bot.clock import FakeClock


def bare_sim(tmp_path: Path) -> SimBase:
    """A SimBase with only what `step` reads: the step log, its counters and the clock."""
    sim = object.__new__(SimBase)
    sim.log = StepLog(tmp_path / "progress.jsonl", seed=1, players=2)
    sim.log.begin(fresh=True)
    sim.counters = sim.log.counters()
    sim.clock = FakeClock(START)
    return sim


async def test_a_command_the_bot_refused_is_not_listed_and_one_it_accepted_is(
    tmp_path: Path,
) -> None:
    sim = bare_sim(tmp_path)
    stored: set[str] = set()  # what the "database" shows

    async def refused() -> None:
        pass  # the bot answered with an error: nothing stored

    async def accepted() -> None:
        stored.add("left")

    async def shows_left() -> bool:
        return "left" in stored

    await sim.step("a", refused, done=shows_left, incident="X left mid-match (rule VI.E)")
    assert sim.counters.incidents == []
    await sim.step("b", accepted, done=shows_left, incident="X left mid-match (rule VI.E)")
    assert sim.counters.incidents == ["X left mid-match (rule VI.E)"]
    # a restarted run whose kill came after the command took effect: listed, not run again
    ran: list[str] = []

    async def again() -> None:
        ran.append("again")

    await sim.step("c", again, done=shows_left, incident="listed once the database shows it")
    assert ran == [] and sim.counters.incidents[-1] == "listed once the database shows it"
