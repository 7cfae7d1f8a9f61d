"""One place that turns errors into replies: friendly and ephemeral, never a traceback."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from bot.errors import ReportedAttempt, UserFacingError
from bot.message_text import fit
from cogs import text as wording
from db.engine import is_write_conflict

log = logging.getLogger(__name__)

UNEXPECTED, CONFLICT = wording.UNEXPECTED, wording.CONFLICT

# The key in `interaction.extras` that marks an answer as a refusal (an error the user can
# fix, a TD-only command, a stale button): tests rely on it to check that a refusal changed
# nothing, without guessing from the wording.
REFUSAL = "acwc_refusal"
# Also set (True) when the refused attempt was put on record for the TD (`ReportedAttempt`).
REFUSAL_REPORTED = "acwc_refusal_reported"


def mark_refused(interaction: discord.Interaction, text: str, *, reported: bool = False) -> None:
    """Note on the interaction that its answer refuses what was asked (see REFUSAL)."""
    interaction.extras[REFUSAL] = text
    interaction.extras[REFUSAL_REPORTED] = reported


def _cause(error: Exception) -> Exception:
    """The error under discord.py's wrappers (a failed command, a failed option)."""
    while isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError):
        inner = getattr(error, "original", None) or error.__cause__
        if not isinstance(inner, Exception):
            break
        error = inner
    return error


class NotTD(app_commands.CheckFailure):
    """The command is for the tournament director only."""


# Discord refuses a message over 2000 characters, and the user would get no answer at all:
# a refusal may quote a very long input, so it is cut to fit, marked (bot.message_text.fit).


def message_for(error: Exception) -> str | None:
    """The reply for an expected error, or None when the error is a bug to log."""
    if isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError):
        original = getattr(error, "original", None) or error.__cause__
        if isinstance(error, app_commands.TransformerError):
            if isinstance(error.__cause__, UserFacingError):
                return error.__cause__.message
            return wording.not_a_value(error.value)
        if isinstance(original, Exception):
            return message_for(original)
    if isinstance(error, UserFacingError):
        return error.message
    if is_write_conflict(error):
        log.warning("write conflict answered with a retry message: %s", error)
        return CONFLICT
    if isinstance(error, NotTD | app_commands.MissingRole | app_commands.MissingPermissions):
        return wording.TD_ONLY
    if isinstance(error, app_commands.NoPrivateMessage):
        return wording.SERVER_ONLY
    if isinstance(error, app_commands.CommandOnCooldown):
        return wording.slow_down(error.retry_after)
    if isinstance(error, app_commands.CheckFailure):
        return wording.NOT_HERE
    return None


async def reply_error(interaction: discord.Interaction, error: Exception) -> None:
    """Reply ephemerally, whether or not the interaction was already answered or deferred."""
    text = message_for(error)
    if text is None:
        log.error(
            "unexpected error in %s by user %s",
            interaction.command.qualified_name if interaction.command else "a component",
            interaction.user.id,
            exc_info=error,
        )
        text = UNEXPECTED
    else:
        text = fit(text)
        mark_refused(interaction, text, reported=isinstance(_cause(error), ReportedAttempt))
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not deliver an error reply to user %s", interaction.user.id)


def install_error_handler(tree: app_commands.CommandTree[discord.Client]) -> None:
    @tree.error
    async def on_app_command_error(
        interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await reply_error(interaction, error)
