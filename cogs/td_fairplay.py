"""The TD's cheat-report commands (/td reports, /td report-state): a mixin of the /td group cog.

`TDCog` inherits these and its `interaction_check` keeps them TD-only; the replies are
ephemeral because they name reporters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.services import fairplay_text as text
from cogs.common import ReportId, kick_outbox
from db.models import ReportState

if TYPE_CHECKING:
    from discord.ext.commands import Cog as _MixinBase

    from bot.app import ChampionshipBot
else:
    _MixinBase = object

EMBED_TEXT_LIMIT = 4000


class FairPlayTDCommands(_MixinBase):
    """Mixin (not a Cog): rules VII.A, VII.B."""

    bot: ChampionshipBot

    @app_commands.command(name="reports", description="List cheat reports (private, rule VII.A)")
    @app_commands.describe(state="Only reports in this state")
    async def reports(
        self, interaction: discord.Interaction, state: ReportState | None = None
    ) -> None:
        value = state.value if state is not None else None
        found = await self.bot.svc.fairplay.list_reports(value)
        if not found:
            await interaction.response.send_message(text.no_reports(value), ephemeral=True)
            return
        chunks: list[str] = []
        current = ""
        for info in found:
            line = text.report_line(info) + "\n"
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

    @app_commands.command(name="report-state", description="Set a cheat report's state")
    @app_commands.describe(
        report="Report number (see /td reports)",
        state="upheld disqualifies the accused (rule VII.B)",
        note="Kept with the report and in the audit log (TD only)",
        engine="Upheld for engine use: finished Swiss games go to the opponents (VIII.A.2)",
    )
    async def report_state(
        self,
        interaction: discord.Interaction,
        report: ReportId,
        state: ReportState,
        note: str | None = None,
        engine: bool = False,
    ) -> None:
        change = await self.bot.svc.fairplay.set_state(
            td_id=interaction.user.id,
            report_id=report,
            state=state.value,
            note=note,
            engine_mark=engine,
        )
        await interaction.response.send_message(
            text.state_set(change.report, change.previous, change.disqualified), ephemeral=True
        )
        await kick_outbox(interaction)
