"""The TD's round commands (/td round …): start the Swiss, publish rounds, record scores."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.audit import Actor
from bot.discord_limits import BUTTON_LABEL
from bot.errors import NotAllowed
from bot.features.rounds import text as wording
from bot.features.rounds.text import (
    CANCEL,
    CLOSE_AND_CONTINUE,
    drop_pending_label,
    dropped_note,
    preview_text,
    publish_label,
    start_text,
)
from bot.message_text import fit
from cogs.common import (
    MATCH_HELP,
    IdButton,
    MatchId,
    Reason,
    bot_of,
    is_td,
    kick_outbox,
    match_choices,
    reply_in_parts,
)
from cogs.td import TDCommand


async def publish_to_discord(interaction: discord.Interaction) -> None:
    """Post what the service stored right away instead of waiting for the periodic job."""
    bot = bot_of(interaction)
    if bot.publisher is not None:
        await bot.publisher.sync()
    if bot.outbox is not None:
        await bot.outbox.flush()


class PublishSwissButton(IdButton, template=r"acwc:swiss:publish:(?P<id>\d+)"):
    """Starts the Swiss with the current field (the preview is recomputed, never stale)."""

    prefix, label, style = "acwc:swiss:publish", publish_label(1), discord.ButtonStyle.success

    async def run(self, interaction: discord.Interaction) -> None:
        if not is_td(interaction):
            raise NotAllowed(wording.td_only("start the qualification"))
        preview = await bot_of(interaction).svc.rounds.start(td_id=interaction.user.id)
        await reply_in_parts(interaction, preview_text(preview, published=True), edit=True)
        await publish_to_discord(interaction)


class TieButton(IdButton, template=r"acwc:tie:(?P<id>\d+)"):
    """The TD breaks a tie the rules leave to them: this player goes through (III.E.5, III.F.3)."""

    prefix, label, style = "acwc:tie", "Choose", discord.ButtonStyle.primary

    def __init__(self, ident: int, name: str | None = None) -> None:
        super().__init__(ident)
        if name:
            self.item.label = fit(name, BUTTON_LABEL)

    async def run(self, interaction: discord.Interaction) -> None:
        if not is_td(interaction):
            raise NotAllowed(wording.td_only("break this tie"))
        choice = await bot_of(interaction).svc.ties.decide_tie(
            td_id=interaction.user.id, player_id=self.ident
        )
        reply = wording.tie_chosen(choice.player, done=choice.done)
        await interaction.response.send_message(reply, ephemeral=True)
        await publish_to_discord(interaction)


def tie_view(args: dict[str, Any]) -> discord.ui.View:
    """One button per tied player (the outbox builds it from the stored player list)."""
    view = discord.ui.View(timeout=None)
    for player_id, name in args.get("players", []):
        view.add_item(TieButton(int(player_id), str(name)))
    return view


class CancelSwissButton(IdButton, template=r"acwc:swiss:cancel:(?P<id>\d+)"):
    """Drops the TD's preview of round 1; like Publish, it is the TD's alone."""

    prefix, label, style = "acwc:swiss:cancel", CANCEL, discord.ButtonStyle.secondary

    async def run(self, interaction: discord.Interaction) -> None:
        if not is_td(interaction):
            raise NotAllowed(wording.td_only("cancel this preview"))
        await interaction.response.edit_message(content=wording.preview_cancelled(), view=None)


class CloseAndContinueButton(IdButton, template=r"acwc:swiss:close:(?P<id>\d+)"):
    """Registration was open at `/td round start`: close it (the TD's own
    `/td registration close`, audited, the field made public), then preview round 1."""

    prefix, label, style = (
        "acwc:swiss:close",
        CLOSE_AND_CONTINUE,
        discord.ButtonStyle.primary,
    )

    async def run(self, interaction: discord.Interaction) -> None:
        if not is_td(interaction):
            raise NotAllowed(wording.td_only("close registration"))
        bot = bot_of(interaction)
        await bot.svc.rounds.preview_start()  # refuses, changing nothing, once round 1 is out
        await bot.svc.registration.set_window(td_id=interaction.user.id, open_=False)
        await _show_start(interaction, edit=True)
        await kick_outbox(interaction)


class DropPendingButton(IdButton, template=r"acwc:swiss:drop:(?P<id>\d+)"):
    """Rejects every registration still pending once registration is closed (each player
    gets a DM), then shows round 1's preview again."""

    prefix, label, style = "acwc:swiss:drop", "Drop pending", discord.ButtonStyle.danger

    def __init__(self, ident: int, count: int | None = None) -> None:
        super().__init__(ident)
        if count is not None:
            self.item.label = drop_pending_label(count)

    async def run(self, interaction: discord.Interaction) -> None:
        if not is_td(interaction):
            raise NotAllowed(wording.td_only("drop pending registrations"))
        bot = bot_of(interaction)
        dropped = await bot.svc.registration.drop_pending(td_id=interaction.user.id)
        names = [s.lichess_username for s in dropped]
        await _show_start(interaction, edit=True, note=dropped_note(names))
        await kick_outbox(interaction)


