"""The message plan (docs/MESSAGES.md) measured on the 24-player seed-1 championship: at
most half the 1,231 messages issue 27 counted, and no reader gets the same thing twice."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acwc_sim.games import ANNOUNCE
from acwc_sim.run import simulate
from bot.config import NegotiationConfig
from tests.sim.readers import players, posts, read_twice, reminders_per_reader, threads_named

pytestmark = pytest.mark.slow

#: Half the messages of the transcript issue 27 read (1,231).
MOST = 615
# How a match's result read in the announcement channel ("🏁 Swiss result: **A** 5.5–0.5 **B**")
MATCH_RESULT = re.compile(r"^🏁 \w+ result: ")
LINK = re.compile(r"https://lichess\.org/[A-Za-z0-9]{8}")
STARTS = "your match starts now"


async def test_the_24_player_championship_tells_each_reader_once(tmp_path: Path) -> None:
    result = await simulate(24, 1, tmp_path)
    sent = posts(tmp_path / "discord.jsonl")
    assert len(sent) == result["messages"] <= MOST, len(sent)
    names = players(tmp_path / "acwc.sqlite3")
    twice = read_twice(sent, names)
    assert twice == [], twice[:5]
    # a reminder repeats an agreed time on purpose, once per configured reminder at most
    most = len(NegotiationConfig().match_reminders_hours)
    assert max(reminders_per_reader(sent, names).values()) <= most
    # the announcement channel carries stage news, not each match's result
    announced = [p.content for p in sent if p.where == str(ANNOUNCE)]
    assert announced and not [a for a in announced if MATCH_RESULT.match(a)]
    assert any("champion" in a for a in announced)
    # the story shows each match's result where it now is: its start post, as edited (the
    # Final keeps a scoreboard post of its own)
    story = (tmp_path / "transcript.md").read_text(encoding="utf-8")
    final = threads_named(tmp_path / "discord.jsonl", "Final")
    started = {LINK.findall(p.content)[0] for p in sent if STARTS in p.content}
    outside_final = {
        LINK.findall(p.content)[0] for p in sent if STARTS in p.content and p.where not in final
    }
    shown = {
        LINK.findall(entry)[0]
        for entry in story.split("\n- **")
        if ", edited**: ♟️" in entry and "(final result)" in entry
    }
    assert outside_final and shown == outside_final and started > outside_final
