"""The calendars, built with icalendar: one VEVENT per match with an agreed time, whether
the player's file attached to /schedule or a feed served on the web (`feeds.py`).

A calendar application recognises an event by its UID and keeps the version with the highest
SEQUENCE, so each match has one UID for good (`match-<id>@<edition>.acwc`: the match's row,
never a Discord id, and nothing a person reads) and its SEQUENCE grows with every change: a
moved match updates the event imported or subscribed to before instead of adding a second
one. Times are plain UTC (`DTSTART:20191009T190000Z`), so no VTIMEZONE is needed: every
calendar application converts them to its reader's zone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from icalendar import Calendar, Event, vDuration

from bot.features.schedule import text as wording
from bot.features.schedule.types import ScheduleEntry


def slug(name: str) -> str:
    """`ACWC 2019` -> `acwc-2019`: the edition's part of every UID."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "championship"


def event_uid(match_id: int, short_name: str) -> str:
    return f"match-{match_id}@{slug(short_name)}.acwc"


@dataclass(frozen=True)
class CalendarEvent:
    """One match's event, whoever's calendar it goes into. `modified` is when what it says
    last changed (a feed's LAST-MODIFIED and DTSTAMP); None: the file's build time."""

    match_id: int
    start: datetime
    sequence: int
    summary: str
    description: str
    url: str | None = None
    modified: datetime | None = None


@dataclass(frozen=True)
class CalendarHead:
    """What the calendar says of itself. `feed`: a subscribed calendar, which has no METHOD
    (RFC 5545 3.8.7.2: its DTSTAMP is then when the event last changed, so the same data
    gives the same bytes) and asks to be read again hourly (RFC 7986 REFRESH-INTERVAL,
    and Apple's and Outlook's X-PUBLISHED-TTL)."""

    name: str  # X-WR-CALNAME, the name a calendar application shows
    short_name: str  # the edition: PRODID and every UID
    duration: timedelta  # each event's length: the time a match is expected to take
    feed: bool = False


REFRESH = timedelta(hours=1)


def calendar_bytes(
    events: Sequence[CalendarEvent], head: CalendarHead, *, now: datetime | None = None
) -> bytes:
    """The .ics bytes: CRLF line endings and lines folded at 75 octets (the library's).
    `now` stamps the events that carry no `modified` of their own (the /schedule file)."""
    calendar = Calendar()
    calendar.add("prodid", f"-//{head.short_name}//acwc-bot schedule//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    if head.feed:
        # Written as durations (PT1H) by hand: the library knows neither property's type.
        calendar.add("refresh-interval", vDuration(REFRESH), parameters={"VALUE": "DURATION"})
        calendar.add("x-published-ttl", vDuration(REFRESH))
    else:
        calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", head.name)
    for item in events:
        start = item.start.astimezone(UTC)
        event = Event()
        event.add("uid", event_uid(item.match_id, head.short_name))
        stamp = item.modified or now
        if stamp is None:
            raise ValueError("an event without `modified` needs `now`")
        event.add("dtstamp", stamp.astimezone(UTC))
        if item.modified is not None:
            event.add("last-modified", item.modified.astimezone(UTC))
        event.add("dtstart", start)
        event.add("dtend", start + head.duration)
        event.add("sequence", item.sequence)
        event.add("summary", item.summary)
        event.add("description", item.description)
        if item.url:
            event.add("url", item.url)
        calendar.add_component(event)
    return bytes(calendar.to_ical())


def calendar_file(
    entries: Sequence[ScheduleEntry],
    *,
    player: str,
    short_name: str,
    duration: timedelta,
    now: datetime,
) -> tuple[bytes, int] | None:
    """The file /schedule attaches and the number of its events, or None when no match
    has an agreed time."""
    timed = [e for e in entries if e.agreed_time is not None and not e.is_bye]
    if not timed:
        return None
    events = [
        CalendarEvent(
            match_id=entry.match_id,
            start=entry.agreed_time,
            sequence=entry.time_changes,
            summary=wording.event_summary(short_name, entry, player),
            description=wording.event_description(entry),
            url=entry.challenge_url,
        )
        for entry in timed
        if entry.agreed_time is not None
    ]
    head = CalendarHead(wording.calendar_name(short_name, player), short_name, duration)
    return calendar_bytes(events, head, now=now), len(events)
