"""Faults injected into a whole simulated championship: Lichess answering 500 and 429, a player's
DMs closed (403, 50007), Discord failing posts with 503 and 429. Nothing is lost: the same
games decide the same standings and the same champion, and every message is delivered."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.sim.run import simulate


async def test_faults_change_nothing_but_the_way_messages_arrive(tmp_path: Path) -> None:
    calm = await simulate(8, 5, tmp_path / "calm")
    rough = await simulate(8, 5, tmp_path / "rough", faults=True)
    assert rough["faults"]["lichess 500"] >= 1
    assert rough["faults"]["lichess 429"] >= 1
    assert rough["faults"]["discord 403 closed DMs"] >= 1
    assert rough["faults"].get("discord 503", 0) + rough["faults"].get("discord 429", 0) >= 1
    assert rough["standings"] == calm["standings"]
    assert (rough["challenger"], rough["champion"]) == (calm["challenger"], calm["champion"])
    assert rough["rounds"] == calm["rounds"]
    with sqlite3.connect(tmp_path / "rough" / "acwc.sqlite3") as db:
        waiting = db.execute("SELECT count(*) FROM outbox WHERE sent_at IS NULL").fetchone()[0]
        given_up = db.execute("SELECT count(*) FROM outbox WHERE failed_at IS NOT NULL").fetchone()[
            0
        ]
    assert (waiting, given_up) == (0, 0)
    story = (tmp_path / "rough" / "transcript.md").read_text(encoding="utf-8")
    assert "(your DMs are closed)" in story  # the fallback mention in the match thread
