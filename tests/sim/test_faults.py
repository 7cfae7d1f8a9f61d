"""Faults injected into a whole simulated championship: Lichess answering 500 and 429, timing
out and cutting a games stream off; a player's DMs closed (403, 50007), Discord failing posts
with 503 and 429. Nothing is lost: the same games decide the same standings and the same
champion, and every message is delivered. After every 429 the bot sent Lichess nothing for
the full configured pause, and it never had two Lichess requests in flight."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from acwc_sim.run import simulate

pytestmark = pytest.mark.slow


async def test_faults_change_nothing_but_the_way_messages_arrive(tmp_path: Path) -> None:
    calm = await simulate(8, 5, tmp_path / "calm")
    rough = await simulate(8, 5, tmp_path / "rough", faults=True)
    assert rough["faults"]["lichess 500"] >= 1
    assert rough["faults"]["lichess 429"] >= 1
    assert rough["faults"]["lichess timeout"] >= 1
    assert rough["faults"]["lichess truncated stream"] >= 1
    observed = rough["faults_observed"]
    assert observed["lichess 429 answered"] >= rough["faults"]["lichess 429"]
    assert observed["shortest pause after a 429 (s)"] >= 60.0
    assert observed["lichess requests at once (most)"] == 1
    assert observed["discord 429 retried by discord.py"] >= 1
    assert rough["faults"]["discord 403 closed DMs"] >= 1
    assert rough["faults"]["discord 503"] >= 1
    assert rough["faults"]["discord 429 retry_after"] >= 1
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
