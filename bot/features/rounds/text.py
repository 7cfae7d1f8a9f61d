"""Wording of the rounds: the round preview for the TD, the standings for everyone."""

from __future__ import annotations

from bot.features.rounds.types import RoundPreview, StandingLine
from bot.timefmt import discord_time


def preview_text(preview: RoundPreview, *, published: bool) -> str:
    head = "Published" if published else "Preview of"
    lines = [
        f"**{head} Swiss round {preview.number} of {preview.total_rounds}** "
        f"({preview.players} players) · {discord_time(preview.starts_at)} to "
        f"{discord_time(preview.deadline)}",
    ]
    for line in preview.lines:
        if line.player_b is None:
            lines.append(f"Bye: {line.player_a} ({line.seed_a})")
        else:
            lines.append(
                f"{line.board}. {line.player_a} ({line.seed_a}) vs {line.player_b} ({line.seed_b})"
            )
    return "\n".join(lines)[:1900]


def standings_text(lines: list[StandingLine], qualifiers: int) -> str:
    rows = ["**Qualification standings** (points · wins vs tied · median Buchholz)"]
    for line in lines:
        mark = " ✅" if line.rank <= qualifiers and not line.withdrawn else ""
        gone = " (withdrawn)" if line.withdrawn else ""
        rows.append(
            f"{line.rank}. {line.player}{gone} · {line.points:g} · {line.wins_vs_tied} · "
            f"{line.median_buchholz:g}{mark}"
        )
    return "\n".join(rows)[:1990]
