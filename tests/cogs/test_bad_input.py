"""Hostile and careless input through the real command tree: every refusal is a clear
ephemeral reply, never "Something went wrong", and it leaves the database as it was."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config
from cogs.common import STALE_BUTTON
from cogs.errors import UNEXPECTED
from db.models import Base, Match, MatchState
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID, TD_ROLE_ID
from tests.factories import ROUND_THREAD, SeededRound, seed_round
from tests.harness import DiscordHarness, InteractionRecord
from tests.running import ALICE, BOB, RunningBot

CAROL, DAVE = 104, 105
MONDAY = datetime(2019, 9, 30, 9, 0, tzinfo=UTC)
HUGE = "9" * 40


async def snapshot(sessions: async_sessionmaker[AsyncSession] | None) -> dict[str, list[Any]]:
    """Every row of every table: a refused command must leave all of them as they were."""
    assert sessions is not None
    rows: dict[str, list[Any]] = {}
    async with sessions() as session:
        for table in Base.metadata.sorted_tables:
            result = await session.execute(select(table))
            rows[table.name] = sorted(map(tuple, result.all()), key=repr)
    return rows


async def setup_round(
    bot: ChampionshipBot, h: DiscordHarness, config: Config, clock: FakeClock
) -> SeededRound:
    clock.set(MONDAY)
    h.add_text_channel(ROUND_THREAD, "round-1")
    h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
    h.add_member(CAROL, "carol")
    h.add_member(DAVE, "dave")
    assert bot.sessions is not None
    return await seed_round(
        bot.sessions, config, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")]
    )


def refused(rec: InteractionRecord, *expected: str) -> None:
    assert rec.responses, "the user got no answer at all"
    assert rec.ephemeral, rec.text
    assert UNEXPECTED not in rec.text, rec.text
    assert not rec.errors, rec.errors
    for words in expected:
        assert words in rec.text, rec.text


@pytest.mark.parametrize(
    ("times", "words"),
    [
        ("9999-12-31 23:59", "after the round ends"),
        ("9999-12-31 23:59 -05:00", "out of range"),
        ("0001-01-01 00:00 +05:00", "out of range"),
        ("0001-01-01 00:00", "in the past"),
    ],
)
async def test_offer_far_outside_the_round(
    running_bot: RunningBot, config: Config, clock: FakeClock, times: str, words: str
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        before = await snapshot(bot.sessions)
        refused(await h.slash("offer", user=ALICE, options={"times": times}), words)
        assert await snapshot(bot.sessions) == before


async def test_assign_time_far_outside_the_round(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        before = await snapshot(bot.sessions)
        rec = await h.slash(
            "td negotiation assign-time",
            user=TD_ID,
            options={"match": seeded.match_ids[0], "time": "9999-12-31 23:59"},
        )
        refused(rec, "after the round ends")
        assert await snapshot(bot.sessions) == before


@pytest.mark.parametrize(
    ("score_a", "score_b"),
    [(1e308, 0.0), (0.0, 1e308), (float("nan"), 0.0), (float("inf"), 0.0), (-1.0, 6.0),
     (10.5, 0.0), (3.25, 6.75), (11.0, 0.0)],
)  # fmt: skip
async def test_set_score_refuses_impossible_scores(
    running_bot: RunningBot, config: Config, clock: FakeClock, score_a: float, score_b: float
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        before = await snapshot(bot.sessions)
        rec = await h.slash(
            "td round set-score",
            user=TD_ID,
            options={"match": seeded.match_ids[0], "score_a": score_a, "score_b": score_b},
        )
        refused(rec, "not a possible score")
        assert await snapshot(bot.sessions) == before


@pytest.mark.parametrize("match_id", [10**40, -1, 0, 2**63])
async def test_an_id_option_no_row_can_have(
    running_bot: RunningBot, config: Config, clock: FakeClock, match_id: int
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        before = await snapshot(bot.sessions)
        rec = await h.slash(
            "td round set-score",
            user=TD_ID,
            options={"match": match_id, "score_a": 6.0, "score_b": 0.0},
        )
        refused(rec, f"There is no match {match_id}")
        rec = await h.slash(
            "td incident overrule", user=TD_ID, options={"incident": match_id, "reason": "x"}
        )
        refused(rec, f"There is no incident {match_id}")
        assert await snapshot(bot.sessions) == before


@pytest.mark.parametrize(
    "custom_id",
    [
        f"acwc:offer:accept:{HUGE}",
        "acwc:offer:accept:-1",
        "acwc:offer:accept:abc",
        f"acwc:inc:claim:{HUGE}",
        "acwc:reg:approve:0",
        "acwc:something:else:1",
        "not-ours",
    ],
)
async def test_a_malformed_or_stale_button_says_so(
    running_bot: RunningBot, config: Config, clock: FakeClock, custom_id: str
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        before = await snapshot(bot.sessions)
        rec = await h.press(custom_id, user=ALICE)
        refused(rec, STALE_BUTTON)
        assert len([r for r in rec.responses if r.text]) == 1
        assert await snapshot(bot.sessions) == before


async def test_a_live_button_is_not_called_stale(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        assert bot.outbox is not None
        await h.slash("offer", user=ALICE, options={"times": "2019-10-02 18:00"})
        await bot.outbox.flush()
        post = h.in_channel(ROUND_THREAD)[-1]
        rec = await h.press(str(h.buttons(post)[0]["custom_id"]), user=BOB, message=post)
        assert STALE_BUTTON not in rec.text and "18:00" in rec.text, rec.text


@pytest.mark.parametrize("player", ["", "   ", "@", "mallory", "none"])
async def test_fault_needs_a_player_of_the_match_or_nobody(
    running_bot: RunningBot, config: Config, clock: FakeClock, player: str
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        before = await snapshot(bot.sessions)
        rec = await h.slash(
            "td negotiation fault",
            user=TD_ID,
            options={"match": seeded.match_ids[0], "player": player},
        )
        refused(rec, "nobody")
        assert await snapshot(bot.sessions) == before


async def test_fault_nobody_and_the_choices_offered(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        match_id = seeded.match_ids[0]
        assert await bot.svc.rulings.fault_choices(match_id) == ["Alice", "Bob", "nobody"]
        assert await bot.svc.rulings.fault_choices(10**40) == ["nobody"]
        rec = await h.slash(
            "td negotiation fault", user=TD_ID, options={"match": match_id, "player": "nobody"}
        )
        assert rec.ephemeral and "nobody at fault" in rec.text, rec.text
        assert bot.sessions is not None
        async with bot.sessions() as session:
            match = await session.get(Match, match_id)
            assert match is not None and match.td_assigns and match.state is MatchState.NEGOTIATING


async def test_user_text_never_pings_everyone_or_a_role(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    hostile = f"@everyone @here <@&{TD_ROLE_ID}> cheater"
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        assert bot.outbox is not None
        rec = await h.slash(
            "td discipline disqualify",
            user=TD_ID,
            options={"player": "Bob", "reason": hostile, "engine": False},
        )
        assert rec.ephemeral and "disqualified" in rec.text, rec.text
        await bot.outbox.flush()
        carrying = [m for m in h.messages if "@everyone" in m.text]
        assert carrying, "the reason reached no message"
        for message in carrying:
            mentions = message.raw.get("allowed_mentions")
            assert mentions is not None, message.raw
            assert mentions.get("parse", []) == ["users"], mentions
            assert not mentions.get("roles"), mentions
        for response in rec.responses:
            if response.kind in ("message", "followup"):
                body = response.raw.get("data", response.raw)
                assert body.get("allowed_mentions", {}).get("parse") == ["users"], body
