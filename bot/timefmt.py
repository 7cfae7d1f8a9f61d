"""How times are shown: a Discord timestamp (each reader's local time) with the UTC value."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from discord.utils import TimestampStyle, format_dt


def utc_text(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def discord_time(value: datetime, style: TimestampStyle = "F") -> str:
    """`<t:…:F>` renders in the reader's zone; the UTC text beside it is what the rules use."""
    return f"{format_dt(value, style)} ({utc_text(value)})"


def deadline_time(end: datetime) -> str:
    """A deadline that is checked at `end` ("the offers are due before Thursday 00:00"),
    written as its last second, the way a round's end is (Wednesday 23:59:59 UTC, shown
    23:59): the day it names is the day the rules mean."""
    return discord_time(end - timedelta(seconds=1))
