"""A table as a picture (PNG, drawn with Pillow) and as monospace text.

The picture is an opaque white card with dark text, a dark title band and a mid-grey border,
so it reads the same on Discord's dark and light themes. It uses Pillow's bundled font at a
size that stays legible when Discord scales the preview down: 800 to 1600 pixels wide (the
font shrinks, down to a floor, for very wide tables), as tall as the rows need. Numbers are
right-aligned, rows striped, highlighted rows tinted with a bar at the left, totals set apart
by a line.

The text is the same table in a code block, for screen readers and copy-paste, under
Discord's 2000 characters: rows that do not fit are left out with a note (the picture has
them all), the legend never. The terminal (`acwc standings`) prints the same grid and legend
with every row (:func:`render_plain`): one renderer for every place a table is read.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from discord.utils import escape_markdown
from PIL import ImageFont

from bot.discord_limits import MESSAGE_CONTENT
from bot.features.tables.png_bands import BAND_HEIGHT, BandCanvas, banded_png
from bot.features.tables.types import Table

__all__ = [
    "MESSAGE_LIMIT",
    "PICTURE_FILE",
    "STANDINGS_PICTURE",
    "drawable",
    "load_font",
    "render_plain",
    "render_png",
    "render_text",
    "standings_picture",
]

MESSAGE_LIMIT = MESSAGE_CONTENT
STANDINGS_PICTURE = "standings_picture"  # the outbox attachment kind: a table's picture
PICTURE_FILE = "standings.png"
FONT_SIZE = 28
MIN_FONT_SIZE = 16
MIN_WIDTH = 800
MAX_WIDTH = 1600

INK = (30, 31, 34)
MUTED_INK = (78, 80, 88)
CARD = (255, 255, 255)
STRIPE = (238, 240, 243)
BORDER = (92, 95, 102)
GRID = (208, 211, 216)
TITLE_BAND = (35, 39, 42)
TITLE_INK = (255, 255, 255)
HEADER = (212, 215, 220)
HIGHLIGHT = (211, 240, 218)
HIGHLIGHT_BAR = (36, 128, 70)


# --------------------------------------------------------------------------- text


class _TextGrid:
    """The table's lines in the code block, each drawn once: the column widths are those
    of every row, so a line does not depend on which rows are left out."""

    def __init__(self, table: Table, marks: Sequence[bool]) -> None:
        align = table.alignments()
        widths = [
            max([len(header), *(len(row[c]) for row in table.rows)])
            for c, header in enumerate(table.headers)
        ]
        marked = bool(table.highlight) and any(table.highlight)

        def line(cells: Sequence[str], mark: bool) -> str:
            parts = [
                cell.rjust(widths[c]) if align[c] == "right" else cell.ljust(widths[c])
                for c, cell in enumerate(cells)
            ]
            prefix = ("* " if mark else "  ") if marked else ""
            return (prefix + "  ".join(parts)).rstrip()

        self.header = line(table.headers, False)
        self.rule = "-" * (sum(widths) + 2 * (len(widths) - 1) + (2 if marked else 0))
        self.rows = [line(row, mark) for row, mark in zip(table.rows, marks, strict=True)]
        self.body = len(table.rows) - table.total_rows
        self.totals = table.total_rows
        # the body's last `keep_last` rows are never cut: the rows before them are
        self.cuttable = self.body - min(table.keep_last, self.body)
        # prefix[k]: the characters of the first k row lines, a newline after each
        self.prefix = [0]
        for text in self.rows:
            self.prefix.append(self.prefix[-1] + len(text) + 1)

    def lines(self, keep: int) -> list[str]:
        """The grid with the first ``keep`` cuttable rows, the rows never cut, the totals."""
        kept = [*self.rows[:keep], *self.rows[self.cuttable :]]
        lines = [self.header, self.rule]
        for index, text in enumerate(kept):
            if index == keep + self.body - self.cuttable and self.totals:
                lines.append(self.rule)
            lines.append(text)
        if keep < self.cuttable:
            lines.insert(2 + keep, _more(self.cuttable - keep))
        return lines

    def length(self, keep: int) -> int:
        """``len("\\n".join(self.lines(keep)))`` without building the lines."""
        size = len(self.header) + 1 + len(self.rule)
        size += self.prefix[keep] + self.prefix[-1] - self.prefix[self.cuttable]
        if keep < self.cuttable:
            size += len(_more(self.cuttable - keep)) + 1
        if self.totals:  # the rule before them
            size += len(self.rule) + 1
        return size


def _more(rows: int) -> str:
    return f"... {rows} more rows: see the picture"


def _legend(table: Table, marks: Sequence[bool], escape: bool) -> list[str]:
    """What the marks mean, then the footnote (the abbreviations, shared ranks)."""
    clean = escape_markdown if escape else str
    notes = []
    if any(marks) and table.highlight_label:
        mark = "`*`" if escape else "*"
        notes.append(f"{mark} {clean(table.highlight_label)}.")
    if table.footnote:
        notes.append(clean(table.footnote))
    return notes


def render_text(table: Table, *, limit: int = MESSAGE_LIMIT - 10) -> str:
    """The table as a Discord message: the title in bold, the grid in a code block (every
    cell as it is in the picture), the legend and footnote after it; at most ``limit``
    characters. When it is too long the last rows (not the totals, nor the ``keep_last``
    rows that decide a match) are left out with a note, never the legend: a table whose
    marks and abbreviations are cut cannot be read."""
    marks = [table.highlighted(i) for i in range(len(table.rows))]
    head = f"**{escape_markdown(table.title)}**"
    tail = "\n".join(_legend(table, marks, escape=True))
    grid = _TextGrid(table, marks)
    frame = len(head) + 1 + 4 + 1 + 3 + (1 + len(tail) if tail else 0)
    keep = grid.cuttable
    while keep > 0 and frame + grid.length(keep) > limit:  # the length, cheaply
        keep -= 1
    text = "\n".join([head, "```", *grid.lines(keep), "```", *([tail] if tail else [])])
    return text if len(text) <= limit else text[: limit - 1] + "…"  # only a legend of ~2000


def render_plain(table: Table) -> str:
    """The same table for a terminal (`acwc standings`): the title, every row in the same
    grid as Discord's code block, the same legend; no Markdown and no length limit."""
    marks = [table.highlighted(i) for i in range(len(table.rows))]
    grid = _TextGrid(table, marks)
    return "\n".join(
        [table.title, *grid.lines(grid.cuttable), *_legend(table, marks, escape=False)]
    )


