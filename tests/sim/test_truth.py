"""A dry run tells the truth (issue 32): two seeds differ in their results, their ratings
and their incidents; each incident `result.json` lists is found in what the bot said; and a
match's "starts now" post comes at the time its players agreed."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from acwc_sim.run import simulate

pytestmark = pytest.mark.slow

# Both seeds plan a Final through every extension to the Armageddon (ARMAGEDDON_SEEDS): the
# plan may not make the two Finals alike.
SEEDS = (1, 3)


def journal(out: Path) -> list[dict[str, Any]]:
    """What the bot posted to the recorded Discord, in order."""
    rows = [json.loads(line) for line in (out / "discord.jsonl").read_text("utf-8").splitlines()]
    return [r for r in rows if r["op"] == "post"]


def ratings(out: Path) -> list[tuple[int, int]]:
    """(cut-off rating, peak rating) of each entrant, as the bot stored them."""
    with sqlite3.connect(out / "acwc.sqlite3") as db:
        rows = db.execute("SELECT rating_at_cutoff, peak_rating FROM registrations").fetchall()
    return [(int(cut), int(peak)) for cut, peak in rows]


def final_games(result: dict[str, Any]) -> list[list[str]]:
    return [row for row in result["standings"]["final"]["rows"] if row[0].isdigit()]


async def test_two_seeds_differ_in_results_ratings_and_incidents(tmp_path: Path) -> None:
    runs = {seed: await simulate(8, seed, tmp_path / str(seed)) for seed in SEEDS}
    one, three = (runs[s] for s in SEEDS)
    # results: the Finals' games differ, both colours win and some games are drawn
    results = {s: [row[4] for row in final_games(runs[s])] for s in SEEDS}
    assert results[1] != results[3]
    every = results[1] + results[3]
    assert {"1-0", "0-1", "1/2-1/2"} <= set(every), every
    assert one["standings"]["swiss"]["rows"] != three["standings"]["swiss"]["rows"]
    # ratings: some entrants peaked above their cut-off rating (rule III.E.3's mean matters),
    # and not the same way in both seeds
    for seed in SEEDS:
        pairs = ratings(tmp_path / str(seed))
        assert any(cut < peak for cut, peak in pairs), pairs
        assert any(cut == peak for cut, peak in pairs), pairs
    assert ratings(tmp_path / "1") != ratings(tmp_path / "3")
    # incidents: who they happen to is drawn from the seed, not from the pairing's order

    def who(result: dict[str, Any]) -> list[str]:
        return [i for i in result["incidents"] if "Armageddon" not in i]

    assert who(one) != who(three)
    assert len(who(one)) == len(who(three))  # every path still shows in either


async def test_every_listed_incident_is_true_in_what_the_bot_said(tmp_path: Path) -> None:
    result = await simulate(8, 3, tmp_path)
    story = (tmp_path / "transcript.md").read_text(encoding="utf-8")
    posts = journal(tmp_path)
    texts = [p["content"] for p in posts]
    incidents = result["incidents"]

    def said(*parts: str) -> bool:
        return any(all(part in text for part in parts) for text in texts)

    checked = 0
    for incident in incidents:
        if "/left" in incident:
            gone, claimant = re.findall(r"^(\S+) left mid-match, (\S+) reported", incident)[0]
            assert "came back within 10 minutes" in incident
            # the bot closed the report itself: the player came back in time
            assert said(f"claim {claimant} made against you", "you came back"), incident
            assert not said(f"{gone}'s time to come back is over"), incident
        elif "private cheat report" in incident:
            reporter, accused = re.findall(
                r"^(\S+) made a private cheat report against (\S+) ", incident
            )[0]
            assert f"Reporter: @{reporter.lower()}" in story, incident
            assert f"Accused: **{accused}**" in story, incident
            assert "Cheat report 1" in story
        elif "dismissed cheat report" in incident:
            assert said("has handled your cheat report"), incident
        elif "walkover" in incident:
            winner, quitter = re.findall(r"^(\S+) won their match against (\S+) by", incident)[0]
            assert said(f"{quitter} withdrew: you win your match against them"), incident
            assert f"**forfeit, won by {winner}**" in story, incident
        elif "no-show claim against" in incident:
            claimant = incident.split(": ", 1)[1].split(" ")[0]
            assert said(f"no-show claim {claimant} made against you", "is withdrawn"), incident
        elif "took a break" in incident:
            name = incident.split(" ")[0]
            assert said(f"{name} takes their break") and said(f"{name}'s break is over")
        else:
            continue
        checked += 1
    assert checked >= 6, incidents
    kinds = " | ".join(incidents)
    for happened in ("/left", "private cheat", "dismissed cheat report", "walkover", "no-show"):
        assert happened in kinds, kinds
    # the cheat report does not stay open all run
    with sqlite3.connect(tmp_path / "acwc.sqlite3") as db:
        states = {s for (s,) in db.execute("SELECT state FROM cheat_reports")}
        assert states == {"dismissed"}
        left = db.execute("SELECT state FROM match_incidents WHERE kind = 'left'").fetchall()
        assert left == [("cancelled",)]


def utc(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


async def test_a_match_starts_and_a_break_ends_when_the_messages_say(tmp_path: Path) -> None:
    await simulate(8, 1, tmp_path)
    with sqlite3.connect(tmp_path / "acwc.sqlite3") as db:
        agreed = {
            str(thread): utc(at)
            for thread, at in db.execute(
                "SELECT thread_id, agreed_time FROM matches WHERE agreed_time IS NOT NULL"
            )
        }
        breaks = db.execute("SELECT ends_at FROM match_incidents WHERE kind = 'break'").fetchall()
    first: dict[str, datetime] = {}
    over: list[datetime] = []
    for post in journal(tmp_path):
        sent = utc(post["sent_at"])
        if "your match starts now" in post["content"]:
            first.setdefault(str(post["channel_id"]), sent)
        if "break is over" in post["content"]:
            over.append(sent)
    assert first and set(first) <= set(agreed)
    late = {t: (sent - agreed[t]).total_seconds() for t, sent in first.items()}
    assert all(0 <= seconds <= 60 for seconds in late.values()), late
    assert len(breaks) == 1 and len(over) == 1
    assert 0 <= (over[0] - utc(breaks[0][0])).total_seconds() <= 60
