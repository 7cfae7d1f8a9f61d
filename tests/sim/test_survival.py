"""Killed with SIGKILL again and again, the bot ends exactly where an uninterrupted run
ends: the same results, and on "Discord" every message once, none lost, none twice.

The child (tests/sim/crash_child.py) plays one Swiss round through the bot's periodic jobs
(game links, results polls, due actions, outbox flushes); the fake Lichess and "Discord's"
memory (the harness journal) live on in this process and on disk, as the real ones would.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import sqlite3
import sys
from collections import Counter
from datetime import timedelta
from pathlib import Path

from bot.sim.fake_lichess import FakeLichess, fake_lichess
from tests.sim.crash_child import PLAYERS, agreed

ROOT = Path(__file__).resolve().parents[2]
KILLS = 12


def add_games(fake: FakeLichess) -> None:
    """Round 1 as the boards will play it: the first-listed player wins 6-0."""
    for _, name in PLAYERS:
        fake.add_user(name, created_at=agreed(1) - timedelta(days=900))
    for board in range(1, 5):
        a, b = PLAYERS[2 * board - 2][1], PLAYERS[2 * board - 1][1]
        for number in range(1, 7):
            white, black = (a, b) if number % 2 else (b, a)
            created = agreed(board) + timedelta(minutes=2 + 10 * (number - 1))
            fake.add_game(
                id=f"b{board}g{number}xxxx"[:8],
                white=white,
                black=black,
                created_at=created,
                last_move_at=created + timedelta(minutes=8),
                winner="white" if white == a else "black",
                status="variantEnd",
            )


async def start(folder: Path, lichess: str) -> asyncio.subprocess.Process:
    db = f"sqlite+aiosqlite:///{folder / 'acwc.sqlite3'}"
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.sim.crash_child",
        "--db", db, "--lichess", lichess,
        "--journal", str(folder / "journal.jsonl"), "--progress", str(folder / "progress"),
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


async def run(folder: Path, *, kills: int, rng: random.Random) -> int:
    """Run the child to the end, killing it `kills` times while it works; returns kills."""
    folder.mkdir()  # noqa: ASYNC240
    async with fake_lichess(seed=11) as fake:
        add_games(fake)
        done = 0
        while True:
            child = await start(folder, fake.base_url)
            assert child.stdout is not None
            ready = await asyncio.wait_for(child.stdout.readline(), 60)
            assert ready.strip() == b"READY", ready
            if done < kills:
                await asyncio.sleep(rng.uniform(0.02, 0.2))  # mid-poll, -sweep or -flush
                if child.returncode is None:
                    os.kill(child.pid, signal.SIGKILL)
                    await child.wait()
                    done += 1
                    continue
            out = await asyncio.wait_for(child.stdout.read(), 120)
            assert b"FINISHED" in out and await child.wait() == 0
            return done


def outcome(folder: Path) -> tuple[list[tuple[object, ...]], Counter[tuple[str, str]]]:
    with sqlite3.connect(folder / "acwc.sqlite3") as db:
        matches = db.execute(
            "SELECT m.id, r.number, m.board, m.state, m.score_a, m.score_b, m.points_a, "
            "m.points_b FROM matches m JOIN rounds r ON r.id = m.round_id ORDER BY m.id"
        ).fetchall()
        unsent = db.execute("SELECT count(*) FROM outbox WHERE sent_at IS NULL").fetchone()[0]
    assert unsent == 0
    posted: Counter[tuple[str, str]] = Counter()
    for line in (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        # a game link's id depends on how many links the fake handed out: not the message
        text = re.sub(r"lichess\.org/[A-Za-z0-9]{8}\b", "lichess.org/<game>", entry["content"])
        posted[(entry["where"], text)] += 1
    return matches, posted


async def test_killed_ten_times_it_ends_as_if_never_killed(tmp_path: Path) -> None:
    rng = random.Random(2019)
    await run(tmp_path / "calm", kills=0, rng=rng)
    killed = await run(tmp_path / "killed", kills=KILLS, rng=rng)
    assert killed >= KILLS
    calm_matches, calm_posted = outcome(tmp_path / "calm")
    killed_matches, killed_posted = outcome(tmp_path / "killed")
    assert killed_matches == calm_matches
    assert sum(1 for match in calm_matches if match[3] == "finished") == 4  # round 1 played
    assert sum(calm_posted.values()) > 20  # links, scoreboards, results, round 2
    twice = {k: n for k, n in killed_posted.items() if n > calm_posted.get(k, 0)}
    lost = {k: n for k, n in calm_posted.items() if killed_posted.get(k, 0) < n}
    assert (twice, lost) == ({}, {})
