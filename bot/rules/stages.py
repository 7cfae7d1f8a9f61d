"""What the rules text decides about stages and their rounds, over plain values: when a
stage's rounds fall (rule IV), ranks shared after withdrawals, who is through a cut and who
is tied across it (rule III.E.4-5), and what the Candidates table decides (rule III.F.3).

The rounds service (`bot.features.rounds`) loads the tables and calls these; docs/RULES.md
maps each rule to its function.
"""

from __future__ import annotations

from datetime import datetime, timedelta


def round_window(first_start: datetime, round_days: int, number: int) -> tuple[datetime, datetime]:
    """Round ``number`` of the qualification runs from its Monday 00:00 UTC to the Sunday
    23:59:59 UTC ``round_days`` later (rule IV.A, IV.D): the rounds follow each other."""
    days = timedelta(days=round_days)
    starts_at = first_start + (number - 1) * days
    return starts_at, starts_at + days - timedelta(seconds=1)


def next_monday(after: datetime) -> datetime:
    """Monday 00:00 UTC after `after`: a round robin stage's next round, or the next stage,
    starts the Monday after a round deadline (Sunday 23:59:59; rule IV.B)."""
    day = (after + timedelta(seconds=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    if day < after:
        day += timedelta(days=1)
    return day + timedelta(days=(7 - day.weekday()) % 7)


def shared_ranks(rows: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Ranks again after some rows were dropped (withdrawn players do not take a place,
    rule VIII.A): 1, 2, 2, 4..."""
    out: list[tuple[str, int]] = []
    for index, (player, rank) in enumerate(rows):
        previous = out[-1] if out else None
        same = previous is not None and rows[index - 1][1] == rank
        out.append((player, previous[1] if same and previous else index + 1))
    return out


def cut(ranked: list[tuple[str, int]], places: int) -> tuple[list[str], list[str]]:
    """Who is in for sure, and who is tied across the last of ``places`` (empty when nobody
    is): the players tied across it play tiebreak matches (rule III.E.4-5)."""
    if len(ranked) <= places:
        return [p for p, _ in ranked], []
    last_in, first_out = ranked[places - 1][1], ranked[places][1]
    if last_in != first_out:
        return [p for p, _ in ranked[:places]], []
    return [p for p, r in ranked if r < last_in], [p for p, r in ranked if r == last_in]


def candidates_tie(ranked: list[tuple[str, int]]) -> tuple[list[str], list[str]]:
    """The Challenger and the runner-up as far as the table decides them, and the players
    tied for the first place still open (rule III.F.3; the runner-up matters for VIII.C)."""
    if not ranked:
        return [], []
    first = [p for p, r in ranked if r == ranked[0][1]]
    if len(first) > 1:
        return [], first
    if len(ranked) == 1:
        return first, []
    second = [p for p, r in ranked if r == ranked[1][1]]
    if len(second) > 1:
        return first, second
    return [first[0], second[0]], []
