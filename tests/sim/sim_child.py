"""`acwc simulate` with a kill switch, for the test that kills the simulation again and again.

Run as `python -m tests.sim.sim_child [--kill-in PHASE --kill-after N [--from-step K]] --
<simulate args>`. It runs the real `acwc simulate` command; with `--kill-in`, the process
SIGKILLs itself at its N-th database statement inside that phase (counted once the run's
step log holds K steps, so a kill can be aimed at any part of the championship): a slash
command, button or form (`command`), a sweep of due actions (`deadlines`), a results poll
(`results`) or an outbox flush (`outbox`). Wherever that statement falls (before a commit,
between two messages, in the middle of a poll), the kill cuts it off there. `--count` prints
how many statements each phase ran instead, to aim the kills.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import signal
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from acwc_sim.harness import DiscordHarness
from acwc_sim.resume import StepLog
from bot.app import ChampionshipBot
from bot.cli import main
from bot.outbox import OutboxWorker

PHASES = ("command", "deadlines", "results", "outbox")


class Phases:
    """The phase the process is in, its statements per phase, and when to kill itself."""

    def __init__(self, kill_in: str | None, kill_after: int, from_step: int) -> None:
        self.kill_in, self.kill_after, self.from_step = kill_in, kill_after, from_step
        self.current: list[str] = []
        self.statements: Counter[str] = Counter()
        self.armed = from_step == 0

    def on_statement(self, *_: Any) -> None:
        phase = self.current[-1] if self.current else "driver"
        self.statements[phase] += 1
        if not self.armed:
            return
        self.statements[f"armed {phase}"] += 1
        if phase == self.kill_in and self.statements[f"armed {phase}"] >= self.kill_after:
            os.kill(os.getpid(), signal.SIGKILL)

    def wrap(self, phase: str, run: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
        @functools.wraps(run)
        async def in_phase(*args: Any, **kwargs: Any) -> Any:
            self.current.append(phase)
            try:
                return await run(*args, **kwargs)
            finally:
                self.current.pop()

        return in_phase


def install(phases: Phases) -> None:
    event.listen(Engine, "before_cursor_execute", phases.on_statement)
    for name in ("slash", "press", "submit_modal"):
        setattr(DiscordHarness, name, phases.wrap("command", getattr(DiscordHarness, name)))
    OutboxWorker.flush = phases.wrap("outbox", OutboxWorker.flush)  # type: ignore[method-assign]
    jobs = ChampionshipBot.periodic_jobs

    def periodic_jobs(bot: ChampionshipBot) -> dict[str, tuple[Callable[[], Any], int]]:
        found = jobs(bot)
        for name in ("deadlines", "results"):
            run, every = found[name]
            found[name] = (phases.wrap(name, run), every)
        return found

    ChampionshipBot.periodic_jobs = periodic_jobs  # type: ignore[method-assign]
    record, begin = StepLog.record, StepLog.begin

    def arm(log: StepLog) -> None:
        phases.armed = phases.armed or log.steps >= phases.from_step

    def recorded(log: StepLog, *args: Any, **kwargs: Any) -> None:
        record(log, *args, **kwargs)
        arm(log)

    def begun(log: StepLog, *args: Any, **kwargs: Any) -> None:
        begin(log, *args, **kwargs)
        arm(log)

    StepLog.record = recorded  # type: ignore[method-assign]
    StepLog.begin = begun  # type: ignore[method-assign]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--kill-in", choices=PHASES)
    parser.add_argument("--kill-after", type=int, default=1)
    parser.add_argument("--from-step", type=int, default=0)
    parser.add_argument("--count", action="store_true")
    parser.add_argument("simulate", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    phases = Phases(args.kill_in, args.kill_after, args.from_step)
    install(phases)
    code = main(["simulate", *[a for a in args.simulate if a != "--"]])
    if args.count:
        print(json.dumps({k: n for k, n in phases.statements.items() if " " not in k}))
    sys.exit(code)
