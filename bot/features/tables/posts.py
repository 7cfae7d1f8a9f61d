"""The tables' posts in the announcement channel, through the outbox: a table (after a
round, a final match's scoreboard) and a bracket, each as its text with its picture
attached, drawn when the post is sent from the plain values the row stores."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.features.tables.bracket_picture import BRACKET_PICTURE
from bot.features.tables.render import STANDINGS_PICTURE, render_text
from bot.features.tables.text import bracket_text
from bot.features.tables.types import Bracket, Table
from bot.outbox import enqueue_channel

__all__ = ["post_bracket", "post_table"]


def post_table(session: AsyncSession, channel: int, table: Table, now: datetime) -> None:
    """One post per table: its text (the rows that fit, the legend whole) with its picture
    attached, which has every row, as /standings answers."""
    enqueue_channel(
        session,
        channel_id=channel,
        now=now,
        content=render_text(table),
        attachment=(STANDINGS_PICTURE, {"table": table.to_json()}),
    )


def post_bracket(session: AsyncSession, channel: int, bracket: Bracket, now: datetime) -> None:
    """A bracket post: its lines as the text (within Discord's 2,000 characters), its
    picture attached."""
    enqueue_channel(
        session,
        channel_id=channel,
        now=now,
        content=bracket_text(bracket),
        attachment=(BRACKET_PICTURE, {"bracket": bracket.to_json()}),
    )
