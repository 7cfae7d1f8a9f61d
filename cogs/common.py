"""Helpers every cog uses: who is the TD, the bot's services, guarded button callbacks, the
TD's autocomplete."""

from __future__ import annotations

import re
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, Self, cast

import discord
from discord import app_commands

from bot.errors import InvalidInput
from bot.ids import MAX_ID, parse_id, valid_id
from bot.lichess.urgency import person_waiting
from bot.message_text import (
    GAME_MAX,
    LETTER_MAX,
    NAME_MAX,
    REASON_MAX,
    TIME_MAX,
    TIMES_MAX,
    URL_MAX,
    ZONE_MAX,
    split_text,
)
from bot.rules import eligibility
from cogs import text as wording
from cogs.errors import NotTD, mark_refused, reply_error

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


def bot_of(interaction: discord.Interaction) -> ChampionshipBot:
    return cast("ChampionshipBot", interaction.client)


def is_td(interaction: discord.Interaction) -> bool:
    """Rule I.B: who is TD is `bot.rules.eligibility.is_td`'s (a configured TD user id, or a
    member holding the configured TD role)."""
    cfg = bot_of(interaction).config.discord
    user = interaction.user
    roles = [role.id for role in user.roles] if isinstance(user, discord.Member) else []
    return eligibility.is_td(user.id, roles, td_user_ids=cfg.td_user_ids, td_role_id=cfg.td_role_id)


def td_only() -> Callable[[Any], Any]:
    """An app-command check: anyone else gets the TD-only refusal from the error handler."""

    async def predicate(interaction: discord.Interaction) -> bool:
        if not is_td(interaction):
            raise NotTD("TD only")
        return True

    return app_commands.check(predicate)


async def guarded(interaction: discord.Interaction, action: Callable[[], Awaitable[None]]) -> None:
    """Buttons and modals bypass the tree's error handler: route their errors the same way.
    A person waits for the answer: no Lichess call waits out a pause (bot.lichess.urgency)."""
    person_waiting()
    try:
        await action()
    except Exception as error:
        await reply_error(interaction, error)


class TextTransformer(app_commands.Transformer):
    """A free-text option with the longest value Discord lets a user send (bot.message_text),
    so that every message quoting it fits in Discord's 2,000 characters. Discord's client
    enforces the bound; the bot re-checks and refuses a longer value with a clear answer."""

    def __init__(self, max_length: int) -> None:
        self._max_length = max_length

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    @property
    def min_value(self) -> int:
        return 1

    @property
    def max_value(self) -> int:
        return self._max_length

    async def transform(self, interaction: discord.Interaction, value: Any, /) -> str:
        text = str(value)
        if len(text) > self._max_length:
            raise InvalidInput(wording.too_long(len(text), self._max_length))
        return text


Reason = app_commands.Transform[str, TextTransformer(REASON_MAX)]
Letter = app_commands.Transform[str, TextTransformer(LETTER_MAX)]
TimeText = app_commands.Transform[str, TextTransformer(TIME_MAX)]
TimesText = app_commands.Transform[str, TextTransformer(TIMES_MAX)]
ZoneText = app_commands.Transform[str, TextTransformer(ZONE_MAX)]
LichessName = app_commands.Transform[str, TextTransformer(NAME_MAX)]
GameText = app_commands.Transform[str, TextTransformer(GAME_MAX)]
GameLink = app_commands.Transform[str, TextTransformer(URL_MAX)]

# Discord's integer options go up to 2**53; the client enforces the bounds, the bot re-checks.
DISCORD_MAX_INTEGER = 2**53


class RowIdTransformer(app_commands.Transformer):
    """An integer option naming a row (a match, an incident...): refused unless it can be one."""

    def __init__(self, noun: str) -> None:
        self.noun = noun

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.integer

    @property
    def min_value(self) -> int:
        return 1

    @property
    def max_value(self) -> int:
        return min(MAX_ID, DISCORD_MAX_INTEGER)

    async def transform(self, interaction: discord.Interaction, value: Any, /) -> int:
        if not valid_id(value):
            raise InvalidInput(wording.no_such(self.noun, value))
        return int(value)


MatchId = app_commands.Transform[int, RowIdTransformer("match")]
MATCH_HELP = wording.MATCH_HELP
IncidentId = app_commands.Transform[int, RowIdTransformer("incident")]
RegistrationId = app_commands.Transform[int, RowIdTransformer("registration")]
ReportId = app_commands.Transform[int, RowIdTransformer("report")]
OfferId = app_commands.Transform[int, RowIdTransformer("offer")]

# Autocomplete for the TD's options: a pick list of names ("Round 3: alice vs bob") whose
# values are what the option takes (a row id, a Lichess name or game id). Autocomplete skips
# the /td groups' checks, so each callback refuses anyone but the TD with an empty list.


async def match_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[int]]:
    if not is_td(interaction):
        return []
    found = await bot_of(interaction).svc.choices.matches(str(current))
    return [app_commands.Choice(name=name, value=value) for name, value in found]


async def player_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    if not is_td(interaction):
        return []
    found = await bot_of(interaction).svc.choices.players(str(current))
    return [app_commands.Choice(name=name, value=value) for name, value in found]


async def registration_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[int]]:
    if not is_td(interaction):
        return []
    found = await bot_of(interaction).svc.choices.registrations(str(current))
    return [app_commands.Choice(name=name, value=value) for name, value in found]


