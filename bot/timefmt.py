"""How times are shown: a Discord timestamp (each reader's local time) with the UTC value."""

from __future__ import annotations

from datetime import UTC, datetime

from discord.utils import TimestampStyle, format_dt


def utc_text(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def discord_time(value: datetime, style: TimestampStyle = "F") -> str:
    """`<t:…:F>` renders in the reader's zone; the UTC text beside it is what the rules use."""
    return f"{format_dt(value, style)} ({utc_text(value)})"
