"""A tall picture drawn and encoded band by band, so that its memory does not grow with its
height: a 256-player standings table is 887 x 12,775 pixels, 34 MB as one RGB image (47 MB at
the peak, with the encoder's copy), and about 3 MB a band this way (docs/MEASUREMENTS.md,
peak memory of a 256-player championship).

The drawing code runs once per band on a `BandCanvas`, which shifts every shape by the band's
top and skips the ones wholly outside it; Pillow clips what crosses the band's edges, so the
bands join into exactly the picture one whole image would give (tests/features/tables). pypng
writes the PNG from the rows as they come.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any

import png
from PIL import Image, ImageDraw

#: Rows of pixels drawn at once.
BAND_HEIGHT = 1024
RGB = tuple[int, int, int]


class BandCanvas:
    """ImageDraw's calls the tables use, in the whole picture's coordinates, onto one band."""

    def __init__(self, image: Image.Image, top: int, reach: int) -> None:
        self._draw = ImageDraw.Draw(image)
        self._top = top
        self._bottom = top + image.height
        self._reach = reach  # how far a text's ink may lie from its anchor, up or down

    def _misses(self, y0: float, y1: float) -> bool:
        return y1 < self._top or y0 >= self._bottom

    def rectangle(self, box: tuple[int, int, int, int], **style: Any) -> None:
        x0, y0, x1, y1 = box
        if not self._misses(y0, y1):
            self._draw.rectangle((x0, y0 - self._top, x1, y1 - self._top), **style)

    def line(self, xy: tuple[int, int, int, int], **style: Any) -> None:
        x0, y0, x1, y1 = xy
        if not self._misses(min(y0, y1), max(y0, y1)):
            self._draw.line((x0, y0 - self._top, x1, y1 - self._top), **style)

    def text(self, xy: tuple[int, int], text: str, **style: Any) -> None:
        x, y = xy
        if not self._misses(y - self._reach, y + self._reach):
            self._draw.text((x, y - self._top), text, **style)


def banded_png(
    size: tuple[int, int],
    background: RGB,
    paint: Callable[[BandCanvas], None],
    *,
    reach: int,
    band_height: int = BAND_HEIGHT,
) -> bytes:
    """The PNG of a `size` picture on `background` that `paint` draws (`reach`: the most a
    text's ink lies above or below its anchor)."""
    width, height = size

    def rows() -> Iterator[bytes]:
        stride = width * 3
        for top in range(0, height, band_height):
            band = Image.new("RGB", (width, min(band_height, height - top)), background)
            paint(BandCanvas(band, top, reach))
            pixels = band.tobytes()
            for row in range(band.height):
                yield pixels[row * stride : (row + 1) * stride]

    out = io.BytesIO()
    png.Writer(width, height, greyscale=False, bitdepth=8, compression=6).write(out, rows())
    return out.getvalue()
