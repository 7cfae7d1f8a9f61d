"""Wording of the rounds: the round preview for the TD (the standings are in
`bot.features.tables`)."""

from __future__ import annotations

from bot.features.rounds.types import RoundPreview
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
