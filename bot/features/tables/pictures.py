"""The /standings answer (text and picture) drawn once per table, not once per call.

Drawing the picture of 500 players takes seconds (Pillow lays out thousands of cells and
compresses a tall PNG), and the table only changes when a result, a round or a player does.
So the answer is kept by the table itself: a `Table` is an immutable value, and two equal
tables have the same text and the same picture. The key is the content, never a counter,
so nothing can go stale: not after a TD's correction, nor in a restarted process (which
starts empty and draws again). The few latest tables are kept; a picture asked for while it
is being drawn is awaited, not drawn twice.

Drawn ahead of time (`draw_ahead`, turned on by the cog): the current standings when the
bot starts and after each transaction that changed the table, so that /standings usually
finds its picture ready instead of making someone wait seconds for it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import event as orm_event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from bot.errors import WrongStage
from bot.features.tables.render import render_png, render_text
from bot.features.tables.types import Table

log = logging.getLogger(__name__)

__all__ = ["StandingsPictures"]

KEEP = 4  # tables kept: the current one and a few others (an earlier stage, the last one)
_REDRAW = "tables.redraw"  # the session.info flag: a drawing after commit is already asked


@dataclass
class _Drawn:
    text: str
    png: asyncio.Future[bytes]


class StandingsPictures:
    """Text and PNG of the latest tables, by content; `current` reads the current table."""

    def __init__(self, current: Callable[[], Awaitable[Table]], keep: int = KEEP) -> None:
        self._current = current
        self._keep = keep
        self._drawn: OrderedDict[Table, _Drawn] = OrderedDict()
        self._ahead = False
        self._drawing: asyncio.Task[None] | None = None
        self._again = False

    def has(self, table: Table) -> bool:
        """Whether the picture of `table` is drawn or being drawn."""
        return table in self._drawn

    async def answer(self, table: Table) -> tuple[str, bytes]:
        """The text and the PNG of `table`, drawn (in a thread) only the first time."""
        drawn = self._entry(table)
        return drawn.text, await asyncio.shield(drawn.png)

    def _entry(self, table: Table) -> _Drawn:
        drawn = self._drawn.get(table)
        if drawn is not None and not (drawn.png.done() and drawn.png.exception()):
            self._drawn.move_to_end(table)
            return drawn
        png = asyncio.ensure_future(asyncio.to_thread(render_png, table))
        # a failed drawing is not kept (the next call draws again); the error is the caller's
        png.add_done_callback(lambda f: f.cancelled() or f.exception())
        drawn = _Drawn(render_text(table), png)
        self._drawn[table] = drawn
        while len(self._drawn) > self._keep:
            self._drawn.popitem(last=False)
        return drawn

    # --- ahead of time ----------------------------------------------------------------------

    def draw_ahead(self, on: bool) -> None:
        """Draw the current table now and after every change (on), or stop and drop a
        drawing under way (off: the bot is closing)."""
        self._ahead = on
        if on:
            self._draw_soon()
        elif self._drawing is not None:
            self._drawing.cancel()
            self._drawing = None

    async def drawn(self) -> None:
        """Wait for the drawing ahead under way, if any."""
        while self._drawing is not None and not self._drawing.done():
            await asyncio.shield(self._drawing)

    async def on_table_changed(self, session: AsyncSession, _event: Any, _now: datetime) -> None:
        """An event that can change the table: draw it again once this transaction commits
        (before, it would read the table as it was; inside, the transaction would last)."""
        if not self._ahead or session.info.get(_REDRAW):
            return
        session.info[_REDRAW] = True

        def committed(_session: Session) -> None:
            session.info.pop(_REDRAW, None)
            self._draw_soon()

        orm_event.listen(session.sync_session, "after_commit", committed, once=True)

    def _draw_soon(self) -> None:
        if not self._ahead:
            return
        if self._drawing is not None and not self._drawing.done():
            self._again = True  # the table changed while it was being read or drawn
            return
        self._drawing = asyncio.get_running_loop().create_task(self._draw_current())

    async def _draw_current(self) -> None:
        while True:
            self._again = False
            try:
                await self.answer(await self._current())
            except WrongStage:  # nothing to show yet
                pass
            except Exception:
                log.exception("the standings picture was not drawn ahead of time")
            if not self._again:
                return
