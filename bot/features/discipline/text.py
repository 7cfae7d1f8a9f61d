"""Wording of discipline that players read: what a withdrawal or a disqualification means
for each opponent's match (rule VIII)."""

from __future__ import annotations

WITHDREW, DISQUALIFIED = "withdrew", "was disqualified"


def opponent_left(left: str, how: str, match_id: int, kind: str) -> str:
    """To an opponent of the player who left: what happened to their match, and why."""
    if kind == "unfinished":
        return (
            f"🏳️ {left} {how}: you win match {match_id} against them by forfeit "
            "(rule VIII.A.1). It counts in the standings at once; nothing to play."
        )
    if kind == "engine":
        return (
            f"⚖️ {left} {how} for an engine mark: match {match_id} against them is scored as "
            "a win for you (rule VIII.A.2)."
        )
    return (
        f"🚪 {left} {how}: your Candidates match {match_id} against them is disregarded, and "
        "the table is recomputed without them (rule VIII.B)."
    )


def forfeit_reason(how: str) -> str:
    """The audit log's reason for an unfinished match given to the opponent."""
    return f"opponent {how} (rule VIII.A.1)"


def forfeit_decided(match_id: int, winner: str, loser: str, reason: str) -> str:
    """A forfeit, told once to both players: `winner` and `loser` are mentions."""
    return f"Match {match_id}: {winner} wins by forfeit against {loser} ({reason})."
