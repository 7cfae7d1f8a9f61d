"""A round's pairings post and its boards (one line per board in the thread's opening
message, docs/MESSAGES.md) appear once: with the Publish button and the
periodic job racing, and after a sync that died between Discord's answer and the commit of
its id, however long ago (Discord's nonce memory lasts minutes; the bot looks first)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.app import ChampionshipBot
from bot.config import Config
from tests.factories import seed_round
from tests.harness.discord import DiscordHarness
from tests.running import ALICE, BOB, RunningBot

PAIRINGS = 4300
PLAYERS = [(ALICE, "Alice"), (BOB, "Bob"), (None, "Carol"), (None, "Dave"), (None, "Erin")]
PLAYERS += [(None, "Fay"), (None, "Gus"), (None, "Hal")]


def with_pairings(config: Config) -> Config:
    discord_cfg = config.discord.model_copy(update={"pairings_channel_id": PAIRINGS})
    return config.model_copy(update={"discord": discord_cfg})


def board_messages(h: DiscordHarness) -> list[str]:
    """The thread messages that list boards (the round's instructions, then the boards)."""
    return [m.content for m in h.messages if "\n**Board" in m.content]


def board_lines(h: DiscordHarness) -> list[str]:
    return [line for m in board_messages(h) for line in m.split("\n") if line.startswith("**Board")]


def round_posts(h: DiscordHarness) -> list[dict[str, Any]]:
    return [t for t in h.threads if t["name"] == "Swiss round 1"]


class Killed(Exception):
    """The process died here: nothing after this point ran."""


def die_once(monkeypatch: pytest.MonkeyPatch, name: str, *, after: int = 0) -> None:
    """The publisher's `name` raises on its call number `after` (0: the first), as if the
    bot were killed right there."""
    import bot.features.rounds.publisher as publisher

    original = getattr(publisher, name)
    calls = {"n": 0}

    def dying(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == after + 1:
            raise Killed(name)
        return original(*args, **kwargs)

    monkeypatch.setattr(publisher, name, dying)


async def published(bot: ChampionshipBot, config: Config) -> None:
    assert bot.sessions is not None
    await seed_round(bot.sessions, config, PLAYERS, thread_id=None)


@pytest.mark.parametrize("forum", [True, False])
async def test_the_button_and_the_job_racing_post_every_board_once(
    running_bot: RunningBot, config: Config, forum: bool
) -> None:
    cfg = with_pairings(config)
    async with running_bot(cfg) as (bot, h):
        if forum:
            h.add_forum_channel(PAIRINGS, "pairings")
        else:
            h.add_text_channel(PAIRINGS, "pairings")
        await published(bot, cfg)
        assert bot.publisher is not None
        await asyncio.gather(bot.publisher.sync(), bot.deliver(), bot.publisher.sync())
        boards = board_lines(h)
        assert len(boards) == 4 and len(set(boards)) == 4
        assert len(board_messages(h)) == 1  # the four boards in one message
        assert len(round_posts(h)) == 1


async def test_a_post_made_but_not_recorded_is_found_not_made_again(
    running_bot: RunningBot, config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = with_pairings(config)
    async with running_bot(cfg) as (bot, h):
        h.add_forum_channel(PAIRINGS, "pairings")
        await published(bot, cfg)
        assert bot.publisher is not None
        die_once(monkeypatch, "transaction", after=1)  # the post exists, its id not recorded
        with pytest.raises(Killed):
            await bot.publisher.sync()
        assert len(round_posts(h)) == 1
        h.forget_nonces()  # the restart came after Discord's nonce memory
        await bot.publisher.sync()
        assert len(round_posts(h)) == 1
        boards = board_lines(h)
        assert len(boards) == 4 and len(set(boards)) == 4


async def test_a_board_sent_but_not_recorded_is_not_sent_again(
    running_bot: RunningBot, config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = with_pairings(config)
    async with running_bot(cfg) as (bot, h):
        h.add_text_channel(PAIRINGS, "pairings")
        await published(bot, cfg)
        assert bot.publisher is not None
        die_once(monkeypatch, "transaction", after=2)  # the boards are out, ids not recorded
        with pytest.raises(Killed):
            await bot.publisher.sync()
        assert len(board_messages(h)) == 1
        h.forget_nonces()
        await bot.publisher.sync()
        assert len(board_messages(h)) == 1
        boards = board_lines(h)
        assert len(boards) == 4 and len(set(boards)) == 4
        assert len([m for m in h.in_channel(PAIRINGS) if "Swiss round 1" in m.content]) <= 1
