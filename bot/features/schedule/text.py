"""Wording of /schedule: the player's matches, upcoming then past, and the calendar's words.

Every time in the reply is a Discord timestamp with its UTC value beside it; the calendar
file holds plain UTC times, which every calendar application converts itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.discord_limits import MESSAGE_CONTENT
from bot.features.matches.text import score
from bot.features.schedule.types import Schedule, ScheduleEntry
from bot.timefmt import discord_time, utc_text
from db.models import MatchState

CALENDAR_FILE = "acwc-schedule.ics"
LIMIT = MESSAGE_CONTENT


def _round(entry: ScheduleEntry) -> str:
    return f"{entry.stage} round {entry.round_number}, board {entry.board}"


def _games(entry: ScheduleEntry) -> str:
    links = " ".join(f"[{n}](<{url}>)" for n, url in enumerate(entry.game_links, start=1))
    return f" · games {links}" if links else ""


def _score(entry: ScheduleEntry) -> str:
    return f"{score(entry.my_score)}–{score(entry.opponent_score)}"


def _outcome(entry: ScheduleEntry) -> str:
    if entry.state is MatchState.FORFEITED:
        if entry.forfeit_won is None:
            return "decided by forfeit"
        return "won by forfeit" if entry.forfeit_won else "lost by forfeit"
    if entry.my_score > entry.opponent_score:
        return f"won {_score(entry)}"
    if entry.my_score < entry.opponent_score:
        return f"lost {_score(entry)}"
    return f"drawn {_score(entry)}"


def upcoming_line(entry: ScheduleEntry) -> str:
    head = f"• {_round(entry)} vs **{entry.opponent}** (match {entry.match_id}): "
    deadline = f"round deadline {discord_time(entry.round_deadline)}"
    if entry.agreed_time is None:
        return head + f"no time agreed yet (see /match) · {deadline}"
    when = discord_time(entry.agreed_time)
    if entry.state is MatchState.IN_PROGRESS:
        return head + f"under way since {when}, {_score(entry)}{_games(entry)}"
    return head + f"{when} · {deadline}"


def past_line(entry: ScheduleEntry) -> str:
    if entry.is_bye:
        return f"• {_round(entry)}: bye"
    played = "was due" if entry.state is MatchState.FORFEITED else "played"
    when = f" · {played} {discord_time(entry.agreed_time)}" if entry.agreed_time else ""
    return (
        f"• {_round(entry)} vs **{entry.opponent}** (match {entry.match_id}): "
        f"{_outcome(entry)}{when}{_games(entry)}"
    )


def earlier(count: int) -> str:
    return f"… and {count} earlier {'match' if count == 1 else 'matches'}"


def calendar_note(events: int) -> str:
    if events == 0:
        return (
            "None of your matches has an agreed time yet, so there is no calendar file: "
            "run /schedule again once a time is agreed."
        )
    times = "time" if events == 1 else "times"
    return (
        f"📎 `{CALENDAR_FILE}` holds your {events} agreed match {times}. Import it again "
        "whenever a time changes: your calendar updates the same event."
    )


def feeds_note(feeds: tuple[str, str]) -> str:
    """The calendar feeds, which a calendar application follows by itself (no import)."""
    own, championship = feeds
    return (
        "🔔 Or subscribe to a calendar feed by its address, and your calendar follows every "
        f"change by itself: your matches <{own}> · every match of the championship "
        f"<{championship}>"
    )


def schedule_reply(schedule: Schedule) -> str:
    """Upcoming then past matches; the oldest past ones give way to stay under the limit."""
    head = [f"📅 **Your matches, {schedule.player}**"]
    feeds = [] if schedule.feeds is None else [feeds_note(schedule.feeds)]
    if not schedule.entries:
        return "\n".join([*head, "You have no matches yet.", *feeds])
    upcoming = ["**Upcoming**", *(upcoming_line(e) for e in schedule.upcoming)]
    if not schedule.upcoming:
        upcoming.append("No match to play at the moment.")
    note = ["", calendar_note(schedule.events), *feeds]
    past = [past_line(e) for e in schedule.past]

    def text(kept: Sequence[str], dropped: int) -> str:
        section = ["**Past**", *([earlier(dropped)] if dropped else []), *kept] if past else []
        return "\n".join([*head, *upcoming, *section, *note])

    for dropped in range(len(past) + 1):
        reply = text(past[dropped:], dropped)
        if len(reply) <= LIMIT:
            return reply
    return text([], len(past))[: LIMIT - 1] + "…"


def calendar_name(short_name: str, player: str) -> str:
    return f"{short_name}: {player}'s matches"


def event_summary(short_name: str, entry: ScheduleEntry, player: str) -> str:
    stage = f" {entry.stage}" if entry.named_in_summary else ""
    return f"{short_name}{stage} round {entry.round_number}: {player} vs {entry.opponent}"


def event_description(entry: ScheduleEntry) -> str:
    lines = [f"{entry.stage} round {entry.round_number}, board {entry.board}."]
    if entry.challenge_url:
        lines.append(f"Game link: {entry.challenge_url}")
    else:
        lines.append("The game link is posted in your match thread at the agreed time.")
    lines.append(f"Round deadline: {utc_text(entry.round_deadline)}")
    return "\n".join(lines)