async def report_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[int]]:
    if not is_td(interaction):
        return []
    found = await bot_of(interaction).svc.choices.reports(str(current))
    return [app_commands.Choice(name=name, value=value) for name, value in found]


async def game_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    if not is_td(interaction):
        return []
    found = await bot_of(interaction).svc.choices.games(str(current))
    return [app_commands.Choice(name=name, value=value) for name, value in found]


async def incident_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[int]]:
    if not is_td(interaction):
        return []
    found = await bot_of(interaction).svc.choices.incidents(str(current))
    return [app_commands.Choice(name=name, value=value) for name, value in found]


STALE_BUTTON = (
    "This button is no longer valid. Use the matching slash command instead (see /match or "
    "/status)."
)


def embed(data: dict[str, Any]) -> discord.Embed:
    return discord.Embed.from_dict(data)


async def reply_in_parts(
    interaction: discord.Interaction,
    text: str,
    *,
    view: discord.ui.View | None = None,
    edit: bool = False,
) -> None:
    """A private reply that may be longer than one message (a round's preview, a list): cut
    between lines (bot.message_text.split_text), the first part answers with the buttons (or,
    `edit`, replaces the message whose button was pressed, and its buttons by `view`), and
    the other parts follow.  After a deferral the first part is the first followup."""
    first, *rest = split_text(text)
    if edit:
        await interaction.response.edit_message(content=first, view=view)
    elif interaction.response.is_done():  # deferred: the first part replaces "thinking"
        if view is not None:
            await interaction.followup.send(first, view=view, ephemeral=True)
        else:
            await interaction.followup.send(first, ephemeral=True)
    elif view is not None:
        await interaction.response.send_message(first, view=view, ephemeral=True)
    else:
        await interaction.response.send_message(first, ephemeral=True)
    for part in rest:
        await interaction.followup.send(part, ephemeral=True)


async def kick_outbox(interaction: discord.Interaction) -> None:
    """Deliver queued messages now instead of waiting for the next periodic flush."""
    bot = bot_of(interaction)
    if bot.outbox is not None and bot.flush_after_commands and not bot.setup_mode:
        await bot.outbox.flush()


class IdButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"acwc:unused:(?P<id>\d+)",
):
    """A persistent button whose custom_id carries one id, so it works after a restart.

    Subclasses give `template` (with an `id` group), `prefix`, `label` and `style`, and
    implement `run`; errors in `run` get the same ephemeral replies as slash commands.
    """

    prefix: str = "acwc:unused"
    label: str = ""
    style: discord.ButtonStyle = discord.ButtonStyle.primary
    kinds: ClassVar[list[type[IdButton]]] = []  # every subclass: what a press can reach

    def __init_subclass__(cls, *, template: str) -> None:
        super().__init_subclass__(template=template)
        IdButton.kinds.append(cls)

    def __init__(self, ident: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=self.label, style=self.style, custom_id=f"{self.prefix}:{ident}"
            )
        )
        self.ident = ident

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(parse_id(match["id"]) or 0)

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        """An id no row can have is left to `answer_stale_buttons`, which says so."""
        return valid_id(self.ident)

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, lambda: self.run(interaction))

    async def run(self, interaction: discord.Interaction) -> None:
        raise NotImplementedError


class FormModal(discord.ui.Modal):
    """A modal with a custom id of its own, answered even when discord.py no longer holds it.

    discord.py keeps one modal per custom id and drops it after the first submit, so two
    people with the same form open (both finalists bidding, two TDs on one registration)
    would lose the second submit without a word; a unique id per form avoids that. A submit
    that no open form answers (the bot restarted meanwhile) gets `STALE_FORM`.
    """

    open_ids: ClassVar[set[str]] = set()

    def __init__(self, *, title: str, prefix: str) -> None:
        super().__init__(title=title, custom_id=f"{prefix}:{secrets.token_hex(8)}")
        FormModal.open_ids.add(self.custom_id)

    def stop(self) -> None:
        FormModal.open_ids.discard(self.custom_id)
        super().stop()


STALE_FORM = (
    "This form is no longer valid (the bot restarted since it was opened) and nothing was "
    "changed. Open it again with the same button or command."
)


def single_button_view(item: IdButton) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(item)
    return view


# Components of persistent views with fixed custom ids (the /td setup menus): always live.
FIXED_LIVE_IDS: set[str] = set()


def button_is_live(custom_id: str) -> bool:
    """True when one of the bot's persistent buttons or menus will answer this custom id."""
    if custom_id in FIXED_LIVE_IDS:
        return True
    for button in IdButton.kinds:
        found = button.__discord_ui_compiled_template__.fullmatch(custom_id)
        if found is not None and parse_id(found["id"]) is not None:
            return True
    return False


async def answer_stale_buttons(interaction: discord.Interaction) -> None:
    """A listener for every interaction: a button no handler will answer (malformed, from
    an older version, an impossible id) or a form no open modal answers gets a short
    ephemeral reply instead of Discord's "This interaction failed".

    A live form stays in `FormModal.open_ids` until its submit was answered, so this never
    answers twice."""
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id = str(data.get("custom_id", ""))
    if interaction.type is discord.InteractionType.component:
        if button_is_live(custom_id):
            return
        text = STALE_BUTTON
    elif interaction.type is discord.InteractionType.modal_submit:
        if custom_id in FormModal.open_ids:
            return
        text = STALE_FORM
    else:
        return
    if not interaction.response.is_done():
        mark_refused(interaction, text)
        await interaction.response.send_message(text, ephemeral=True)
