"""What #announcements hears while a knock-out or final match is under way: each turn the
rules give it (an extension, the two-point rule dropped and the clock changed, the tiebreak
games, a week played again, the Armageddon), one line each, so a spectator who follows only
the announcements is not left between the match's start and its result."""

from __future__ import annotations

from bot.features.matches.text import score

_TURNS = {
    "extended": "extended by {games} games (rule III.G.3): nobody leads by {lead:g} points",
    "lead_rule_dropped": (
        "the two-point rule is dropped and the clock becomes **{clock}** (rules III.G.4-5)"
    ),
    "tiebreak_extended": "still level: {games} more games at **{clock}** (rule III.G.5)",
    "tiebreak_games_start": "level: **{games} tiebreak games** follow",
    "new_week": "a level week: the week is **played again**",
    "armageddon": "level: an **Armageddon** game decides; the players bid for White",
}


def match_turn(
    name: str,
    a: str,
    b: str,
    score_a: float,
    score_b: float,
    played: int,
    kind: str,
    *,
    games: int,
    lead: float,
    clock: str,
) -> str:
    """One turn of the match `name` ("Final", "Semifinal 1") for #announcements; empty for
    a kind that is no turn."""
    if kind not in _TURNS:
        return ""
    what = _TURNS[kind].format(games=games, lead=lead, clock=clock)
    return (
        f"👑 **{name}**: **{a}** {score(score_a)}–{score(score_b)} **{b}** after "
        f"{played} games: {what}."
    )
