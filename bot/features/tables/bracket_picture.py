"""The bracket as a picture (PNG, drawn with Pillow), in the tables' look (`render.py`: an
opaque white card, a dark title band, the bundled font, tinted winners with a bar).

Each column of the bracket is a column of boxes, left to right; a box is the match's name,
its two slots (the player in the regular font with where the seat came from under it, or
the seat in grey while nobody is known; the score at the right; the winner tinted) and the
lines under it (who won and how, where the winner and the loser go). A seat that a match of
the bracket fills is joined to that match by a line, dark for its winner, grey for its
loser. The champion, once decided, is a band at the bottom.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from bot.features.tables import text as wording
from bot.features.tables.render import (
    BORDER,
    CARD,
    GRID,
    HEADER,
    HIGHLIGHT,
    HIGHLIGHT_BAR,
    INK,
    MUTED_INK,
    TITLE_BAND,
    TITLE_INK,
    drawable,
    load_font,
)
from bot.features.tables.types import Bracket, BracketMatch

__all__ = [
    "BRACKET_FILE",
    "BRACKET_PICTURE",
    "bracket_picture",
    "bracket_png",
    "render_bracket_png",
]

BRACKET_PICTURE = "bracket_picture"  # the outbox attachment kind: a bracket's picture
BRACKET_FILE = "bracket.png"
SIZE = 26  # the players' font; the seats and notes are smaller
SMALL = 18
MIN_WIDTH = 800
MAX_WIDTH = 1600
MIN_BOX = 360
MAX_BOX = 620
GAP = 96  # between columns, where the lines run
LOSER_LINE = (150, 153, 160)

Box = tuple[int, int, int, int]  # left, top, right, bottom


@dataclass(frozen=True)
class _Metrics:
    pad: int = 12
    head: int = round(SIZE * 1.5)
    name: int = round(SIZE * 1.3)
    seat: int = round(SMALL * 1.3)
    note: int = round(SMALL * 1.4)
    bar: int = 8

    @property
    def slot(self) -> int:
        return self.name + self.seat

    def box_height(self, match: BracketMatch) -> int:
        return self.head + 2 * self.slot + len(match.notes) * self.note + self.pad


M = _Metrics()


def _box_width(bracket: Bracket) -> int:
    font, small = load_font(SIZE), load_font(SMALL)
    widest = 0.0
    for column in bracket.columns:
        for match in column:
            widest = max(widest, font.getlength(drawable(match.name)))
            widest = max(widest, *(small.getlength(drawable(n)) for n in match.notes), 0.0)
            for slot in match.slots:
                name = font.getlength(drawable(slot.player or "")) + font.getlength("00.5")
                widest = max(widest, name + 2 * M.pad, small.getlength(drawable(slot.origin)))
    return max(MIN_BOX, min(MAX_BOX, round(widest) + 2 * M.pad + M.bar))


def _fitted(text: str, font: Any, width: float) -> str:
    """`text` cut with "..." to `width` pixels (a name longer than a box)."""
    text = drawable(text)
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "...") > width:
        text = text[:-1]
    return text + "..."


def render_bracket_png(bracket: Bracket) -> bytes:
    """The bracket as an opaque PNG (see the module docstring for the look)."""
    font, small = load_font(SIZE), load_font(SMALL)
    title_font, head_font = load_font(round(SIZE * 1.15)), load_font(SMALL)
    margin, pad = round(SIZE * 0.8), M.pad
    box_w = _box_width(bracket)
    columns = len(bracket.columns)
    exits = [e for column in bracket.columns for m in column for e in m.exits]
    exit_w = round(max((small.getlength(drawable(e)) for e in exits), default=0))
    beyond = GAP // 2 + exit_w + pad if exits else 0  # the arrows out of the bracket
    inner = columns * box_w + (columns - 1) * GAP + beyond
    title_w = round(title_font.getlength(drawable(bracket.title))) + 2 * pad
    width = min(MAX_WIDTH, max(MIN_WIDTH, inner + 2 * margin, title_w + 2 * margin))
    left0 = (width - inner) // 2
    title = _fitted(bracket.title, title_font, width - 2 * margin - 2 * pad)
    title_h = round(SIZE * 1.5) + 2 * pad
    heading_h = round(SMALL * 1.6)
    vgap = round(SIZE * 1.2)
    heights = [[M.box_height(m) for m in column] for column in bracket.columns]
    area_h = max(sum(h) + (len(h) - 1) * vgap for h in heights)
    area_top = margin + title_h + pad + heading_h
    champion_h = round(SIZE * 1.8) if bracket.champion else 0
    height = area_top + area_h + pad + champion_h + margin

    image = Image.new("RGB", (width, height), CARD)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width - 1, height - 1), outline=BORDER, width=max(3, SIZE // 8))
    draw.rectangle((margin, margin, width - margin - 1, margin + title_h - 1), fill=TITLE_BAND)
    centre = margin + title_h // 2
    draw.text(
        (margin + pad, centre),
        title,
        font=title_font,
        fill=TITLE_INK,
        anchor="lm",
        stroke_width=1,
        stroke_fill=TITLE_INK,
    )

    boxes: list[list[Box]] = []
    for c, column in enumerate(bracket.columns):
        left = left0 + c * (box_w + GAP)
        heading = _fitted(bracket.headings[c], head_font, box_w)
        draw.text(
            (left, area_top - heading_h // 2), heading, font=head_font, fill=MUTED_INK, anchor="lm"
        )
        spare = (area_h - sum(heights[c])) / len(column)
        top = float(area_top)
        placed: list[Box] = []
        for h in heights[c]:
            y = round(top + spare / 2)
            placed.append((left, y, left + box_w, y + h))
            top += h + spare
        boxes.append(placed)

    for c, column in enumerate(bracket.columns):  # the lines first, the boxes over them
        for match, (left, top, _, _) in zip(column, boxes[c], strict=True):
            for s, slot in enumerate(match.slots):
                if slot.feeder is None:
                    continue
                fc, fr = slot.feeder
                _, ft, fright, fbottom = boxes[fc][fr]
                y1 = (ft + fbottom) // 2 + (6 if slot.loser else -6)
                y2 = top + M.head + s * M.slot + M.slot // 2
                xm = fright + (GAP * 2 // 3 if slot.loser else GAP // 3)
                colour, line_w = (LOSER_LINE, 2) if slot.loser else (INK, 3)
                draw.line(
                    [(fright, y1), (xm, y1), (xm, y2), (left, y2)],
                    fill=colour,
                    width=line_w,
                    joint="curve",
                )

    for c, column in enumerate(bracket.columns):
        for match, box in zip(column, boxes[c], strict=True):
            _draw_match(draw, match, box, font, small)
            _draw_exits(draw, match.exits, box, small)

    if bracket.champion:
        y = area_top + area_h + pad
        draw.rectangle((margin, y, width - margin - 1, y + champion_h - 1), fill=HIGHLIGHT)
        draw.rectangle((margin, y, margin + M.bar - 1, y + champion_h - 1), fill=HIGHLIGHT_BAR)
        line = _fitted(wording.champion_line(bracket.champion), title_font, width - 4 * margin)
        draw.text(
            (width // 2, y + champion_h // 2),
            line,
            font=title_font,
            fill=INK,
            anchor="mm",
            stroke_width=1,
            stroke_fill=INK,
        )

    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _draw_match(
    draw: ImageDraw.ImageDraw, match: BracketMatch, box: Box, font: Any, small: Any
) -> None:
    left, top, right, _ = box
    pad = M.pad
    draw.rectangle(box, fill=CARD, outline=GRID, width=2)
    draw.rectangle((left, top, right, top + M.head - 1), fill=HEADER)
    draw.text(
        (left + pad, top + M.head // 2),
        _fitted(match.name, font, right - left - 2 * pad),
        font=font,
        fill=INK,
        anchor="lm",
        stroke_width=1,
        stroke_fill=INK,
    )
    y = top + M.head
    for slot in match.slots:
        if slot.won:
            draw.rectangle((left + 1, y, right - 1, y + M.slot - 1), fill=HIGHLIGHT)
            draw.rectangle((left + 1, y, left + M.bar, y + M.slot - 1), fill=HIGHLIGHT_BAR)
        text_left = left + M.bar + pad
        score_w = font.getlength(slot.score) + pad if slot.score else 0
        room = right - text_left - pad - score_w
        if slot.player is None:  # a seat nobody is known for yet: its origin, in grey
            draw.text(
                (text_left, y + M.slot // 2),
                _fitted(slot.origin, font, room),
                font=font,
                fill=MUTED_INK,
                anchor="lm",
            )
        else:
            bold = 1 if slot.won else 0
            draw.text(
                (text_left, y + M.name // 2 + 4),
                _fitted(slot.player, font, room),
                font=font,
                fill=INK,
                anchor="lm",
                stroke_width=bold,
                stroke_fill=INK,
            )
            draw.text(
                (text_left, y + M.name + M.seat // 2),
                _fitted(slot.origin, small, room),
                font=small,
                fill=MUTED_INK,
                anchor="lm",
            )
        if slot.score:
            draw.text(
                (right - pad, y + M.slot // 2),
                slot.score,
                font=font,
                fill=INK,
                anchor="rm",
                stroke_width=1 if slot.won else 0,
                stroke_fill=INK,
            )
        y += M.slot
        draw.line((left, y, right, y), fill=GRID, width=1)
    y += pad // 2
    for note in match.notes:
        draw.text(
            (left + pad, y + M.note // 2),
            _fitted(note, small, right - left - 2 * pad),
            font=small,
            fill=MUTED_INK,
            anchor="lm",
        )
        y += M.note


def _draw_exits(draw: ImageDraw.ImageDraw, exits: tuple[str, ...], box: Box, small: Any) -> None:
    """An arrow from the box to each stage outside the bracket its players go on to."""
    _, top, right, bottom = box
    for index, label in enumerate(exits):
        y = (top + bottom) // 2 + (index - (len(exits) - 1) / 2) * M.note
        tip = right + GAP // 2
        draw.line([(right, y), (tip, y)], fill=INK, width=3)
        draw.polygon([(tip, y - 7), (tip + 12, y), (tip, y + 7)], fill=INK)
        draw.text((tip + 18, y), drawable(label), font=small, fill=INK, anchor="lm")


@lru_cache(maxsize=4)
def bracket_png(bracket: Bracket) -> bytes:
    """`render_bracket_png` once per bracket: a bracket is an immutable value, and
    /standings asks for the same one between two results."""
    return render_bracket_png(bracket)


def bracket_picture(args: dict[str, Any]) -> tuple[str, bytes]:
    """The outbox attachment of a bracket post: the picture of the bracket the row stores
    (``args["bracket"]``, `Bracket.to_json`), drawn when the post is sent."""
    return BRACKET_FILE, render_bracket_png(Bracket.from_json(args["bracket"]))
