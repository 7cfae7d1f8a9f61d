"""Fair play (rule VII): /report's private modal, the TD's report and account-mark buttons,
and the optional public-accusation watch.

Replies to the reporter are ephemeral; everything naming the reporter goes to the TD only.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import NotAllowed
from bot.features.fairplay import text as wording
from bot.features.fairplay.td_cog import TD_COMMANDS
from bot.features.fairplay.types import ENGINE_DQ_VIEW, REPORT_VIEW, ReportChange
from bot.message_text import fit
from bot.rules.fairplay import DESCRIPTION_MAX, LINKS_MAX
from cogs.common import FormModal, IdButton, bot_of, embed, guarded, is_td, kick_outbox
from cogs.td import add_td_commands

if TYPE_CHECKING:
    from bot.app import ChampionshipBot

log = logging.getLogger(__name__)


def _require_td(interaction: discord.Interaction) -> None:
    if not is_td(interaction):
        raise NotAllowed(wording.not_td())


# --- the reporter's modal -------------------------------------------------------------------


class ReportModal(FormModal):
    """The private report (rule VII.A): who, which games, what happened."""

    accused: discord.ui.TextInput[ReportModal]
    links: discord.ui.TextInput[ReportModal]
    description: discord.ui.TextInput[ReportModal]

    def __init__(self) -> None:
        super().__init__(title="Private cheat report (TD only)", prefix="acwc:fp:report")
        self.accused = discord.ui.TextInput(
            label="Accused player's Lichess username",
            custom_id="accused",
            max_length=30,
            required=True,
        )
        self.links = discord.ui.TextInput(
            label="Game links (lichess.org), if any",
            custom_id="links",
            style=discord.TextStyle.paragraph,
            max_length=LINKS_MAX,
            required=False,
        )
        self.description = discord.ui.TextInput(
            label="What happened",
            custom_id="description",
            style=discord.TextStyle.paragraph,
            max_length=DESCRIPTION_MAX,
            required=True,
        )
        for item in (self.accused, self.links, self.description):
            self.add_item(item)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        async def run() -> None:
            receipt = await bot_of(interaction).svc.fairplay.report(
                reporter_discord_id=interaction.user.id,
                accused=self.accused.value,
                game_links=self.links.value or "",
                description=self.description.value,
            )
            await interaction.response.send_message(
                wording.report_received(receipt.id, receipt.accused), ephemeral=True
            )
            await kick_outbox(interaction)

        await guarded(interaction, run)


# --- the TD's report buttons ------------------------------------------------------------------


def report_view(report_id: int, state: str = "open") -> discord.ui.View | None:
    """Buttons for the moves still open to a report; none once it is upheld."""
    if state == "upheld":
        return None
    view = discord.ui.View(timeout=None)
    if state != "investigating":
        view.add_item(InvestigateButton(report_id))
    if state != "dismissed":
        view.add_item(DismissButton(report_id))
    else:
        view.add_item(ReopenButton(report_id))
    view.add_item(UpholdButton(report_id))
    return view


async def show_change(interaction: discord.Interaction, change: ReportChange) -> None:
    """Update the TD's report message in place, or confirm ephemerally from a command."""
    info = change.report
    summary = wording.state_set(info, change.previous, change.disqualified)
    if interaction.message is not None:
        await interaction.response.edit_message(
            content=summary + "\n\n" + wording.report_for_td(info),
            embeds=[embed(e) for e in wording.report_embeds(info)],
            view=report_view(info.id, info.state),
        )
    else:
        await interaction.response.send_message(summary, ephemeral=True)
    await kick_outbox(interaction)


async def _set(
    interaction: discord.Interaction,
    report_id: int,
    state: str,
    note: str | None = None,
    engine: bool = False,
) -> None:
    _require_td(interaction)
    change = await bot_of(interaction).svc.fairplay.set_state(
        td_id=interaction.user.id, report_id=report_id, state=state, note=note, engine_mark=engine
    )
    await show_change(interaction, change)


class NoteModal(FormModal):
    """The TD's note when dismissing or upholding; upholding also asks engine or not."""

    note: discord.ui.TextInput[NoteModal]
    engine: discord.ui.TextInput[NoteModal] | None

    def __init__(self, report_id: int, state: str) -> None:
        upheld = state == "upheld"
        title = "Uphold: disqualify the accused" if upheld else "Dismiss the report"
        super().__init__(title=title, prefix=f"acwc:fp:note:{state}:{report_id}")
        self.report_id = report_id
        self.state = state
        self.note = discord.ui.TextInput(
            label="Note (TD only, kept in the audit log)",
            custom_id="note",
            style=discord.TextStyle.paragraph,
            max_length=1000,
            required=upheld,
        )
        self.add_item(self.note)
        self.engine = None
        if upheld:
            self.engine = discord.ui.TextInput(
                label="Engine use? Type yes for rule VIII.A.2",
                custom_id="engine",
                max_length=3,
                required=False,
            )
            self.add_item(self.engine)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        engine = self.engine is not None and self.engine.value.strip().lower() in ("yes", "y")

        async def run() -> None:
            await _set(interaction, self.report_id, self.state, self.note.value, engine)

        await guarded(interaction, run)


