"""A round's pairings post and its boards (a thread per match, opened by a message that pings
its players, docs/MESSAGES.md) appear once: with the Publish button and the
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
    """The openings of the match threads: the board pinging its players, then what to do."""
    return [m.content for m in h.messages if m.content.startswith("**Board")]


def board_lines(h: DiscordHarness) -> list[str]:
    return [m.split("\n")[0] for m in board_messages(h)]


def match_threads(h: DiscordHarness) -> list[str]:
    return [t["name"] for t in h.threads if "· board" in t["name"]]


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
        assert len(boards) == 4 and len(set(boards)) == 4  # one opening per match thread
        assert len(match_threads(h)) == 4 and len(set(match_threads(h))) == 4
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
        assert len(match_threads(h)) == 4


# Transactions of a sync: 0 the in-flight marker, 1 the round's post, 2 the first match's
# thread (made, its id not recorded), 3 in a text channel that thread's opening (sent, its id
# not recorded); a forum post is made with its opening, so 3 is the second match's post.
@pytest.mark.parametrize("forum", [True, False])
@pytest.mark.parametrize("after", [2, 3])
async def test_a_board_sent_but_not_recorded_is_not_sent_again(
    running_bot: RunningBot,
    config: Config,
    monkeypatch: pytest.MonkeyPatch,
    forum: bool,
    after: int,
) -> None:
    cfg = with_pairings(config)
    async with running_bot(cfg) as (bot, h):
        if forum:
            h.add_forum_channel(PAIRINGS, "pairings")
        else:
            h.add_text_channel(PAIRINGS, "pairings")
        await published(bot, cfg)
        assert bot.publisher is not None
        die_once(monkeypatch, "transaction", after=after)
        with pytest.raises(Killed):
            await bot.publisher.sync()
        assert len(match_threads(h)) == (after - 1 if forum else 1)
        h.forget_nonces()
        await bot.publisher.sync()
        boards = board_lines(h)
        assert len(boards) == 4 and len(set(boards)) == 4
        assert len(match_threads(h)) == 4 and len(set(match_threads(h))) == 4
        assert len([m for m in h.in_channel(PAIRINGS) if "Swiss round 1" in m.content]) <= 1
