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
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acwc_sim.harness import RecordedMessage


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
        self._file = path.open("ab")

    def write(self, entry: dict[str, Any]) -> int:
        """Append `entry`; returns where its line starts in the file."""
        offset = self._file.tell()
        self._file.write((json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8"))
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())
        return offset

    def close(self) -> None:
        self._file.close()


class MessageJournal(Journal):
    """A journal of messages that can read one message back by id: its latest line, found
    through an index of message ids and line offsets (two arrays, 16 bytes a message), so
    the harness may forget old messages and still answer an edit of one."""

    def __init__(self, path: Path, *, fsync: bool) -> None:
        super().__init__(path, fsync=fsync)
        self._ids = array("q")
        self._offsets = array("q")
        self._reader = path.open("rb")

    def replay(self) -> Iterator[dict[str, Any]]:
        """What an earlier process left in the file, in order (indexed on the way)."""
        self._reader.seek(0)
        offset = 0
        for line in self._reader:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            finally:
                start, offset = offset, offset + len(line)
            self._note(entry, start)
            yield entry

    def write(self, entry: dict[str, Any]) -> int:
        offset = super().write(entry)
        self._note(entry, offset)
        return offset

    def follows(self, message_id: int) -> bool:
        return self._find(message_id) is not None

    def latest(self, message_id: int) -> dict[str, Any] | None:
        """The message's last entry (its state now), if the journal follows it."""
        index = self._find(message_id)
        if index is None:
            return None
        self._reader.seek(self._offsets[index])
        entry: dict[str, Any] = json.loads(self._reader.readline())
        return entry

    def close(self) -> None:
        super().close()
        self._reader.close()

    def _note(self, entry: dict[str, Any], offset: int) -> None:
        if entry.get("op") not in ("post", "state"):
            return
        message_id = int(entry["id"])
        index = self._find(message_id)
        if index is not None:
            self._offsets[index] = offset
            return
        at = bisect_left(self._ids, message_id)  # ids grow: almost always the end
        self._ids.insert(at, message_id)
        self._offsets.insert(at, offset)

    def _find(self, message_id: int) -> int | None:
        at = bisect_left(self._ids, message_id)
        return at if at < len(self._ids) and self._ids[at] == message_id else None


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
