"""Discord archives a thread nobody wrote in for a week and refuses to edit its messages
(error 50083) until it is unarchived. A round's pairings post in a forum is its thread's first
message, and its talk now happens in the match threads: the post must still take the week's
results."""

from __future__ import annotations

import discord
import pytest
from sqlalchemy import select

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config
from db.models import Match, Round
from tests.conftest import TD_ID
from tests.entrants import publish_round_one
from tests.features.rounds.test_cog import PAIRINGS, with_pairings
from tests.harness import DiscordHarness
from tests.running import RunningBot


async def archived_round_post(
    bot: ChampionshipBot, h: DiscordHarness, clock: FakeClock
) -> tuple[Round, Match]:
    """Round 1 published in a forum, then a week without a message in its post: Discord
    archives the post's thread. Returns the round and its first match."""
    h.add_forum_channel(PAIRINGS, "pairings")
    await publish_round_one(bot, h, clock, 4)
    assert bot.sessions is not None
    async with bot.sessions() as session:
        round_ = await session.scalar(select(Round))
        first = (await session.scalars(select(Match).order_by(Match.board))).first()
    assert round_ is not None and round_.thread_id is not None and first is not None
    h.archive_thread(round_.thread_id)
    return round_, first


async def test_a_result_reaches_the_pairings_post_of_an_archived_round_post(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot(with_pairings(config)) as (bot, h):
        round_, first = await archived_round_post(bot, h, clock)
        assert round_.thread_id is not None

        done = await h.slash(
            "td round set-score",
            user=TD_ID,
            options={"match": first.id, "score_a": 5.5, "score_b": 1},
        )
        assert "5.5–1 recorded" in done.text
        post = h.in_channel(round_.thread_id)[0]
        assert "**5.5–1**" in post.text  # the edit went through
        unarchived = [
            r
            for r in h.requests
            if r.method == "PATCH"
            and r.path == "/channels/{channel_id}"
            and r.json.get("archived") is False
        ]
        assert len(unarchived) == 1
        thread = next(t for t in h.threads if t["id"] == str(round_.thread_id))
        assert thread["thread_metadata"]["archived"] is False


async def test_the_harness_refuses_an_edit_in_an_archived_thread_as_discord_does(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    """The fake is not kinder than Discord: without unarchiving, the edit fails."""
    async with running_bot(with_pairings(config)) as (bot, h):
        round_, _ = await archived_round_post(bot, h, clock)
        assert round_.thread_id is not None
        message = bot.get_partial_messageable(round_.thread_id).get_partial_message(
            round_.thread_id
        )
        with pytest.raises(discord.HTTPException) as refused:
            await message.edit(content="edited")
        assert refused.value.code == 50083
