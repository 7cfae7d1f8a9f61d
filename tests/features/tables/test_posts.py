"""An announced table shows every row: over several messages when one cannot hold them."""

from __future__ import annotations

import re

from bot.features.tables.posts import post_texts
from bot.features.tables.render import render_text
from bot.features.tables.types import Table


def table(rows: int) -> Table:
    return Table(
        title="Swiss standings after round 11",
        headers=("#", "Player", "Pts", "BH"),
        rows=tuple(
            (str(i), f"Player{i:03d}", f"{i % 9}.5", str(i % 40)) for i in range(1, rows + 1)
        ),
        highlight=tuple(i < 3 for i in range(rows)),
        highlight_label="in the top 3",
        footnote="Pts: points. BH: Buchholz.",
    )


def test_a_table_that_fits_is_the_usual_text() -> None:
    small = table(10)
    assert post_texts(small) == [render_text(small)]


def test_a_long_table_is_split_with_every_row_once() -> None:
    big = table(256)
    texts = post_texts(big)
    assert len(texts) >= 3
    assert all(len(t) <= 1990 for t in texts)
    assert all(f"(part {k} of {len(texts)})" in t.splitlines()[0] for k, t in enumerate(texts, 1))
    shown = [name for t in texts for name in re.findall(r"Player\d{3}", t)]
    assert shown == [f"Player{i:03d}" for i in range(1, 257)]
    assert all("see the picture" not in t for t in texts)
    assert [("Buchholz" in t) for t in texts] == [False] * (len(texts) - 1) + [True]
    assert "in the top 3" in texts[0]


def test_the_text_says_so_when_it_leaves_rows_out() -> None:
    """post_texts relies on render_text's note for the rows it leaves out."""
    assert "more rows: see the picture" in render_text(table(256))
