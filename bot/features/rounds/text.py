"""Wording of the rounds: the round preview for the TD (the standings are in
`bot.features.tables`)."""

from __future__ import annotations

from bot.features.rounds.types import RoundPreview
from bot.timefmt import discord_time
from db.models import StageKind


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


def no_channel_text(kind: StageKind, number: int) -> str:
    """To the TD: a round is published but there is nowhere to post its pairings."""
    return (
        f"⚠️ {kind.value.capitalize()} round {number} is published, but no pairings channel is "
        "set, so the players got no pairings post, no match thread and no ping. Set one with "
        "`/td setup` or `discord.pairings_channel_id` in the config: the bot posts the round "
        "there as soon as it is set."
    )
