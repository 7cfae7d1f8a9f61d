"""The player's calendar file: one VEVENT per match with an agreed time, built with icalendar.

A calendar application recognises an event by its UID and keeps the version with the highest
SEQUENCE, so each match has one UID for good (`match-<id>@<edition>.acwc`) and its SEQUENCE
is how often its time changed after the first agreement: a moved match updates the event
the player imported before instead of adding a second one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from icalendar import Calendar, Event

from bot.features.schedule import text as wording
from bot.features.schedule.types import ScheduleEntry


def slug(name: str) -> str:
    """`ACWC 2019` -> `acwc-2019`: the edition's part of every UID."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "championship"


def event_uid(match_id: int, short_name: str) -> str:
    return f"match-{match_id}@{slug(short_name)}.acwc"


def calendar_file(
    entries: Sequence[ScheduleEntry],
    *,
    player: str,
    short_name: str,
    duration: timedelta,
    now: datetime,
) -> tuple[bytes, int] | None:
    """The .ics bytes and the number of events, or None when no match has an agreed time."""
    timed = [e for e in entries if e.agreed_time is not None and not e.is_bye]
    if not timed:
        return None
    calendar = Calendar()
    calendar.add("prodid", f"-//{short_name}//acwc-bot schedule//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", wording.calendar_name(short_name, player))
    stamp = now.astimezone(UTC)
    for entry in timed:
        assert entry.agreed_time is not None and entry.opponent is not None
        start = entry.agreed_time.astimezone(UTC)
        event = Event()
        event.add("uid", event_uid(entry.match_id, short_name))
        event.add("dtstamp", stamp)
        event.add("dtstart", start)
        event.add("dtend", start + duration)
        event.add("sequence", entry.time_changes)
        event.add("summary", wording.event_summary(short_name, entry, player))
        event.add("description", wording.event_description(entry))
        if entry.challenge_url:
            event.add("url", entry.challenge_url)
        calendar.add_component(event)
    return bytes(calendar.to_ical()), len(timed)