@lru_cache(maxsize=16)
def load_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at `size` pixels (every picture of the tables uses it)."""
    return ImageFont.load_default(size=size)


#: Typography the text uses that the picture's font lacks, as the nearest ASCII.
_ASCII = {"–": "-", "—": "-", "½": ".5", "’": "'", "“": '"', "”": '"', "…": "..."}


def drawable(text: str) -> str:
    """The bundled font has printable ASCII (and ·): dashes and the like become their ASCII
    look-alikes (a knock-out's score "5.5–2" drew as "5.5?2"), anything else "?"."""
    text = "".join(_ASCII.get(ch, ch) for ch in text)
    return "".join(ch if " " <= ch <= "~" or ch == "·" else "?" for ch in text)


@dataclass(frozen=True)
class _Layout:
    size: int
    pad: int
    row_height: int
    margin: int
    widths: tuple[int, ...]
    bar: int

    @property
    def table_width(self) -> int:
        return self.bar + sum(self.widths)


def _layout(table: Table, size: int) -> _Layout:
    font = load_font(size)
    pad = round(size * 0.6)
    widths = tuple(
        round(max(font.getlength(drawable(cell)) for cell in [header, *(r[c] for r in table.rows)]))
        + 2 * pad
        for c, header in enumerate(table.headers)
    )
    bar = round(size * 0.3) if any(table.highlight) else 0
    return _Layout(size, pad, round(size * 1.75), round(size * 0.8), widths, bar)


def _fit(table: Table) -> _Layout:
    """The default size, smaller for tables too wide for MAX_WIDTH, then widened to
    MIN_WIDTH by giving the spare room to the text columns (the names)."""
    layout = _layout(table, FONT_SIZE)
    if layout.table_width + 2 * layout.margin > MAX_WIDTH:
        scaled = FONT_SIZE * (MAX_WIDTH - 2 * layout.margin) / layout.table_width
        layout = _layout(table, max(MIN_FONT_SIZE, int(scaled)))
    spare = MIN_WIDTH - 2 * layout.margin - layout.table_width
    if spare > 0:
        align = table.alignments()
        grow = [c for c, a in enumerate(align) if a == "left"] or list(range(len(align)))
        widths = list(layout.widths)
        for i, c in enumerate(grow):
            widths[c] += spare // len(grow) + (1 if i < spare % len(grow) else 0)
        layout = _Layout(
            layout.size, layout.pad, layout.row_height, layout.margin, tuple(widths), layout.bar
        )
    return layout


def _wrap(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: int) -> list[str]:
    """Words onto lines no wider than `width` pixels."""
    average = max(1.0, font.getlength("abcdefghijklmnopqrstuvwxyz0123456789") / 36)
    lines: list[str] = []
    for chars in range(max(8, int(width / average)), 4, -4):
        lines = textwrap.wrap(text, chars) or [""]
        if all(font.getlength(line) <= width for line in lines):
            return lines
    return lines


def render_png(table: Table, *, band_height: int = BAND_HEIGHT) -> bytes:
    """The table as an opaque PNG (see the module docstring for the look), drawn and written
    `band_height` rows of pixels at a time (`png_bands`)."""
    layout = _fit(table)
    size, pad, row_h, margin = layout.size, layout.pad, layout.row_height, layout.margin
    width = layout.table_width + 2 * margin
    inner = width - 2 * margin
    font = load_font(size)
    title_font = load_font(round(size * 1.15))
    note_size = max(14, round(size * 0.72))
    note_font = load_font(note_size)
    title_lines = _wrap(drawable(table.title), title_font, inner - 2 * pad)
    notes = []
    if any(table.highlight) and table.highlight_label:
        notes.append(f"Tinted rows: {table.highlight_label}.")
    if table.footnote:
        notes.append(table.footnote)
    note_lines = [
        line for note in notes for line in _wrap(drawable(note), note_font, inner - 2 * pad)
    ]
    title_line_h = round(size * 1.5)
    note_line_h = round(note_size * 1.4)
    title_h = title_line_h * len(title_lines) + pad * 2
    grid_h = row_h * (len(table.rows) + 1) + (3 if table.total_rows else 0)
    notes_h = note_line_h * len(note_lines) + (pad * 2 if note_lines else pad)
    height = margin + title_h + grid_h + notes_h + margin

    def paint(draw: BandCanvas) -> None:
        border = max(3, size // 8)
        draw.rectangle((0, 0, width - 1, height - 1), outline=BORDER, width=border)

        y = margin
        draw.rectangle((margin, y, width - margin - 1, y + title_h - 1), fill=TITLE_BAND)
        for index, line in enumerate(title_lines):
            centre = y + pad + title_line_h * index + title_line_h // 2
            draw.text(
                (margin + pad, centre),
                line,
                font=title_font,
                fill=TITLE_INK,
                anchor="lm",
                stroke_width=1,  # a bold title from the one regular font
                stroke_fill=TITLE_INK,
            )
        y += title_h

        align = table.alignments()
        lefts = [margin + layout.bar + sum(layout.widths[:c]) for c in range(len(layout.widths))]

        def cells(top: int, values: Sequence[str], ink: tuple[int, int, int], bold: bool) -> None:
            centre = top + row_h // 2
            for c, value in enumerate(values):
                text = drawable(value)
                if align[c] == "right":
                    x, anchor = lefts[c] + layout.widths[c] - pad, "rm"
                else:
                    x, anchor = lefts[c] + pad, "lm"
                draw.text(
                    (x, centre),
                    text,
                    font=font,
                    fill=ink,
                    anchor=anchor,
                    stroke_width=1 if bold else 0,
                    stroke_fill=ink,
                )

        draw.rectangle((margin, y, width - margin - 1, y + row_h - 1), fill=HEADER)
        cells(y, table.headers, INK, True)
        grid_top = y
        y += row_h
        body = len(table.rows) - table.total_rows
        for index, row in enumerate(table.rows):
            if index == body and table.total_rows:
                draw.rectangle((margin, y, width - margin - 1, y + 2), fill=INK)
                y += 3
            fill = HIGHLIGHT if table.highlighted(index) else STRIPE if index % 2 else CARD
            draw.rectangle((margin, y, width - margin - 1, y + row_h - 1), fill=fill)
            if table.highlighted(index):
                draw.rectangle(
                    (margin, y, margin + layout.bar - 1, y + row_h - 1), fill=HIGHLIGHT_BAR
                )
            cells(y, row, INK, index >= body)
            y += row_h
        for left in lefts[1:]:
            draw.line((left, grid_top, left, y - 1), fill=GRID, width=1)
        draw.rectangle((margin, grid_top, width - margin - 1, y - 1), outline=GRID, width=1)

        y += pad
        for line in note_lines:
            draw.text(
                (margin + pad, y + note_line_h // 2),
                line,
                font=note_font,
                fill=MUTED_INK,
                anchor="lm",
            )
            y += note_line_h

    return banded_png((width, height), CARD, paint, reach=size * 2, band_height=band_height)


def standings_picture(args: dict[str, Any]) -> tuple[str, bytes]:
    """The outbox attachment of a table post: the picture of the table the row stores
    (``args["table"]``, `Table.to_json`), drawn when the post is sent, the same every time."""
    return PICTURE_FILE, render_png(Table.from_json(args["table"]))
