"""A real SIGTERM in the middle of a flush: the bot finishes the delivery under way, marks
it, frees its claims and exits 0; started again long after (Discord's nonce memory gone),
it sends the rest, and nothing is ever posted twice (tests/stop_child.py is the bot)."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.stop_child import POSTS

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


async def child(db: Path, journal: Path, *extra: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.stop_child", "--db", f"sqlite+aiosqlite:///{db}",
        "--journal", str(journal), *extra,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


async def finished(proc: asyncio.subprocess.Process, within: float) -> tuple[bytes, bytes]:
    """The child's output once it exits; if it hangs, every thread's stack in the failure."""
    try:
        return await asyncio.wait_for(proc.communicate(), timeout=within)
    except TimeoutError:
        proc.send_signal(signal.SIGUSR2)  # its tasks (tests/stop_child.py)
        await asyncio.sleep(1)
        proc.send_signal(signal.SIGUSR1)  # its threads
        await asyncio.sleep(1)
        proc.kill()
        out, err = await proc.communicate()
        pytest.fail(f"the child hung:\n{out.decode()}\n{err.decode()}")


def posted(journal: Path) -> Counter[str]:
    found: Counter[str] = Counter()
    for line in journal.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry.get("op", "post") == "post":
            found[entry["content"]] += 1
    return found


async def test_sigterm_mid_flush_leaves_nothing_half_sent(tmp_path: Path) -> None:
    db, journal = tmp_path / "acwc.sqlite3", tmp_path / "discord.jsonl"
    first = await child(db, journal)
    assert first.stdout is not None
    ready = await asyncio.wait_for(first.stdout.readline(), timeout=60)
    assert ready.strip() == b"READY", ready
    first.send_signal(signal.SIGTERM)
    out, err = await finished(first, within=30)
    assert first.returncode == 0, err.decode()
    assert b"STOPPED" in out
    with sqlite3.connect(db) as rows:
        claimed = rows.execute("SELECT count(*) FROM outbox WHERE claim_token IS NOT NULL")
        sent = rows.execute("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL")
        assert claimed.fetchone()[0] == 0  # no claim left behind
        assert sent.fetchone()[0] == sum(posted(journal).values()) >= 1  # each post marked

    again = await child(db, journal, "--again")
    out, err = await finished(again, within=60)
    assert again.returncode == 0 and b"FINISHED" in out, err.decode()
    assert posted(journal) == Counter({f"post {n}": 1 for n in range(POSTS)})
