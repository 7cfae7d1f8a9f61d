"""What a simulation has done, on disk, so a run killed at any moment goes on where it stopped.

The driver's every move is a *step* with a key of its own ("offer:12:7:2019-10-02 18:00",
"round:3:settle:2"...). When a step is over, one line records its key, what it read (the
matches of a round, say), the championship time and the run's counters. Started again on
the same folder, the driver skips each recorded step (its reads come back from the line),
sets the clock to where the last one left it, and redoes the one a kill cut off: a command
only if the database shows it did not take effect, a turn of the bot's jobs always (they are
safe to run again by design). Lines are flushed at once: a SIGKILL loses none.

The Lichess requests are kept the same way, each as it reaches the fake server, so a run
that was killed counts them as an uninterrupted run does: distinct requests, the same one
at the same moment of championship time counted once (a restarted process repeats the
polls of the step a kill cut off).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from acwc_sim.journal import Journal, read_entries

DEFAULT_EDITION = "acwc-2019"  # bot.config.DEFAULT_PRESET: the runs before --edition


@dataclass
class Counters:
    """What the run did, for the summary."""

    rounds: dict[str, int] = field(default_factory=dict)
    incidents: list[str] = field(default_factory=list)


class OtherEdition(Exception):
    """The run folder holds an unfinished run of another edition: going on with it under
    this one would mix two formats in one database."""

    def __init__(self, out: Path, found: str, asked: str) -> None:
        super().__init__(
            f"{out} holds an unfinished {found} run: run it again with --edition {found} to "
            f"go on with it, or add --fresh to start over with {asked} there "
            "(or choose another --out)."
        )
        self.found, self.asked = found, asked


class StepLog:
    """The steps recorded in `path`: each key once, in order."""

    def __init__(
        self, path: Path, *, seed: int, players: int, edition: str = DEFAULT_EDITION
    ) -> None:
        self.path = path
        self.seed, self.players, self.edition = seed, players, edition
        # The steps an earlier process recorded, each dropped once asked for (a key comes
        # once per run); this process's own are only written: no one asks for them again.
        self.done: dict[str, dict[str, Any]] = {}
        self.steps = 0  # steps recorded, by every process of the run
        self.last: dict[str, Any] | None = None
        self.starts = 0
        self.finished = False
        self.resumable = False
        header: dict[str, Any] | None = None
        for entry in read_entries(path):
            op = entry.get("op")
            if op == "header":
                header = entry
            elif op == "start":
                self.starts += 1
            elif op == "step":
                self.done[entry["key"]] = entry
                self.steps += 1
                self.last = entry
            elif op == "finished":
                self.finished = True
        same_run = (
            header is not None
            and (header["seed"], header["players"]) == (seed, players)
            and not self.finished
        )
        # a folder written before editions were remembered holds a 2019 run
        found = header.get("edition", DEFAULT_EDITION) if header is not None else None
        self.resumable = same_run and found == edition
        # the edition of an unfinished run that this one would go on with, were it the same
        self.other_edition: str | None = found if same_run and found != edition else None
        self._seen: set[str] = set()
        self._file: Journal | None = None

    def begin(self, *, fresh: bool) -> None:
        """Open the log for this process: a new one, or the old one to go on with."""
        if fresh:
            self.path.unlink(missing_ok=True)
            self.done, self.last, self.starts, self.finished = {}, None, 0, False
            self.steps = 0
        self._file = Journal(self.path, fsync=False)
        if fresh:
            header = {"op": "header", "seed": self.seed, "players": self.players}
            self._file.write({**header, "edition": self.edition})
        self._file.write({"op": "start"})
        self.starts += 1

    def clock(self) -> datetime | None:
        """Championship time when the last recorded step ended."""
        return datetime.fromisoformat(self.last["clock"]) if self.last else None

    def counters(self) -> Counters:
        if self.last is None:
            return Counters()
        return Counters(dict(self.last["rounds"]), list(self.last["incidents"]))

    def recorded(self, key: str) -> dict[str, Any] | None:
        if key in self._seen:
            raise RuntimeError(f"simulation step {key!r} twice: each step needs a key of its own")
        self._seen.add(key)
        return self.done.pop(key, None)

    def record(self, key: str, value: Any, clock: datetime, counters: Counters) -> None:
        entry = {
            "op": "step",
            "key": key,
            "value": value,
            "clock": clock.isoformat(),
            "rounds": counters.rounds,
            "incidents": counters.incidents,
        }
        assert self._file is not None
        self._file.write(entry)
        self.steps += 1
        self.last = entry

    def finish(self) -> None:
        assert self._file is not None
        self._file.write({"op": "finished"})
        self._file.close()
        self.finished = True


def _digest(method: str, path_qs: str, moment: float) -> int:
    """The same for the same request at the same moment, in every process (unlike hash())."""
    text = f"{method} {path_qs} {moment!r}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


class RequestLog:
    """Every Lichess request of every process of the run: (method, path, moment)."""

    def __init__(self, path: Path, *, fresh: bool) -> None:
        if fresh:
            path.unlink(missing_ok=True)
        self.path = path
        self._file = Journal(path, fsync=False)

    def __call__(self, method: str, path_qs: str, moment: float) -> None:
        self._file.write({"m": method, "q": path_qs, "t": moment})

    def count(self) -> int:
        """The distinct requests: the same request at the same moment of championship time
        counts once, whether a restarted process repeated it or the bot asked twice.

        Each request is kept as a 64-bit digest, not as its text: a 256-player run logs
        thousands, and their texts were the last few MB of the run's peak. Two different
        requests colliding in 64 bits is not a practical concern."""
        return len({_digest(e["m"], e["q"], e["t"]) for e in read_entries(self.path)})

    def close(self) -> None:
        self._file.close()