async def _show_start(interaction: discord.Interaction, *, edit: bool, note: str = "") -> None:
    """`/td round start`'s message: the refusal or the preview, with the buttons that
    apply (Publish only once registration is closed and nothing is pending)."""
    start = await bot_of(interaction).svc.rounds.preview_start()
    user_id = interaction.user.id
    view = discord.ui.View(timeout=None)
    if start.registration_open:
        view.add_item(CloseAndContinueButton(user_id))
    elif start.pending:
        view.add_item(DropPendingButton(user_id, len(start.pending)))
    else:
        view.add_item(PublishSwissButton(user_id))
    view.add_item(CancelSwissButton(user_id))
    content = start_text(start)
    if note:
        content = f"{note}\n\n{content}"
    await reply_in_parts(interaction, content, view=view, edit=edit)


async def swiss_start(interaction: discord.Interaction) -> None:
    await _show_start(interaction, edit=False)


async def swiss_publish(interaction: discord.Interaction) -> None:
    await _answer_first(interaction)
    preview = await bot_of(interaction).svc.rounds.publish_next(actor=Actor.td(interaction.user.id))
    await reply_in_parts(interaction, preview_text(preview, published=True))
    await publish_to_discord(interaction)


@app_commands.describe(
    match=MATCH_HELP,
    score_a="Game points of the first player the match names",
    score_b="Game points of the second player the match names",
    reason="Why (goes into the audit log)",
)
@app_commands.autocomplete(match=match_choices)
async def set_score(
    interaction: discord.Interaction,
    match: MatchId,
    score_a: float,
    score_b: float,
    reason: Reason | None = None,
) -> None:
    await _answer_first(interaction)
    result = await bot_of(interaction).svc.rounds.set_score(
        td_id=interaction.user.id,
        match_id=match,
        score_a=score_a,
        score_b=score_b,
        reason=reason,
    )
    reply = wording.score_recorded(result.match, score_a, score_b)
    if result.next_round is not None:
        reply += wording.score_then_published(result.next_round.number)
    elif result.stage_finished:
        reply += wording.score_then_stage_over()
    await interaction.followup.send(reply, ephemeral=True)
    await publish_to_discord(interaction)


async def _answer_first(interaction: discord.Interaction) -> None:
    """Defer before the work: it may pair the next Swiss round, a second or two for a late
    round of a big field (benchmarks/pairing.py, in a worker thread), and Discord drops an
    interaction not answered within 3 s."""
    await interaction.response.defer(ephemeral=True, thinking=True)


TD_COMMANDS = [
    TDCommand(
        "start",
        "Close registration, preview round 1 of the Swiss, then publish it",
        swiss_start,
    ),
    TDCommand("publish", "Pair and publish the next round now", swiss_publish),
    TDCommand("set-score", "Record or correct a match score", set_score),
]
