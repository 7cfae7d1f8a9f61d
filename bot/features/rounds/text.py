"""Wording of the rounds: the round preview for the TD (the standings are in
`bot.features.tables`)."""

from __future__ import annotations

from datetime import datetime

from bot.features.rounds.types import PendingEntry, RoundPreview, SwissStart
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
    return "\n".join(lines)  # a long round is replied in parts (cogs.common.reply_in_parts)


def no_channel_text(kind: StageKind, number: int) -> str:
    """To the TD: a round is published but there is nowhere to post its pairings."""
    return (
        f"⚠️ {kind.value.capitalize()} round {number} is published, but no pairings channel is "
        "set, so the players got no pairings post, no match thread and no ping. Set one with "
        "`/td setup` or `discord.pairings_channel_id` in the config: the bot posts the round "
        "there as soon as it is set."
    )


# --- before round 1: registration closed and decided ------------------------------------

PENDING_SHOWN = 15  # names listed; the rest are counted (the message stays under 2,000)


def registration_still_open() -> str:
    return (
        "Registration is still open, so round 1 cannot be published: a player who entered "
        "after it would never be paired. Close it first (`/td registration close`, or "
        "**Close registration and continue** under `/td round start`); nothing was changed."
    )


def pending_block(pending: list[PendingEntry]) -> str:
    """The registrations that block round 1, and the TD's two ways out."""
    count = len(pending)
    names = [f"• #{p.registration_id} {p.lichess_username}" for p in pending[:PENDING_SHOWN]]
    if count > PENDING_SHOWN:
        names.append(f"• …and {count - PENDING_SHOWN} more (`/td registration list`)")
    return "\n".join(
        [
            f"**{count} registration{'s' if count != 1 else ''} still wait for your "
            "decision**, and round 1 cannot be published until each is decided: "
            "`/td registration approve` or `reject` them, or press "
            f"**Drop {count} pending** to reject them all (each player gets a DM: "
            "registration closed before a decision).",
            *names,
        ]
    )


def dropped_note(names: list[str]) -> str:
    """What **Drop N pending** did, above the preview it shows again."""
    if not names:
        return "No registration was pending any more: nothing was dropped."
    return f"Dropped (each was told): {', '.join(names)}."[:300]


def start_text(start: SwissStart) -> str:
    """What `/td round start` shows: the refusal while registration is open, else the
    preview, with what still blocks publishing."""
    parts: list[str] = []
    if start.registration_open:
        parts.append(
            "**Registration is still open.** Round 1 is previewed and published only once "
            "it is closed: a player who entered later could never be paired. **Close "
            "registration and continue** closes it now, exactly as `/td registration close` "
            "does (the field goes public in the announcement channel), then shows the "
            "preview of round 1."
        )
    if start.pending:
        parts.append(pending_block(start.pending))
    if start.preview is not None:
        parts.append(preview_text(start.preview, published=False))
    return "\n\n".join(parts)


def round_out_text(
    short_name: str,
    kind: StageKind,
    label: str,
    number: int,
    total: int | None,
    pairs: list[tuple[str, str | None]],
    deadline: datetime,
) -> str:
    """The announcement of a published round; the Final is one match, announced as such."""
    if kind is StageKind.FINAL and len(pairs) == 1 and pairs[0][1] is not None:
        a, b = pairs[0]
        return (
            f"📣 **{short_name}: the Final is set!** **{a}** vs **{b}**; it must be finished "
            f"by {discord_time(deadline)}."
        )
    matches = [p for p in pairs if p[1] is not None]
    byes = [a for a, b in pairs if b is None]
    of_total = f" of {total}" if total else ""
    count = f"{len(matches)} match{'es' if len(matches) != 1 else ''}"
    bye_text = f" Bye: {', '.join(byes)}." if byes else ""
    return (
        f"📣 **{short_name}: {label} round {number}{of_total} is out!** {count}; every match "
        f"must be played by {discord_time(deadline)}.{bye_text}"
    )


def pairing_failed(number: int, why: str) -> str:
    """Round `number` could not be paired; what the TD can do (the results stand)."""
    return (
        f"⚠️ Round {number} could not be paired: {why}. The results recorded stand and "
        "nothing was published. Try again with /td round publish; if it fails again, check "
        "the withdrawals and the results of the earlier rounds."
    )


def pairing_too_slow(seconds: float) -> str:
    return f"no pairing within {seconds:g} s (swiss.pairing_timeout_seconds)"


def no_valid_pairing(reason: str) -> str:
    return f"no valid pairing exists ({reason})"


def score_set_text(match_id: int, a: str, b: str, score_a: float, score_b: float) -> str:
    """The TD recorded a match's score (/td round set-score); `a`, `b` are mentions."""
    return f"The TD recorded the result of match #{match_id}: {a} {score_a:g}–{score_b:g} {b}."


def no_stage_yet(kind: str) -> str:
    return f"There is no {kind} stage yet."


# --- pairing the next Swiss round ---------------------------------------------------------


def qualification_finished() -> str:
    return "The qualification is finished."


def all_rounds_played() -> str:
    return "All rounds of the qualification have been played."


def round_still_open(number: int, open_count: int) -> str:
    return (
        f"Round {number} still has {open_count} match(es) without a result; record them "
        "(/td round set-score) before pairing the next round."
    )


def round_changed_meanwhile(number: int) -> str:
    """The state a round was paired from changed before it could be written."""
    return (
        f"Round {number} was not published: while it was being paired, it was published "
        "by another run, or a result of the round before it changed. Look at /pairings, "
        "then try /td round publish again if it is still needed."
    )
