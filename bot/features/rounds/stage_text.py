"""Wording of the stage transitions: who qualifies from the Swiss, the Candidates table for
the TD's tie question."""

from __future__ import annotations

from bot.rules.candidates import CandidateStanding
from bot.rules.stages import SwissPlace


def _after(chain: int) -> str:
    """The tiebreaks a tie across the cut survived (2019: "both tiebreaks")."""
    if chain == 2:
        return "after both tiebreaks"
    return "after every tiebreak" if chain else "on points"


def qualification_lines(
    rows: list[tuple[str, SwissPlace]],
    places: int,
    sure: list[str],
    tied: list[str],
    *,
    chain: int = 2,
    matches: bool = True,
) -> list[str]:
    """Who qualifies, and a tie across the last place if there is one: ``chain`` is how
    many tiebreaks the stage has, ``matches`` whether the tied play tiebreak matches
    (rule III.E.5) or the TD breaks the tie. The final table itself (the chain's columns)
    is the standings post of the last round, just before this one in the same channel: one
    table per post, never the same table twice."""
    lines = ["🏁 **The qualification is over**; its final table is just above."]
    by_id = {row.player: name for name, row in rows}
    place = {row.player: row.rank for _, row in rows}
    if tied:
        if sure:
            lines.append(
                "Qualified for the Candidates: "
                + ", ".join(f"{by_id[p]} ({_ordinal(place[p])})" for p in sure)
                + "."
            )
        then = (
            f"They play 10-game tiebreak matches for {places - len(sure)} place(s) (rule III.E.5)."
            if matches
            else f"The TD decides who takes the {places - len(sure)} place(s) left."
        )
        lines.append(
            f"⚖️ Tied across place {places} {_after(chain)}: "
            + ", ".join(by_id[p] for p in tied)
            + ". "
            + then
        )
    else:
        lines.append("Qualified for the Candidates: " + ", ".join(by_id[p] for p in sure) + ".")
    return lines


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def candidates_lines(table: list[CandidateStanding], names: dict[str, str]) -> list[str]:
    """The final Candidates table, match points then game points (rule III.F.3), for the TD
    who breaks a tie (the announcement channel has the crosstable already)."""
    lines = ["🏁 **The Candidates are over.** Final table (match points · game points):"]
    for row in table:
        lines.append(f"{row.rank}. {names[row.player]} · {row.points:g} · {row.game_points:g}")
    return lines
