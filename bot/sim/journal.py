""" "Discord's" memory on disk: what the harness posted, edited and opened, line by line.

A real Discord remembers every message after the bot is killed; a simulation that is killed
and started again must too. Each line is one JSON object: a message as it now stands
(`post` when created, `state` after an edit or a delete), or a thread the bot opened.
Lines are flushed at once, so a SIGKILL loses nothing (the kernel keeps what was written);
`fsync` is for tests that want the file safe from a power cut as well.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.sim.harness import RecordedMessage


def message_entry(op: str, msg: RecordedMessage, nonce: Any = None) -> dict[str, Any]:
    """A message's whole visible state: enough to rebuild it after a restart."""
    where = f"dm:{msg.dm_user_id}" if msg.dm_user_id is not None else str(msg.channel_id)
    return {
        "op": op,
        "id": msg.id,
        "channel_id": msg.channel_id,
        "where": where,
        "dm_user_id": msg.dm_user_id,
        "guild_id": msg.guild_id,
        "content": msg.content,
        "embeds": msg.embeds,
        "components": msg.components,
        "flags": msg.flags,
        "files": msg.files,
        "deleted": msg.deleted,
        "nonce": nonce,
        "sent_at": msg.sent_at.isoformat() if msg.sent_at is not None else None,
    }


class Journal:
    """Appends entries to one file, keeping it open for the run."""

    def __init__(self, path: Path, *, fsync: bool) -> None:
        self.path, self.fsync = path, fsync
        _drop_cut_off_tail(path)
        self._file = path.open("a", encoding="utf-8")

    def write(self, entry: dict[str, Any]) -> None:
        self._file.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def _drop_cut_off_tail(path: Path) -> None:
    """A line a kill cut off is dropped before appending, or the next entry would join it."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as file:
            file.truncate(data.rfind(b"\n") + 1)


def read_entries(path: Path) -> Iterator[dict[str, Any]]:
    """The entries in order; a last line cut off by a kill is ignored (it was never whole)."""
    if not path.exists():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            continue
