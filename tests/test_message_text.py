"""Texts that fit: quoted user text is cut with a visible mark, long texts are split between
lines into messages within the limit, every line kept, in order."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from bot.message_text import CONTINUED, SHORTENED, fit, quote, split_parts, split_text

MARK = re.compile(r" \(part \d+ of \d+\)$")


def test_a_short_quote_is_itself_and_a_long_one_is_marked() -> None:
    assert quote("fine", 10) == "fine"
    cut = quote("x" * 4800, 1000)
    assert len(cut) == 1000 and cut.endswith(SHORTENED)
    assert fit("y" * 2001).endswith(SHORTENED) and len(fit("y" * 2001)) == 2000


@given(
    lines=st.lists(st.text(st.characters(blacklist_characters="\n"), max_size=150), max_size=60),
    limit=st.integers(200, 2000),
)
def test_every_part_fits_and_every_line_is_kept_in_order(lines: list[str], limit: int) -> None:
    parts = split_parts("Header", lines, limit=limit, continued=CONTINUED)
    assert all(len(p) <= limit for p in parts)
    shown = [MARK.sub("", line) for p in parts for line in p.split("\n")]
    if len(parts) == 1:
        assert parts == ["\n".join(["Header", *lines])]
        return
    kept = [line for line in shown if line not in ("Header", CONTINUED)]
    assert kept == [line for line in lines if line not in ("Header", CONTINUED)]
    assert all(f"(part {k} of {len(parts)})" in p for k, p in enumerate(parts, start=1))


def test_a_line_longer_than_a_message_is_split_not_cut() -> None:
    """A 5,000-character line (a long comment, one word or many) is delivered whole, over
    several messages; nothing is shortened (this test asserted a cut before)."""
    parts = split_text("head\n" + "z" * 5000)
    assert all(len(p) <= 2000 for p in parts) and not any(SHORTENED in p for p in parts)
    assert sum(p.count("z") for p in parts) == 5000
    words = " ".join(f"w{i}" for i in range(1500))  # about 7,000 characters, one line
    joined = " ".join(split_text(words))
    assert [w for w in joined.split() if w.startswith("w")] == words.split()
