"""What a simulated championship holds that no page or feed may show, read from its database
as any observer of the file could: the cheat reports' words and the TD's notes, the DMs'
and the TD alerts' own sentences, unrevealed Armageddon bids, Discord ids, the tokens."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from acwc_sim.games import TD_ALERTS
from tests.web_browser.site import TOKENS, Championship

#: A database row id as people would read it (issue 32): "player 17", "match 12", "report 1".
ROW_ID = re.compile(r"(?i)\b(player|match|claim|offer|incident|report|registration) #?\d+\b")
#: Words that name the private procedure itself: a public page never mentions a report.
PRIVATE_WORDS = ("cheat report", "fair-play report", "reported by")
#: A sentence shorter than this is too common to be a DM's own ("Nothing is forfeited.").
SENTENCE = 30

_MARKUP = re.compile(r"<t:\d+(:\w)?>|<@!?\d+>|<#\d+>|\*\*|__|`|~~")
_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+|\s+\|\s+")


def sentences(content: str) -> set[str]:
    """A message's sentences as a page would print them (Discord markup removed)."""
    plain = _MARKUP.sub("", content)
    found = {" ".join(s.split()) for s in _SPLIT.split(plain)}
    return {s for s in found if len(s) >= SENTENCE}


def clock_text(seconds: int) -> str:
    """A bid as players write it (m:ss)."""
    return f"{seconds // 60}:{seconds % 60:02d}"


@dataclass(frozen=True)
class Private:
    """Every private thing of one run: `texts` must appear nowhere (any case), `numbers`
    nowhere as a whole number (Discord ids, unrevealed bids)."""

    texts: dict[str, str]  # the text -> where it comes from
    numbers: dict[str, str]

    def found_in(self, body: str) -> list[str]:
        """What of this shows in `body`, each with where it comes from."""
        lower = body.lower()
        hits = [f"{why}: {text!r}" for text, why in self.texts.items() if text.lower() in lower]
        for number, why in self.numbers.items():
            if re.search(rf"(?<![\w:.]){re.escape(number)}(?![\w:])", body):
                hits.append(f"{why}: {number}")
        return hits


def private_of(run: Championship, discord_ids: tuple[int, ...] = ()) -> Private:
    texts: dict[str, str] = {word: "the cheat report procedure" for word in PRIVATE_WORDS}
    for description, note in run.rows("SELECT description, td_note FROM cheat_reports"):
        texts[description] = "a cheat report's description"
        if note:
            texts[note] = "the TD's note on a cheat report"
    for (reason,) in run.rows("SELECT reason FROM td_decisions WHERE reason IS NOT NULL"):
        texts[reason] = "a TD decision's reason"
    for comment, exception in run.rows("SELECT td_comment, exception_reason FROM registrations"):
        for text in (comment, exception):
            if text:
                texts[text] = "a TD's note on a registration"
    for (reason,) in run.rows(
        "SELECT disqualification_reason FROM players WHERE disqualification_reason IS NOT NULL"
    ):
        texts[reason] = "a disqualification's private reason"
    texts.update(_private_sentences(run))
    for value in TOKENS.values():
        texts[value] = "a token"
    numbers: dict[str, str] = {}
    for (user,) in run.rows("SELECT discord_id FROM players WHERE discord_id IS NOT NULL"):
        numbers[str(user)] = "a player's Discord id"
    for user in discord_ids:
        numbers[str(user)] = "a Discord id of the config (guild, channel, TD)"
    for row in run.rows(
        "SELECT post_channel_id, post_message_id, thread_id FROM rounds UNION ALL "
        "SELECT message_id, thread_id, scoreboard_message_id FROM matches"
    ):
        numbers.update({str(v): "a Discord message or thread id" for v in row if v})
    for key, value in run.rows("SELECT key, value FROM settings WHERE key LIKE 'armageddon:%'"):
        state = json.loads(value)
        if state.get("revealed_at") is None:
            for bid in state.get("bids", {}).values():
                numbers[clock_text(int(bid))] = f"an unrevealed Armageddon bid ({key})"
    return Private(texts, numbers)


def _private_sentences(run: Championship) -> dict[str, str]:
    """The sentences of DMs and TD alerts that no public post also says: a public post's
    words may be on a page (a walkover, a withdrawal), a DM's own may not."""
    public: set[str] = set()
    private: dict[str, str] = {}
    for kind, target, content in run.rows("SELECT kind, target_id, content FROM outbox"):
        if kind == "dm":
            private.update(dict.fromkeys(sentences(content), "a DM"))
        elif target == TD_ALERTS:
            private.update(dict.fromkeys(sentences(content), "a TD alert"))
        else:
            public |= sentences(content)
    return {text: why for text, why in private.items() if text not in public}
