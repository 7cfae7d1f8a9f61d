"""Fifty commands and button presses on one match at once: one agreement wins, all others
get a clear private answer, and the database stays consistent (on SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable
from datetime import UTC, datetime

from sqlalchemy import select

from acwc_sim.harness import InteractionRecord
from bot.clock import FakeClock
from bot.config import Config
from bot.timefmt import discord_time
from cogs.errors import UNEXPECTED
from db.models import Match, OfferState, TimeOffer
from tests.conftest import TD_ID
from tests.factories import ROUND_THREAD
from tests.features.negotiation.test_cog import CAROL, accept_id, setup_round
from tests.running import ALICE, BOB, RunningBot

FRI_18 = datetime(2019, 10, 4, 18, 0, tzinfo=UTC)


async def test_fifty_racing_commands_leave_one_consistent_agreement(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup_round(bot, h, config, clock)
        match_id = seeded.match_ids[0]
        await h.slash("offer", user=ALICE, options={"times": "tue 18:00, thu 20:00"})
        await h.slash("offer", user=BOB, options={"times": "wed 18:00"})
        posts = h.in_channel(ROUND_THREAD)
        alice_buttons = [accept_id(p, h) for p in posts[:2]]
        bob_button = accept_id(posts[2], h)
        assert bot.sessions is not None
        async with bot.sessions() as session:
            offers = (await session.scalars(select(TimeOffer).order_by(TimeOffer.id))).all()
        times = {o.id: o.proposed_time for o in offers}

        calls: list[Awaitable[InteractionRecord]] = []
        for i in range(10):  # Bob accepts Alice's two offers, by button and by command
            calls.append(h.press(alice_buttons[i % 2], user=BOB, message=posts[i % 2]))
            calls.append(h.slash("accept", user=BOB, options={"offer": offers[i % 2].id}))
            calls.append(h.press(bob_button, user=ALICE, message=posts[2]))  # Alice takes Bob's
        for _ in range(5):  # the TD rules at the same time; others look or meddle
            calls.append(
                h.slash(
                    "td negotiation assign-time",
                    user=TD_ID,
                    options={"match": match_id, "time": "fri 18:00"},
                )
            )
            calls.append(h.press(bob_button, user=CAROL, message=posts[2]))
            calls.append(h.slash("match", user=ALICE))
            calls.append(h.slash("accept", user=CAROL, options={"offer": offers[0].id}))
        random.Random(7).shuffle(calls)
        assert len(calls) == 50
        records = await asyncio.gather(*calls)

        assert h.errors == []
        for record in records:
            assert record.response is not None and record.ephemeral, record.text
            assert len(record.responses) == 1, [r.text for r in record.responses]
            assert UNEXPECTED not in record.text, record.text

        async with bot.sessions() as session:
            match = await session.get(Match, match_id)
            rows = (await session.scalars(select(TimeOffer).order_by(TimeOffer.id))).all()
        assert match is not None
        accepted = [o for o in rows if o.state is OfferState.ACCEPTED and o.id in times]
        assigned = [o for o in rows if o.id not in times]
        player_wins = [r for r in records if r.text.startswith("Done: your match time is")]
        td_wins = [
            r
            for r in records
            if r.text.startswith("Swiss round 1, board 1 (Alice vs Bob) is now at")
        ]
        # Exactly one of the players' acceptances won; every other offer is closed.
        assert len(accepted) == len(player_wins) <= 1
        assert all(o.state is not OfferState.OPEN for o in rows)
        if assigned:  # the TD's time replaced or pre-empted the players' time
            assert match.agreed_time == FRI_18
            assert len(td_wins) >= 1
        else:
            assert len(accepted) == 1 and match.agreed_time == times[accepted[0].id]
        # Every agreement that won is announced once in the thread, and no other.
        announced = [
            m
            for m in h.in_channel(ROUND_THREAD)
            if m.text.startswith(f"Match time of <@{ALICE}> vs <@{BOB}>")
        ]
        assert len(announced) == len(player_wins) + len(td_wins) >= 1
        assert discord_time(match.agreed_time) in announced[-1].text
