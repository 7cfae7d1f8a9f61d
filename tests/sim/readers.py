"""Who reads each message of a simulation's journal (`discord.jsonl`), and which of them read
the same thing twice: the measure of docs/MESSAGES.md's "one copy per reader"."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

MENTION = re.compile(r"<@!?(\d+)>")
NAMED = re.compile(r"\*\*([A-Za-z0-9_-]+)\*\*")
# What makes a message about one thing: a link, an offer, a time. Two messages a player gets
# with the same ones say the same thing (an offer by DM and in the thread, say), however
# differently worded.
# An offer is named by its number among its offerer's (issue 32): "Alice's 2nd offer".
TOKENS = re.compile(r"https?://\S+|[\w-]+'s \d+(?:st|nd|rd|th) offer|<t:\d+:\w>")
# The reminders players can mute with /notify (a match time, an offer left unanswered for a
# day, rule V.G): repeats by design, counted apart by `reminders_per_reader`.
REMINDER = "Reminder: "


@dataclass(frozen=True)
class Post:
    where: str
    dm_user_id: int | None
    content: str
    in_thread: bool

    def readers(self, players: dict[str, int]) -> set[str]:
        """A DM's user; a channel's or thread's followers and every member it mentions (a
        mention notifies them); in a round's thread, every player it names in bold too (the
        players of a match follow the thread, and read what it says about them there). The
        announcement channel is everyone's: a player named there reads it as everyone does."""
        if self.dm_user_id is not None:
            return {f"user:{self.dm_user_id}"}
        names = NAMED.findall(self.content) if self.in_thread else []
        named = {players[n] for n in names if n in players}
        mentioned = {int(u) for u in MENTION.findall(self.content)}
        return {f"channel:{self.where}"} | {f"user:{u}" for u in named | mentioned}

    def subject(self, reader: str) -> frozenset[str] | str:
        """What the message tells `reader`. A player's messages are about their own match:
        its links, offers and times say which thing it is (the offer by DM and in the
        thread are one); a channel's are about many: the whole text."""
        found = frozenset(TOKENS.findall(self.content))
        return found if found and reader.startswith("user:") else self.content


def posts(journal: Path) -> list[Post]:
    """Every message the bot posted (not its edits), in order."""
    rows = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    threads = {str(r["data"]["id"]) for r in rows if r["op"] == "thread"}
    return [
        Post(str(r["where"]), r["dm_user_id"], r["content"], str(r["where"]) in threads)
        for r in rows
        if r["op"] == "post"
    ]


def players(database: Path) -> dict[str, int]:
    """Lichess name -> Discord id, from the simulation's database."""
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT lichess_username, discord_id FROM players").fetchall()
    return {name: discord_id for name, discord_id in rows if discord_id is not None}


def read_twice(found: Iterable[Post], names: dict[str, int]) -> list[tuple[str, str]]:
    """(reader, message) for each message a reader got a second time. A reminder repeats an
    agreed time before the match, or an offer left unanswered, on purpose (the player can
    mute it with /notify): it is counted apart, by `reminders_per_reader`."""
    seen: set[tuple[str, frozenset[str] | str]] = set()
    twice: list[tuple[str, str]] = []
    for post in found:
        if post.content.startswith(REMINDER):
            continue
        for reader in sorted(post.readers(names)):
            key = (reader, post.subject(reader))
            if key in seen:
                twice.append((reader, post.content))
            seen.add(key)
    return twice


def reminders_per_reader(
    found: Iterable[Post], names: dict[str, int]
) -> Counter[tuple[str, frozenset[str] | str]]:
    """How many reminders each reader got of each match time (or unanswered offers)."""
    counts: Counter[tuple[str, frozenset[str] | str]] = Counter()
    for post in found:
        if post.content.startswith(REMINDER):
            for reader in post.readers(names):
                counts[(reader, post.subject(reader))] += 1
    return counts


def threads_named(journal: Path, prefix: str) -> set[str]:
    """The ids of the threads whose name starts with `prefix` ("Final": the Final's)."""
    rows = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    return {
        str(r["data"]["id"])
        for r in rows
        if r["op"] == "thread" and str(r["data"]["name"]).startswith(prefix)
    }
