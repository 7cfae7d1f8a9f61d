"""Wording of the stage transitions: the final Swiss table, the Candidates table."""

from __future__ import annotations

from bot.rules.candidates import CandidateStanding
from bot.rules.swiss_table import Standing


def qualification_lines(
    rows: list[tuple[str, Standing]], places: int, sure: list[str], tied: list[str]
) -> list[str]:
    """The final Swiss standings with both tiebreaks (rule III.E.5), who qualifies, and a
    tie across the last place if there is one."""
    lines = [
        "🏁 **The qualification is over.** Final standings "
        "(points · wins vs tied · median Buchholz):"
    ]
    for name, row in rows:
        mark = " ✅" if row.player in sure else (" ⚖️" if row.player in tied else "")
        gone = " (withdrawn)" if row.withdrawn else ""
        lines.append(
            f"{row.rank}. {name}{gone} · {row.points:g} · {row.wins_vs_tied} · "
            f"{row.median_buchholz:g}{mark}"
        )
    by_id = {row.player: name for name, row in rows}
    if tied:
        lines.append(
            f"⚖️ Tied across place {places} after both tiebreaks: "
            + ", ".join(by_id[p] for p in tied)
            + f". They play 10-game tiebreak matches for {places - len(sure)} place(s) "
            "(rule III.E.5)."
        )
    else:
        lines.append("Qualified for the Candidates: " + ", ".join(by_id[p] for p in sure) + ".")
    return lines


def candidates_lines(table: list[CandidateStanding], names: dict[str, str]) -> list[str]:
    """The final Candidates table: match points, then game points (rule III.F.3)."""
    lines = ["🏁 **The Candidates are over.** Final table (match points · game points):"]
    for row in table:
        lines.append(f"{row.rank}. {names[row.player]} · {row.points:g} · {row.game_points:g}")
    return lines
