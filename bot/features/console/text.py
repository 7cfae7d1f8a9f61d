"""Wording of the console: the audit log for the TD, /help with the rule each command
serves, and the standings tables `acwc standings` prints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.discord_limits import MESSAGE_CONTENT
from bot.features.console.types import AuditLine, AuditPage, CommandEntry
from bot.message_text import quote
from bot.timefmt import discord_time

MESSAGE_LIMIT = MESSAGE_CONTENT
EMBED_TEXT_LIMIT = 4000

# --- /help: the rule each command serves ------------------------------------------------------

# Every command by its full name.
RULES: dict[str, str] = {
    # players
    "help": "I–VIII (this list)",
    "register": "II, III.E.3",
    "status": "II, III.E.3",
    "withdraw": "II, VIII",
    "standings": "III.E.5, III.F.3",
    "pairings": "IV, V.A",
    "schedule": "IV, V",
    "match": "V, III.E.1",
    "offer": "V.B–V.D",
    "accept": "V.G",
    "reschedule": "V.G",
    "choose": "V.E, V.I",
    "timezone": "V.B",
    "notify": "V.G",
    "game": "III.E.1, VI.B",
    "noshow": "VI.D",
    "break": "VI.A",
    "left": "VI.E",
    "report": "VII.A",
    # the TD
    "td registration list": "II, III.E.3",
    "td registration show": "II.A, II.C",
    "td registration approve": "II.B",
    "td registration reject": "II",
    "td registration open": "II",
    "td registration close": "II",
    "td round start": "III.E.2, IV",
    "td round publish": "III.E, IV",
    "td round set-score": "III.E.1, III.F.2",
    "td negotiation assign-time": "V.F, V.I",
    "td negotiation fault": "V.H, V.I",
    "td results void-game": "III.E.1, VI.B",
    "td armageddon rps": "III.G.6.b (2020-2024: equal bids)",
    "td incident overrule": "VI.D, VI.E",
    "td discipline disqualify": "VIII, VI.F",
    "td discipline reinstate": "VIII",
    "td fairplay reports": "VII.A",
    "td fairplay report-state": "VII.B",
    "td console audit": "I",
    "td setup": "I",
}


def _usage(entry: CommandEntry) -> str:
    options = " ".join(f"{name}:" if required else f"[{name}:]" for name, required in entry.options)
    return f"/{entry.name}" + (f" {options}" if options else "")


def help_line(entry: CommandEntry) -> str:
    rule = entry.rule or "not listed"
    label = "rules" if "," in rule or "–" in rule else "rule"
    return f"`{_usage(entry)}` — {entry.description} · {label} {rule}"


def _chunks(lines: Sequence[str], limit: int = EMBED_TEXT_LIMIT) -> list[str]:
    chunks: list[str] = []
    current = ""
    for line in lines:
        if current and len(current) + len(line) + 1 > limit:
            chunks.append(current)
            current = ""
        current += ("\n" if current else "") + line
    if current:
        chunks.append(current)
    return chunks


def help_embeds(entries: Sequence[CommandEntry]) -> list[dict[str, Any]]:
    """One embed of player commands, then the TD's (each split when long)."""
    embeds: list[dict[str, Any]] = []
    for td, title in ((False, "Commands"), (True, "Tournament director commands")):
        lines = [help_line(e) for e in entries if e.td is td]
        for index, chunk in enumerate(_chunks(lines)):
            embeds.append(
                {"title": title if index == 0 else f"{title} (continued)", "description": chunk}
            )
    if embeds:
        embeds[-1]["footer"] = {"text": "Rule numbers are sections of the championship rules."}
    return embeds


# --- /td console audit ----------------------------------------------------------------------------

SUBJECTS = {
    "player": "player",
    "match": "match",
    "incident": "incident",
    "time_offer": "offer",
    "registration": "registration",
    "ownership_challenge": "ownership check",
    "round": "round",
    "stage": "stage",
    "cheat_report": "cheat report",
    "settings": "settings",
    "discord_message": "Discord message",
}


def unknown_player(typed: str) -> str:
    return (
        f"`{quote(typed, 40)}` is not a player of the championship: type their Lichess username. "
        "Nothing is shown."
    )


def unknown_match(match_id: int) -> str:
    return f"There is no match {match_id}. Nothing is shown."


def pairing(a: str, b: str | None) -> str:
    return f"{a}–{b}" if b is not None else f"{a}, bye"


def subject(kind: str, ident: int | None, names: Sequence[str] = ()) -> str:
    """The subject by the names that make it recognisable ("match: Swiss round 3, board 2
    (a vs b)"); its row number only when nothing else names it (a row since deleted, a
    cheat report: issue 32)."""
    label = SUBJECTS.get(kind, kind.replace("_", " "))
    if names:
        return f"{label}: {'; '.join(names)}"
    return label if ident is None else f"{label} {ident}"


def who(line: AuditLine) -> str:
    if line.actor_type == "td":
        return f"TD <@{line.actor_id}>" if line.actor_id else "TD"
    if line.actor_type == "player":
        return f"player <@{line.actor_id}>" if line.actor_id else "a player"
    return "the bot"  # a scheduled job or the system


def audit_line(line: AuditLine) -> str:
    text = f"{discord_time(line.at, 'f')} · {who(line)} · `{line.action}` · {line.subject}"
    if line.reason:
        reason = " ".join(line.reason.split())
        text += f" — {quote(reason, 60)}"
    return text


def audit_reply(page: AuditPage) -> str:
    """The newest entries first, as many as fit in one message, and how many more there are."""
    scope = f" for **{page.scope}**" if page.scope else ""
    if not page.lines:
        return f"No audit entries{scope}."
    head = f"**Audit log{scope}**, newest first ({page.total} entries):"
    shown: list[str] = []
    size = len(head)
    reserve = 120  # the closing line
    for line in page.lines:
        text = audit_line(line)
        if size + len(text) + 1 > MESSAGE_LIMIT - reserve:
            break
        shown.append(text)
        size += len(text) + 1
    more = page.total - len(shown)
    lines = [head, *shown]
    if more:
        lines.append(
            f"… and {more} more. Narrow it with `player:` or `match:`, or run `acwc audit`."
        )
    return "\n".join(lines)


# --- acwc standings ------------------------------------------------------------------------------

STAGE_TITLES = {
    "swiss": "Swiss qualification",
    "tiebreak": "Tiebreak matches",
    "candidates": "Candidates",
    "final": "Final",
}


def stage_not_started(key: str, name: str | None = None) -> str:
    """`acwc standings` for a stage with no table yet (a 2019 stage by its old title)."""
    return f"{STAGE_TITLES.get(key) or name or key}: not started."


def unknown_stage(typed: str, stages: Sequence[str]) -> str:
    """The format's stage keys, in order."""
    if len(stages) == 1:
        return f"Unknown stage {quote(typed, 40)!r}: choose {stages[0]}."
    return f"Unknown stage {quote(typed, 40)!r}: choose {', '.join(stages[:-1])} or {stages[-1]}."


def match_name(label: str) -> str:
    """`label`: the match's place and players (`match_label`)."""
    return f"match {label}"


def round_name(stage: str, number: int) -> str:
    return f"{stage} round {number}"


def player_in_match(name: str, match: str) -> str:
    return f"{name} in {match}"
