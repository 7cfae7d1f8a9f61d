"""Ids that arrive from users (button custom ids, command options) before they reach the DB.

A database id is a positive 64-bit signed integer. Anything else (a 40-digit number, -1)
is refused before a query is built, since SQLite cannot even bind it.
"""

from __future__ import annotations

MAX_ID = 2**63 - 1


def valid_id(value: object) -> bool:
    """True for an int (not a bool) that can be a row id."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_ID


def parse_id(text: str) -> int | None:
    """The id written in `text` (plain decimal digits only), or None."""
    if not text.isascii() or not text.isdigit() or len(text) > 19:
        return None
    value = int(text)
    return value if valid_id(value) else None
