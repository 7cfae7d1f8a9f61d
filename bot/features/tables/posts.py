"""A table posted in a channel: all of its rows, over as many messages as they take.

The `/standings` answer may leave rows out of its text because the picture beside it has
them all; an announcement has no picture (the outbox posts text), so there a table of 24
players or more (a Swiss of 256 lists 256 rows) goes over several messages, each a table of
its own under the title with "(part k of n)", the totals and the footnote in the last.
"""

from __future__ import annotations

from dataclasses import replace

from bot.features.tables.render import MESSAGE_LIMIT, render_text
from bot.features.tables.types import Table

__all__ = ["post_texts"]

_UNLIMITED = 10**9
LEFT_OUT = "more rows: see the picture"  # how render_text says it left rows out
_PART = " (part {k} of {n})"


def post_texts(table: Table, *, limit: int = MESSAGE_LIMIT - 10) -> list[str]:
    """The messages that show every row of `table` (one if its rows fit: the usual text)."""
    text = render_text(table, limit=limit)
    if LEFT_OUT not in text:
        return [text]  # every row is in, and the legend whole
    body = len(table.rows) - table.total_rows
    marks = [table.highlighted(i) for i in range(len(table.rows))]
    reserve = len(_PART.format(k=99, n=99))
    chunks: list[range] = []
    start = 0
    while start < body:
        end = start + 1
        while end < body and _fits(table, marks, start, end + 1, body, reserve, limit):
            end += 1
        chunks.append(range(start, end))
        start = end
    texts = []
    for k, rows in enumerate(chunks, start=1):
        last = k == len(chunks)
        part = _part(table, marks, rows.start, rows.stop, body, last=last)
        title = table.title + _PART.format(k=k, n=len(chunks))
        texts.append(render_text(replace(part, title=title), limit=limit))
    return texts


def _fits(
    table: Table, marks: list[bool], start: int, end: int, body: int, reserve: int, limit: int
) -> bool:
    last = end == body
    size = len(render_text(_part(table, marks, start, end, body, last=last), limit=_UNLIMITED))
    return size + reserve <= limit


def _part(table: Table, marks: list[bool], start: int, end: int, body: int, *, last: bool) -> Table:
    """Rows start..end of the body; the last part also has the totals and the footnote."""
    kept = [*range(start, end), *(range(body, len(table.rows)) if last else ())]
    return replace(
        table,
        rows=tuple(table.rows[i] for i in kept),
        highlight=tuple(marks[i] for i in kept) if table.highlight else (),
        total_rows=table.total_rows if last else 0,
        footnote=table.footnote if last else "",
    )