class InvestigateButton(IdButton, template=r"acwc:fp:investigating:(?P<id>\d+)"):
    prefix, label, style = "acwc:fp:investigating", "Investigating", discord.ButtonStyle.primary

    async def run(self, interaction: discord.Interaction) -> None:
        await _set(interaction, self.ident, "investigating")


class ReopenButton(IdButton, template=r"acwc:fp:open:(?P<id>\d+)"):
    prefix, label, style = "acwc:fp:open", "Reopen", discord.ButtonStyle.secondary

    async def run(self, interaction: discord.Interaction) -> None:
        await _set(interaction, self.ident, "open")


class DismissButton(IdButton, template=r"acwc:fp:dismissed:(?P<id>\d+)"):
    prefix, label, style = "acwc:fp:dismissed", "Dismiss", discord.ButtonStyle.secondary

    async def run(self, interaction: discord.Interaction) -> None:
        _require_td(interaction)
        await interaction.response.send_modal(NoteModal(self.ident, "dismissed"))


class UpholdButton(IdButton, template=r"acwc:fp:upheld:(?P<id>\d+)"):
    prefix, label, style = "acwc:fp:upheld", "Uphold (disqualify)", discord.ButtonStyle.danger

    async def run(self, interaction: discord.Interaction) -> None:
        _require_td(interaction)
        await interaction.response.send_modal(NoteModal(self.ident, "upheld"))


# --- the TD's account-mark buttons (rules VII.C, VIII.A.2) ------------------------------------


def mark_view(player_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(EngineDQButton(player_id))
    view.add_item(BoosterDQButton(player_id))
    return view


async def _mark_dq(interaction: discord.Interaction, player_id: int, *, engine: bool) -> None:
    _require_td(interaction)
    name = await bot_of(interaction).svc.fairplay.disqualify_for_mark(
        td_id=interaction.user.id, player_id=player_id, engine=engine
    )
    done = wording.engine_dq_done(name, engine)
    if interaction.message is not None:
        content = (interaction.message.content or "") + f"\n\n**{done}**"
        await interaction.response.edit_message(content=fit(content), view=None)
    else:
        await interaction.response.send_message(done, ephemeral=True)
    await kick_outbox(interaction)


class EngineDQButton(IdButton, template=r"acwc:fp:engine:(?P<id>\d+)"):
    prefix, label, style = "acwc:fp:engine", "Disqualify (engine mark)", discord.ButtonStyle.danger

    async def run(self, interaction: discord.Interaction) -> None:
        await _mark_dq(interaction, self.ident, engine=True)


class BoosterDQButton(IdButton, template=r"acwc:fp:booster:(?P<id>\d+)"):
    prefix, label = "acwc:fp:booster", "Disqualify (booster mark)"
    style = discord.ButtonStyle.secondary

    async def run(self, interaction: discord.Interaction) -> None:
        await _mark_dq(interaction, self.ident, engine=False)


# --- the cog -------------------------------------------------------------------------------


class FairPlayCog(commands.Cog):
    def __init__(self, bot: ChampionshipBot) -> None:
        self.bot = bot
        bot.add_dynamic_items(
            InvestigateButton,
            ReopenButton,
            DismissButton,
            UpholdButton,
            EngineDQButton,
            BoosterDQButton,
        )
        if bot.outbox is not None:
            bot.outbox.register_view(REPORT_VIEW, self._report_view)
            bot.outbox.register_view(ENGINE_DQ_VIEW, lambda a: mark_view(int(a["player_id"])))

    @staticmethod
    def _report_view(args: dict[str, Any]) -> discord.ui.View:
        view = report_view(int(args["report_id"]))
        assert view is not None  # a new report is open
        return view

    @app_commands.command(
        name="report", description="Report suspected cheating privately to the TD (rule VII.A)"
    )
    async def report(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(ReportModal())

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Rule VII.A watch, off by default: show the TD what looks like a public accusation."""
        if not self.bot.config.fair_play.flag_public_accusations:
            return
        if message.author.bot or message.guild is None or not message.content:
            return
        try:
            flag = await self.bot.svc.fairplay.flag_message(
                guild_id=message.guild.id,
                channel_id=message.channel.id,
                message_id=message.id,
                author_id=message.author.id,
                content=message.content,
                author_role_ids=[role.id for role in getattr(message.author, "roles", [])],
            )
            if flag is not None and self.bot.outbox is not None:
                await self.bot.outbox.flush()
        except Exception:
            log.exception("fair-play watch failed on message %s", message.id)


async def setup(bot: ChampionshipBot) -> None:
    """The extension: the player commands and the TD's /td fairplay group."""
    add_td_commands(bot, "fairplay", "Cheat reports (private)", TD_COMMANDS)
    await bot.add_cog(FairPlayCog(bot))
