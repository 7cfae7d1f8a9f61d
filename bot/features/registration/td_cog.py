"""The TD's registration commands (/td registration …) and the Approve / Reject buttons."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.errors import NotAllowed
from bot.features.registration import text as wording
from bot.features.registration.types import RegistrationSummary
from bot.message_text import LETTER_FORM_MAX, REASON_MAX
from cogs.common import (
    FormModal,
    IdButton,
    Letter,
    Reason,
    RegistrationId,
    bot_of,
    embed,
    guarded,
    is_td,
    kick_outbox,
    registration_choices,
)
from cogs.td import TDCommand
from db.models import RegistrationState

if TYPE_CHECKING:
    pass

EMBED_TEXT_LIMIT = 4000


def decision_view(registration_id: int) -> discord.ui.View:
    """The Approve / Reject buttons; persistent across restarts through their custom ids."""
    view = discord.ui.View(timeout=None)
    view.add_item(ApproveButton(registration_id))
    view.add_item(RejectButton(registration_id))
    return view


def _require_td(interaction: discord.Interaction) -> None:
    if not is_td(interaction):
        raise NotAllowed(wording.td_only_decides())


async def _decide(
    interaction: discord.Interaction, registration_id: int, *, approve: bool, reason: str | None
) -> RegistrationSummary:
    _require_td(interaction)
    return await bot_of(interaction).svc.registration.decide(
        registration_id=registration_id, td_id=interaction.user.id, approve=approve, reason=reason
    )


def _decided_text(summary: RegistrationSummary, td_id: int) -> str:
    return wording.decided(summary.id, summary.lichess_username, summary.state.value, td_id)


class DecisionModal(FormModal):
    """Asks for the exception reason (rule II.B) or the rejection comment."""

    reason: discord.ui.TextInput[DecisionModal]

    def __init__(self, registration_id: int, *, approve: bool) -> None:
        title = "Approve as an exception" if approve else "Reject registration"
        super().__init__(title=title, prefix=f"acwc:reg:modal:{registration_id}:{int(approve)}")
        self.registration_id = registration_id
        self.approve = approve
        self.reason = discord.ui.TextInput(
            label="Reason (rule II.B)" if approve else "Comment for the player",
            style=discord.TextStyle.paragraph,
            required=True,
            max_length=REASON_MAX if approve else LETTER_FORM_MAX,
            custom_id="reason",
        )
        self.add_item(self.reason)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        async def run() -> None:
            summary = await _decide(
                interaction, self.registration_id, approve=self.approve, reason=self.reason.value
            )
            await _show_decision(interaction, summary)

        await guarded(interaction, run)


async def _show_decision(interaction: discord.Interaction, summary: RegistrationSummary) -> None:
    """Replace the buttons with the decision where they were pressed; else confirm ephemerally."""
    content = _decided_text(summary, interaction.user.id)
    review = embed(wording.registration_embed(summary, for_td=True))
    if interaction.message is not None:
        await interaction.response.edit_message(content=content, embed=review, view=None)
    else:
        await interaction.response.send_message(content, embed=review, ephemeral=True)
    await kick_outbox(interaction)


class ApproveButton(IdButton, template=r"acwc:reg:approve:(?P<id>\d+)"):
    """Approves registration `ident`; a flagged one first asks for the exception reason."""

    prefix, label, style = "acwc:reg:approve", "Approve", discord.ButtonStyle.success

    async def run(self, interaction: discord.Interaction) -> None:
        _require_td(interaction)
        current = await bot_of(interaction).svc.registration.get(self.ident)
        if current.problems and current.state is RegistrationState.PENDING:
            await interaction.response.send_modal(DecisionModal(self.ident, approve=True))
            return
        summary = await _decide(interaction, self.ident, approve=True, reason=None)
        await _show_decision(interaction, summary)


class RejectButton(IdButton, template=r"acwc:reg:reject:(?P<id>\d+)"):
    """Rejects registration `ident` after asking for the comment to the player."""

    prefix, label, style = "acwc:reg:reject", "Reject", discord.ButtonStyle.danger

    async def run(self, interaction: discord.Interaction) -> None:
        _require_td(interaction)
        await interaction.response.send_modal(DecisionModal(self.ident, approve=False))


def _listing_messages(summaries: list[RegistrationSummary]) -> list[list[discord.Embed]]:
    """Best seed first, one embed per 4,000 characters and as many messages as needed:
    Discord takes at most 6,000 characters of embeds in one message, and a championship
    of 500 entrants lists far more than that."""
    chunks: list[str] = []
    current = ""
    for rank, summary in enumerate(summaries, start=1):
        line = wording.listing_line(rank, summary) + "\n"
        if len(current) + len(line) > EMBED_TEXT_LIMIT:
            chunks.append(current)
            current = ""
        current += line
    if current:
        chunks.append(current)
    counts: dict[str, int] = {}
    for s in summaries:
        counts[s.state.value] = counts.get(s.state.value, 0) + 1
    summary_line = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
    title = f"Registrations ({summary_line})"
    # The title counts towards the 6,000 too; one 4,000-character embed per message fits.
    return [
        [discord.Embed(title=title if index == 0 else None, description=chunk)]
        for index, chunk in enumerate(chunks)
    ]


async def registrations(interaction: discord.Interaction) -> None:
    summaries = await bot_of(interaction).svc.registration.all()
    if not summaries:
        await interaction.response.send_message(wording.nobody_registered(), ephemeral=True)
        return
    first, *rest = _listing_messages(summaries)
    await interaction.response.send_message(embeds=first, ephemeral=True)
    for embeds in rest:
        await interaction.followup.send(embeds=embeds, ephemeral=True)


async def registration_open(interaction: discord.Interaction) -> None:
    await _set_window(interaction, open_=True)


async def registration_close(interaction: discord.Interaction) -> None:
    await _set_window(interaction, open_=False)


async def _set_window(interaction: discord.Interaction, *, open_: bool) -> None:
    service = bot_of(interaction).svc.registration
    state = await service.set_window(td_id=interaction.user.id, open_=open_)
    await interaction.response.send_message(wording.window_set(state), ephemeral=True)
    await kick_outbox(interaction)  # closing posts (or edits) the public field


@app_commands.describe(registration="Registration number (see /td registration list)")
@app_commands.autocomplete(registration=registration_choices)
async def registration_show(interaction: discord.Interaction, registration: RegistrationId) -> None:
    summary = await bot_of(interaction).svc.registration.get(registration)
    view = decision_view(summary.id) if summary.state.value == "pending" else discord.utils.MISSING
    await interaction.response.send_message(
        embed=embed(wording.registration_embed(summary, for_td=True)), view=view, ephemeral=True
    )


@app_commands.describe(
    registration="Registration number", reason="Needed for an exception (rule II.B)"
)
@app_commands.autocomplete(registration=registration_choices)
async def registration_approve(
    interaction: discord.Interaction, registration: RegistrationId, reason: Reason | None = None
) -> None:
    summary = await _decide(interaction, registration, approve=True, reason=reason)
    await interaction.response.send_message(
        _decided_text(summary, interaction.user.id), ephemeral=True
    )
    await kick_outbox(interaction)


@app_commands.describe(registration="Registration number", comment="Told to the player")
@app_commands.autocomplete(registration=registration_choices)
async def registration_reject(
    interaction: discord.Interaction, registration: RegistrationId, comment: Letter
) -> None:
    summary = await _decide(interaction, registration, approve=False, reason=comment)
    await interaction.response.send_message(
        _decided_text(summary, interaction.user.id), ephemeral=True
    )
    await kick_outbox(interaction)


TD_COMMANDS = [
    TDCommand("list", "List every registration", registrations),
    TDCommand("show", "Show one registration with its evidence", registration_show),
    TDCommand("approve", "Approve a registration", registration_approve),
    TDCommand("reject", "Reject a registration", registration_reject),
    TDCommand("open", "Open registration now", registration_open),
    TDCommand("close", "Close registration now", registration_close),
]
