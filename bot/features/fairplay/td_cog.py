"""The TD's cheat-report commands (/td fairplay reports, report-state): rules VII.A, VII.B.

Every reply is ephemeral: reports name their reporters, whom only the TD may know.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.features.fairplay import text as wording
from cogs.common import Reason, ReportId, bot_of, kick_outbox, report_choices
from cogs.td import TDCommand
from db.models import ReportState

EMBED_TEXT_LIMIT = 4000


@app_commands.describe(state="Only reports in this state")
async def reports(interaction: discord.Interaction, state: ReportState | None = None) -> None:
    value = state.value if state is not None else None
    found = await bot_of(interaction).svc.fairplay.list_reports(value)
    if not found:
        await interaction.response.send_message(wording.no_reports(value), ephemeral=True)
        return
    chunks: list[str] = []
    current = ""
    for info in found:
        line = wording.report_line(info) + "\n"
        if len(current) + len(line) > EMBED_TEXT_LIMIT:
            chunks.append(current)
            current = ""
        current += line
    chunks.append(current)
    embeds = [
        discord.Embed(title="Cheat reports" if i == 0 else None, description=chunk)
        for i, chunk in enumerate(chunks[:10])
    ]
    await interaction.response.send_message(embeds=embeds, ephemeral=True)


@app_commands.describe(
    report="Report number (see /td fairplay reports)",
    state="upheld disqualifies the accused (rule VII.B)",
    note="Kept with the report and in the audit log (TD only)",
    engine="Upheld for engine use: finished Swiss games go to the opponents (VIII.A.2)",
)
@app_commands.autocomplete(report=report_choices)
async def report_state(
    interaction: discord.Interaction,
    report: ReportId,
    state: ReportState,
    note: Reason | None = None,
    engine: bool = False,
) -> None:
    change = await bot_of(interaction).svc.fairplay.set_state(
        td_id=interaction.user.id,
        report_id=report,
        state=state.value,
        note=note,
        engine_mark=engine,
    )
    await interaction.response.send_message(
        wording.state_set(change.report, change.previous, change.disqualified), ephemeral=True
    )
    await kick_outbox(interaction)


TD_COMMANDS = [
    TDCommand("reports", "List cheat reports (private, rule VII.A)", reports),
    TDCommand("report-state", "Set a cheat report's state", report_state),
]
