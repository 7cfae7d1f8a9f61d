"""Round 1 waits for registration: `/td round start` refuses while it is open (its button
closes it and goes on), and undecided registrations block publishing until the TD decides
or drops them."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.errors import WrongStage
from db.engine import transaction
from db.models import AuditEntry, Player, Registration, RegistrationState, Round, Stage
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.entrants import add_entrants
from tests.running import RunningBot

LATE = {"Zed": 801, "Yan": 802}


async def add_pending(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, names: dict[str, int]
) -> None:
    """Registrations waiting for the TD (a flagged entry, say)."""
    now = clock.now()
    async with transaction(sessions) as session:
        for name, discord_id in names.items():
            player = Player(
                lichess_id=name.lower(),
                lichess_username=name,
                discord_id=discord_id,
                created_at=now,
            )
            session.add(player)
            await session.flush()
            session.add(
                Registration(
                    player_id=player.id,
                    state=RegistrationState.PENDING,
                    problems=["too_few_games"],
                    evidence={},
                    created_at=now,
                    updated_at=now,
                )
            )


def labels(message: object) -> list[str]:
    return [str(b["label"]) for b in message.buttons]  # type: ignore[attr-defined]


async def test_start_with_registration_open_is_refused_and_the_button_closes_and_continues(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        await add_entrants(bot.sessions, clock, 4, close_registration=False)
        refusal = await h.slash("td round start", user=TD_ID)
        assert refusal.ephemeral
        assert "**Registration is still open.**" in refusal.text
        assert "Preview of Swiss round" not in refusal.text  # no preview of an open field
        assert labels(refusal.last) == ["Close registration and continue", "Cancel"]
        with pytest.raises(WrongStage, match="Registration is still open"):
            await bot.svc.rounds.start(td_id=TD_ID)  # Publish from an old preview: refused
        async with bot.sessions() as session:
            assert (await session.scalars(select(Round))).all() == []
        assert h.in_channel(ANNOUNCE_CHANNEL) == []

        close = refusal.last.buttons[0]["custom_id"]
        preview = await h.press(close, user=TD_ID, message=refusal.last)
        assert "Preview of Swiss round 1 of 3" in preview.text
        assert "Registration is still open" not in preview.text
        assert labels(preview.last) == ["Publish round 1", "Cancel"]
        assert not (await bot.svc.registration.window()).is_open
        async with bot.sessions() as session:
            audit = (await session.scalars(select(AuditEntry.action))).all()
        assert "registration_closed" in audit  # exactly what /td registration close records
        [field] = h.in_channel(ANNOUNCE_CHANNEL)  # and, like it, the field goes public
        assert "The field of the Antichess World Championship 2019" in field.text

        done = await h.press(preview.last.buttons[0]["custom_id"], user=TD_ID, message=preview.last)
        assert "Published Swiss round 1" in done.text


async def test_pending_registrations_block_round_one_until_dropped(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        await add_entrants(bot.sessions, clock, 4)  # registration closed
        await add_pending(bot.sessions, clock, LATE)
        shown = await h.slash("td round start", user=TD_ID)
        assert "**2 registrations still wait for your decision**" in shown.text
        assert "• registration 5 Zed" in shown.text and "• registration 6 Yan" in shown.text
        assert "Preview of Swiss round 1" in shown.text  # the field as it stands
        assert labels(shown.last) == ["Drop 2 pending", "Cancel"]  # no Publish
        with pytest.raises(WrongStage, match="2 registrations still wait"):
            await bot.svc.rounds.start(td_id=TD_ID)

        dropped = await h.press(shown.last.buttons[0]["custom_id"], user=TD_ID, message=shown.last)
        assert "Dropped (each was told): Zed, Yan." in dropped.text
        assert "still wait" not in dropped.text
        assert labels(dropped.last) == ["Publish round 1", "Cancel"]
        for name, discord_id in LATE.items():
            [dm] = h.dms_to(discord_id)
            assert f"Your registration as **{name}** was not accepted" in dm.text
            assert "registration closed before the TD decided" in dm.text
        async with bot.sessions() as session:
            states = (
                await session.scalars(
                    select(Registration.state)
                    .join(Player)
                    .where(Player.lichess_id.in_(["zed", "yan"]))
                )
            ).all()
            dropped_audit = (
                await session.scalars(
                    select(AuditEntry).where(AuditEntry.action == "registration_dropped")
                )
            ).all()
        assert states == [RegistrationState.REJECTED] * 2
        assert len(dropped_audit) == 2 and all(a.actor_id == TD_ID for a in dropped_audit)

        await h.press(dropped.last.buttons[0]["custom_id"], user=TD_ID, message=dropped.last)
        async with bot.sessions() as session:
            stage = await session.scalar(select(Stage))
        assert stage is not None and len(stage.seeding) == 4  # the dropped are not paired


async def test_deciding_each_pending_registration_also_unblocks(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await add_entrants(bot.sessions, clock, 4)
        await add_pending(bot.sessions, clock, {"Zed": 801})
        shown = await h.slash("td round start", user=TD_ID)
        assert labels(shown.last) == ["Drop 1 pending", "Cancel"]
        approved = await h.slash(
            "td registration approve",
            user=TD_ID,
            options={"registration": 5, "reason": "played enough elsewhere"},
        )
        assert "approved" in approved.text
        again = await h.slash("td round start", user=TD_ID)
        assert "still wait" not in again.text and "(5 players)" in again.text
        assert labels(again.last) == ["Publish round 1", "Cancel"]


def bold_phrases(text: str) -> list[str]:
    return re.findall(r"\*\*([^*]+)\*\*", text)


async def test_the_text_names_only_buttons_the_message_carries(
    running_bot: RunningBot, clock: FakeClock
) -> None:
    """Registration open and one entry pending: the message said "press **Drop 1 pending**"
    under the buttons "Close registration and continue" and "Cancel" (issue 32)."""
    async with running_bot() as (bot, h):
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        await add_entrants(bot.sessions, clock, 4, close_registration=False)
        await add_pending(bot.sessions, clock, {"Zed": 801})
        shown = await h.slash("td round start", user=TD_ID)
        buttons = labels(shown.last)
        assert buttons == ["Close registration and continue", "Cancel"]
        assert "**1 registration still waits for your decision**" in shown.text
        pressed = [p for p in bold_phrases(shown.text) if "press" in shown.text.split(p)[0][-8:]]
        assert all(p in buttons for p in pressed), pressed
        assert "press **Drop 1 pending**" not in shown.text
        assert "**Drop 1 pending**, which `/td round start` offers once registration is closed" in (
            shown.text
        )
        assert f"**{buttons[0]}** closes it now" in shown.text

        closed = await h.press(shown.last.buttons[0]["custom_id"], user=TD_ID, message=shown.last)
        buttons = labels(closed.last)
        assert buttons == ["Drop 1 pending", "Cancel"]
        assert f"press **{buttons[0]}** to reject it (each player" in closed.last.text
