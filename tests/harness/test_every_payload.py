"""The harness checks every payload the bot sends against Discord's limits (bot.discord_limits)
and fails the test that made a breach, even when the bot caught Discord's 400 itself (as the
outbox does, retrying until it gives up): channel posts, edits, threads, interaction replies,
followups, edits of responses, modals, autocomplete answers and the command sync."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from acwc_sim.harness import discord_harness
from bot import discord_limits as limits

GUILD, USER, CHANNEL, FORUM = 600, 601, 602, 603
Action = Callable[[discord.Interaction], Awaitable[Any]]


def view_of(*items: discord.ui.Item[discord.ui.View]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def buttons(count: int, label: str = "b") -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for n in range(count):
        view.add_item(discord.ui.Button(label=label, custom_id=f"b{n}", row=n // 5))
    return view


class TooLongModal(discord.ui.Modal):
    def __init__(self, *, title: str = "Form", label: str = "Field", placeholder: str = "") -> None:
        super().__init__(title=title, custom_id="form")
        self.add_item(discord.ui.TextInput(label=label, custom_id="f", placeholder=placeholder))


async def channel(interaction: discord.Interaction) -> discord.TextChannel:
    found = interaction.client.get_channel(CHANNEL)
    assert isinstance(found, discord.TextChannel)
    return found


async def post(interaction: discord.Interaction, **kwargs: Any) -> None:
    await (await channel(interaction)).send(**kwargs)


async def edit_post(interaction: discord.Interaction, **kwargs: Any) -> None:
    sent = await (await channel(interaction)).send("fine")
    await sent.edit(**kwargs)


async def followup(interaction: discord.Interaction, **kwargs: Any) -> None:
    await interaction.response.defer(ephemeral=True)
    await interaction.followup.send(**kwargs)


async def edit_reply(interaction: discord.Interaction, **kwargs: Any) -> None:
    await interaction.response.send_message("fine", ephemeral=True)
    await interaction.edit_original_response(**kwargs)


async def thread(interaction: discord.Interaction, name: str) -> None:
    sent = await (await channel(interaction)).send("fine")
    await sent.create_thread(name=name)


async def forum_post(interaction: discord.Interaction, content: str) -> None:
    forum = interaction.client.get_channel(FORUM)
    assert isinstance(forum, discord.ForumChannel)
    await forum.create_thread(name="Round 1", content=content)


BIG = "x" * 4097
MANY_OPTIONS = [discord.SelectOption(label=str(n)) for n in range(26)]
BREACHES: dict[str, Action] = {
    "a post's content": lambda i: post(i, content="x" * 2001),
    "an edit's embed": lambda i: edit_post(i, embed=discord.Embed(description=BIG)),
    "a followup's content": lambda i: followup(i, content="x" * 2001),
    "an edited reply's field value": lambda i: edit_reply(
        i, embed=discord.Embed().add_field(name="n", value="v" * 1025)
    ),
    "a footer": lambda i: post(i, embed=discord.Embed().set_footer(text="f" * 2049)),
    "an author name": lambda i: post(i, embed=discord.Embed().set_author(name="a" * 257)),
    "26 embed fields": lambda i: post(
        i, embed=discord.Embed().add_field(name="n", value="v").add_field(name="n", value="v")
    ),  # replaced below: discord.py itself refuses past 25 fields
    "embeds over 6,000 in all": lambda i: post(
        i, embeds=[discord.Embed(description="d" * 4000), discord.Embed(description="d" * 2001)]
    ),
    "a button label": lambda i: post(i, content="c", view=buttons(1, label="l" * 81)),
    "a custom_id": lambda i: post(
        i, content="c", view=view_of(discord.ui.Button(label="b", custom_id="c" * 101))
    ),
    "a select placeholder": lambda i: post(
        i,
        content="c",
        view=view_of(
            discord.ui.Select(
                custom_id="s", placeholder="p" * 151, options=[discord.SelectOption(label="a")]
            )
        ),
    ),
    "a select option label": lambda i: post(
        i,
        content="c",
        view=view_of(
            discord.ui.Select(custom_id="s", options=[discord.SelectOption(label="o" * 101)])
        ),
    ),
    "a reply's content": lambda i: i.response.send_message("x" * 2001),
    "a modal title": lambda i: i.response.send_modal(TooLongModal(title="t" * 46)),
    "a text input label": lambda i: i.response.send_modal(TooLongModal(label="l" * 46)),
    "a text input placeholder": lambda i: i.response.send_modal(
        TooLongModal(placeholder="p" * 101)
    ),
    "a thread name": lambda i: thread(i, "n" * 101),
    "a forum post's first message": lambda i: forum_post(i, "x" * 2001),
}
# discord.py refuses 26 fields, 11 embeds or a mention both parsed and listed before sending:
# those are checked on the payload (below) instead.
del BREACHES["26 embed fields"]


class BreachBot(commands.Bot):
    """One command per breach; every HTTPException is caught, as the outbox catches them."""

    def __init__(self, action: Action) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())
        self.action = action
        self.refused: list[discord.HTTPException] = []

    async def setup_hook(self) -> None:
        @app_commands.command(name="go", description="Send the payload")
        async def go(interaction: discord.Interaction) -> None:
            try:
                await self.action(interaction)
            except discord.HTTPException as error:
                self.refused.append(error)
            if not interaction.response.is_done():
                await interaction.response.send_message("done", ephemeral=True)

        self.tree.add_command(go)


async def run_breach(action: Action, *, expected: bool = False) -> BreachBot:
    bot = BreachBot(action)
    async with discord_harness(bot, run_setup_hook=True, guild_id=GUILD) as h:
        h.add_text_channel(CHANNEL, "general")
        h.add_forum_channel(FORUM, "pairings")
        h.add_member(USER, "alice")
        h.breaches_expected = expected
        await h.slash("go", user=USER)
    return bot


@pytest.mark.parametrize("what", list(BREACHES))
async def test_a_caught_breach_still_fails_the_test(what: str) -> None:
    with pytest.raises(AssertionError, match="Discord refuses"):
        await run_breach(BREACHES[what])


@pytest.mark.parametrize("what", list(BREACHES))
async def test_discord_answers_a_breach_with_50035(what: str) -> None:
    bot = await run_breach(BREACHES[what], expected=True)
    assert bot.refused and all(e.status == 400 and e.code == 50035 for e in bot.refused)


async def test_what_fits_passes() -> None:
    async def fits(interaction: discord.Interaction) -> None:
        await post(interaction, content="x" * 2000, view=buttons(25, label="l" * 80))
        await post(interaction, embed=discord.Embed(title="t" * 256, description="d" * 4096))
        await interaction.response.send_modal(TooLongModal(title="t" * 45, label="l" * 45))

    bot = await run_breach(fits)
    assert bot.refused == []


async def test_a_bad_command_sync_is_recorded() -> None:
    class BadSync(BreachBot):
        async def setup_hook(self) -> None:
            @app_commands.command(name="go", description="d" * 100)
            async def go(interaction: discord.Interaction, x: str = "") -> None:
                return None

            go._params["x"].description = "d" * 101  # type: ignore[attr-defined]
            self.tree.add_command(go)
            try:
                await self.tree.sync()
            except discord.HTTPException as error:
                self.refused.append(error)

    with pytest.raises(AssertionError, match="Discord refuses"):
        async with discord_harness(BadSync(post), run_setup_hook=True, guild_id=GUILD):
            pass


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        ({"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]}, "26 embed fields"),
        ({"components": [{"type": 1, "components": []}] * 6}, "6 action rows"),
        (
            {"components": [{"type": 1, "components": [{"type": 2, "custom_id": "a"}] * 6}]},
            "6 buttons",
        ),
        (
            {
                "components": [
                    {"type": 1, "components": [{"type": 3, "custom_id": "s", "options": []}] * 2}
                ]
            },
            "one select per row",
        ),
        ({"allowed_mentions": {"parse": ["channels"]}}, "only roles, users, everyone"),
        ({"allowed_mentions": {"users": list(range(101))}}, "101 users"),
        ({"allowed_mentions": {"parse": ["users"], "users": [1]}}, "both parses and lists"),
        ({"embeds": [{"title": "t"}] * 11}, "11 embeds"),
    ],
)
def test_what_discord_py_would_not_build_is_still_checked(
    payload: dict[str, Any], problem: str
) -> None:
    assert any(problem in p for p in limits.message_problems(payload))


def test_autocomplete_answers_are_checked() -> None:
    choices = [{"name": str(n), "value": str(n)} for n in range(26)]
    assert limits.interaction_response_problems({"type": 8, "data": {"choices": choices}})
    long_value = [{"name": "n", "value": "v" * 101}]
    assert limits.interaction_response_problems({"type": 8, "data": {"choices": long_value}})
