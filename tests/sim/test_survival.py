"""Killed with SIGKILL again and again, the bot ends exactly where an uninterrupted run
ends: the same results, and on "Discord" every message once, none lost, none twice.

The child (tests/sim/crash_child.py) plays one Swiss round: the pairs agree their times with
/offer and /accept through the command tree, then the bot's periodic jobs do the rest (game
links, results polls, due actions, outbox flushes); the fake Lichess and "Discord's" memory
(the harness journal) live on in this process and on disk, as the real ones would.

Kills come two ways. Nine are aimed: the child SIGKILLs itself at a random database
statement of a command, a due-action sweep, a results poll or an outbox flush, so every one
of those is cut off in the middle at least twice. Four are random: this process SIGKILLs the
child at a random moment after it is up.
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

import pytest

from acwc_sim.fake_lichess import FakeLichess, fake_lichess
from tests.sim.crash_child import PHASES, PLAYERS, agreed

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
RANDOM_KILLS = 4


def kill_plan(rng: random.Random) -> list[tuple[str, int]]:
    """Aimed kills, in order: (phase, at its N-th statement). Commands come first, while
    pairs are still negotiating; then each job twice."""
    plan = [("command", rng.randint(1, 6)) for _ in range(3)]
    plan += [(phase, rng.randint(1, 4)) for phase in PHASES[1:] for _ in range(2)]
    return plan


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


async def start(folder: Path, lichess: str, *aim: str) -> asyncio.subprocess.Process:
    db = f"sqlite+aiosqlite:///{folder / 'acwc.sqlite3'}"
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.sim.crash_child",
        "--db", db, "--lichess", lichess,
        "--journal", str(folder / "journal.jsonl"), "--progress", str(folder / "progress"),
        "--phase-file", str(folder / "phase"), *aim,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


async def run(folder: Path, *, rng: random.Random, kills: bool) -> list[str]:
    """Run the child to the end; with `kills`, kill it as planned. Returns the phase each
    kill cut off."""
    folder.mkdir()  # noqa: ASYNC240
    aimed = kill_plan(rng) if kills else []
    random_kills = RANDOM_KILLS if kills else 0
    cut_off: list[str] = []
    async with fake_lichess(seed=11) as fake:
        add_games(fake)
        while True:
            aim = ["--kill-in", aimed[0][0], "--kill-after", str(aimed[0][1])] if aimed else []
            child = await start(folder, fake.base_url, *aim)
            assert child.stdout is not None
            ready = await asyncio.wait_for(child.stdout.readline(), 60)
            assert ready.strip() == b"READY", ready
            if aimed:
                await asyncio.wait_for(child.wait(), 120)
                assert child.returncode == -signal.SIGKILL, "an aimed kill was never reached"
                cut_off.append(aimed.pop(0)[0])
                continue
            if random_kills:
                await asyncio.sleep(rng.uniform(0.02, 0.2))
                if child.returncode is None:
                    os.kill(child.pid, signal.SIGKILL)
                    await child.wait()
                    random_kills -= 1
                    cut_off.append((folder / "phase").read_text())
                    continue
            out = await asyncio.wait_for(child.stdout.read(), 120)
            assert b"FINISHED" in out and await child.wait() == 0
            return cut_off


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
        if entry.get("op", "post") != "post":
            continue  # an edit, a delete or a thread: the posts are what is compared
        # a game link's id depends on how many links the fake handed out: not the message
        text = re.sub(r"lichess\.org/[A-Za-z0-9]{8}\b", "lichess.org/<game>", entry["content"])
        posted[(entry["where"], text)] += 1
    return matches, posted


async def test_killed_thirteen_times_it_ends_as_if_never_killed(tmp_path: Path) -> None:
    rng = random.Random(2019)
    await run(tmp_path / "calm", rng=rng, kills=False)
    cut_off = await run(tmp_path / "killed", rng=rng, kills=True)
    assert len(cut_off) == 9 + RANDOM_KILLS
    assert set(PHASES) <= set(cut_off)  # a command, a sweep, a poll and a flush cut off
    calm_matches, calm_posted = outcome(tmp_path / "calm")
    killed_matches, killed_posted = outcome(tmp_path / "killed")
    assert killed_matches == calm_matches
    assert sum(1 for match in calm_matches if match[3] == "finished") == 4  # round 1 played
    # not a vacuous comparison: per board an offer, an agreement, a reminder (one post for
    # both players since issue 27, two DMs before) and a link; then round 2
    assert sum(calm_posted.values()) >= 4 * 4 + 2, calm_posted
    twice = {k: n for k, n in killed_posted.items() if n > calm_posted.get(k, 0)}
    lost = {k: n for k, n in calm_posted.items() if killed_posted.get(k, 0) < n}
    assert (twice, lost) == ({}, {})
