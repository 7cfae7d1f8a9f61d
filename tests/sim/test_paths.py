"""The plain `acwc simulate` run of the documented seeds goes through every path of rules V
and VI the issue names (docs/FEATURES.md): rule V.E, rule V.H, a break, /left (rule VI.E),
registration and the public field; each incident is in `result.json` and in the story, and
every match starts at the minute it was agreed."""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from acwc_sim.run import simulate

pytestmark = pytest.mark.slow

ENTRY = re.compile(r"^- \*\*(\d\d:\d\d) UTC · ([^*]+)\*\*: (.*)$")


def story_entries(story: str) -> list[tuple[str, str, str, str]]:
    """(day heading, HH:MM, where, first line) of each transcript entry."""
    day, out = "", []
    for line in story.splitlines():
        if line.startswith("## "):
            day = line[3:]
        elif found := ENTRY.match(line):
            out.append((day, found[1], found[2], found[3]))
    return out


def agreed_times(database: Path) -> list[datetime]:
    with sqlite3.connect(database) as db:
        rows = db.execute(
            "SELECT agreed_time FROM matches WHERE agreed_time IS NOT NULL AND state = 'finished'"
        ).fetchall()
    return [datetime.fromisoformat(r[0]) for r in rows]


async def test_the_plain_run_goes_through_each_path_once_the_bot_accepts_it(
    tmp_path: Path,
) -> None:
    result = await simulate(8, 3, tmp_path)
    incidents = result["incidents"]
    listed = " | ".join(incidents)
    for path in ("(rule V.E)", "(rules V.H, V.I)", "(rule VI.E)", "took a break"):
        assert sum(path in i for i in incidents) == 1, listed
    ve = next(i for i in incidents if "(rule V.E)" in i)
    assert ve.startswith("swiss round 2: ") and "made no offers by Wednesday" in ve
    story = (tmp_path / "transcript.md").read_text(encoding="utf-8")
    entries = story_entries(story)
    texts = [text for _, _, _, text in entries]
    # the bot's side of each path, as players and the TD read it
    assert any("rule V.E" in t and "/choose" in t for t in texts)  # the chooser is asked
    assert any("(rule V.H)" in t and "/td negotiation fault" in t for t in texts)  # the TD
    assert any("at fault" in t and "/choose" in t and "(rule V.I)" in t for t in texts)
    assert any("left the match" in t and "(rule VI.E)" in t for t in texts)
    # registration and the public field, before round 1's pairings
    registering = [e for e in entries if e[2].endswith(", registering")]
    assert len(registering) == 8 and all("approved" in e[3] for e in registering)
    field = next(i for i, e in enumerate(entries) if "The field of" in e[3])
    pairings = next(i for i, e in enumerate(entries) if e[2] == "#Swiss round 1")  # its post
    assert entries.index(registering[-1]) < field < pairings
    # every match with an agreed time starts at that minute
    starts = {
        (day, hhmm)
        for day, hhmm, where, text in entries
        if "starts now" in text  # the match's thread post, mentioning both (docs/MESSAGES.md)
    }
    for agreed in agreed_times(tmp_path / "acwc.sqlite3"):
        assert (f"{agreed:%A %d %B %Y}", f"{agreed:%H:%M}") in starts, agreed


async def test_the_reference_run_shows_the_same_paths(tmp_path: Path) -> None:
    result = await simulate(24, 1, tmp_path)
    listed = " | ".join(result["incidents"])
    for path in (
        "(rule V.E)",
        "(rules V.H, V.I)",
        "(rule VI.E)",
        "took a break",
        "the Final went to the Armageddon",
    ):
        assert path in listed, listed
    assert result["champion"] == result["challenger"]  # the Challenger won the Armageddon
