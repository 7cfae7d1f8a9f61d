"""The TD's comment on a rejection reaches the player whole, whatever its length: up to
Discord's own ceilings (6,000 characters for a slash option, 4,000 in a form) it is
delivered over as many DMs as it takes, cut between words, none over 2,000 characters; a
longer one is refused up front with a clear answer (nothing decided)."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import select

from bot.app import ChampionshipBot
from db.models import OutboxMessage, RegistrationState
from tests.conftest import TD_ID, add_player
from tests.fakes.lichess import FakeLichess
from tests.features.registration.test_cog import register_and_verify
from tests.running import ALICE, RunningBot

COMMENT = ("Your account is too new for rule II.B, and here is why in detail. " * 20)[:1000]


async def registration_of(bot: ChampionshipBot) -> int:
    summary = await bot.svc.registration.status(discord_id=ALICE)
    assert summary is not None
    return summary.id


async def nothing_failed(bot: ChampionshipBot) -> None:
    assert bot.sessions is not None
    async with bot.sessions() as session:
        for row in (await session.scalars(select(OutboxMessage))).all():
            assert row.sent_at is not None and row.failed_at is None, row.last_error


async def reject(bot: ChampionshipBot, h: Any, fake: FakeLichess, comment: str) -> Any:
    """Alice registers; the TD rejects her registration with `comment` (the slash command)."""
    await register_and_verify(bot, h, fake, ALICE, "Alice")
    number = await registration_of(bot)
    options = {"registration": number, "comment": comment}
    return await h.slash("td registration reject", user=TD_ID, options=options)


def delivered(h: Any) -> str:
    """The rejection as the player reads it: its DMs, in order, joined."""
    parts = [m.content for m in h.dms_to(ALICE) if "Your registration" not in m.content]
    first = next(m.content for m in h.dms_to(ALICE) if "rejected by the TD" in m.content)
    assert all(len(p) <= 2000 for p in [first, *parts])
    joined = " ".join([first, *parts])
    return re.sub(r"\(part \d+ of \d+\)|\(continued\)", " ", joined)  # the parts' marks


async def test_a_4800_character_comment_reaches_the_player(
    running_bot: RunningBot, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    long_comment = ("Your account was created after 1 March 2019 (rule II.A.1). " * 90)[:4800]
    async with running_bot() as (bot, h):
        record = await reject(bot, h, fake, long_comment)
        assert record.refusal is None and "rejected" in record.text
        assert bot.outbox is not None
        await bot.outbox.flush()
        await nothing_failed(bot)
        text = delivered(h)
        words = long_comment.split()
        assert text.split()[-len(words) :] == words  # every word, in order, nothing lost


async def test_a_comment_over_discords_ceiling_is_refused_up_front(
    running_bot: RunningBot, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    async with running_bot() as (bot, h):
        record = await reject(bot, h, fake, "x" * 6001)
        assert record.ephemeral and record.refusal is not None
        assert "6,001 characters" in record.text and "at most 6,000" in record.text
        summary = await bot.svc.registration.status(discord_id=ALICE)
        assert summary is not None and summary.state is RegistrationState.PENDING
        assert not any("rejected" in m.text for m in h.dms_to(ALICE))


async def test_the_longest_comment_reaches_the_player_in_full(
    running_bot: RunningBot, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    async with running_bot() as (bot, h):
        record = await reject(bot, h, fake, COMMENT)
        assert record.refusal is None and "rejected" in record.text
        assert bot.outbox is not None
        await bot.outbox.flush()
        [told] = [m for m in h.dms_to(ALICE) if "rejected" in m.text]
        assert COMMENT in told.content and len(told.content) <= 2000
        await nothing_failed(bot)
        status = await h.slash("status", user=ALICE)
        assert COMMENT in status.text  # the embed's field holds it whole (1,024 at most)


async def test_the_longest_comment_from_the_form_reaches_the_player(
    running_bot: RunningBot, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    async with running_bot() as (bot, h):
        await register_and_verify(bot, h, fake, ALICE, "Alice")
        review = next(m for m in h.dms_to(TD_ID) if h.buttons(m))
        reject = next(b for b in h.buttons(review) if b["label"] == "Reject")
        opened = await h.press(reject["custom_id"], user=TD_ID, message=review, dm=True)
        [modal] = [r for r in opened.responses if r.kind == "modal"]
        [field] = modal.modal_fields
        assert field["custom_id"] == "reason"
        submitted = await h.submit_modal(modal.custom_id, {"reason": COMMENT}, user=TD_ID)
        assert submitted.refusal is None and "rejected" in submitted.text
        assert bot.outbox is not None
        await bot.outbox.flush()
        [told] = [m for m in h.dms_to(ALICE) if "rejected" in m.text]
        assert COMMENT in told.content
        await nothing_failed(bot)
