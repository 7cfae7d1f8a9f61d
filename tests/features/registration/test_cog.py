"""Registration through the real command tree: what players and the TD see and can press."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config
from db.models import RegistrationState
from tests.conftest import TD_ALERT_CHANNEL, TD_ID, add_player
from tests.fakes.lichess import FakeLichess
from tests.harness import DiscordHarness
from tests.running import ALICE, BOB, ROLE_TD, RunningBot


def code_in(text: str) -> str:
    start = text.index("`acwc-") + 1
    return text[start : text.index("`", start)]


async def register_and_verify(
    bot: ChampionshipBot, h: DiscordHarness, fake: FakeLichess, user: int, name: str
) -> str:
    record = await h.slash("register", user=user, options={"lichess_username": name})
    assert record.ephemeral, record.text
    code = code_in(record.text)
    fake.set_profile(name, bio=f"I play antichess {code}")
    verify = next(b for b in h.buttons(record.last) if b["label"] == "Verify")
    pressed = await h.press(verify["custom_id"], user=user, message=record.last)
    assert pressed.ephemeral
    return pressed.text


async def test_player_registers_and_td_approves_from_dm(
    running_bot: RunningBot, fake: FakeLichess
) -> None:
    add_player(fake, "Alice", rating=1900)
    async with running_bot() as (bot, h):
        text = await register_and_verify(bot, h, fake, ALICE, "Alice")
        assert "verified" in text and "1900" in text

        td_dms = h.dms_to(TD_ID)
        assert len(td_dms) == 1
        assert "Alice" in td_dms[0].text and "1900" in td_dms[0].text
        labels = [b["label"] for b in h.buttons(td_dms[0])]
        assert labels == ["Approve", "Reject"]

        approve = h.buttons(td_dms[0])[0]["custom_id"]
        record = await h.press(approve, user=TD_ID, message=td_dms[0], dm=True)
        assert "approved" in record.text
        assert h.buttons(h.dms_to(TD_ID)[0]) == []  # the buttons are gone once decided
        assert any("approved" in m.text for m in h.dms_to(ALICE))

        status = await h.slash("status", user=ALICE)
        assert status.ephemeral and "Approved" in status.text


async def test_td_click_after_a_restart(running_bot: RunningBot, fake: FakeLichess) -> None:
    """The decision buttons in the TD's DM keep working after the bot restarts."""
    add_player(fake, "Alice")
    async with running_bot() as (bot, h):
        await register_and_verify(bot, h, fake, ALICE, "Alice")
        approve = h.buttons(h.dms_to(TD_ID)[0])[0]["custom_id"]
    async with running_bot() as (bot2, h2):
        record = await h2.press(approve, user=TD_ID, dm=True)
        assert "approved" in record.text, record.text
        summary = await bot2.svc.registration.status(discord_id=ALICE)
        assert summary is not None and summary.state is RegistrationState.APPROVED


async def test_flagged_registration_needs_a_reason_through_the_modal(
    running_bot: RunningBot, fake: FakeLichess
) -> None:
    add_player(fake, "Alice", games=40)
    async with running_bot() as (bot, h):
        text = await register_and_verify(bot, h, fake, ALICE, "Alice")
        assert "need the TD's decision" in text
        dm = h.dms_to(TD_ID)[0]
        assert "too_few_games" in dm.text and "40" in dm.text
        record = await h.press(h.buttons(dm)[0]["custom_id"], user=TD_ID, message=dm, dm=True)
        assert record.response is not None and record.response.kind == "modal"
        submitted = await h.submit_modal(None, {"reason": "Hundreds of games in 2017"}, user=TD_ID)
        assert "approved" in submitted.text
        summary = await bot.svc.registration.status(discord_id=ALICE)
        assert summary is not None
        assert summary.exception_reason == "Hundreds of games in 2017"


async def test_td_rejects_with_a_comment(running_bot: RunningBot, fake: FakeLichess) -> None:
    add_player(fake, "Alice")
    async with running_bot() as (bot, h):
        await register_and_verify(bot, h, fake, ALICE, "Alice")
        dm = h.dms_to(TD_ID)[0]
        await h.press(h.buttons(dm)[1]["custom_id"], user=TD_ID, message=dm, dm=True)
        await h.submit_modal(None, {"reason": "Engine mark in 2018"}, user=TD_ID)
        assert any("Engine mark in 2018" in m.text for m in h.dms_to(ALICE))


async def test_only_the_td_can_press_decision_buttons(
    running_bot: RunningBot, fake: FakeLichess, config: Config
) -> None:
    """With no TD user ids, reviews go to the TD alert channel, where others could click."""
    add_player(fake, "Alice")
    role_only = config.model_copy(
        update={"discord": config.discord.model_copy(update={"td_user_ids": ()})}
    )
    async with running_bot(role_only) as (bot, h):
        await register_and_verify(bot, h, fake, ALICE, "Alice")
        review = h.in_channel(TD_ALERT_CHANNEL)[0]
        approve = h.buttons(review)[0]["custom_id"]
        record = await h.press(approve, user=BOB, message=review)
        assert record.ephemeral and "Only the tournament director" in record.text
        summary = await bot.svc.registration.status(discord_id=ALICE)
        assert summary is not None and summary.state is RegistrationState.PENDING
        by_role = await h.press(approve, user=ROLE_TD, message=review)
        assert "approved" in by_role.text


async def test_verify_button_of_someone_else(running_bot: RunningBot, fake: FakeLichess) -> None:
    add_player(fake, "Alice")
    async with running_bot() as (bot, h):
        record = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        fake.set_profile("Alice", bio=code_in(record.text))
        verify = h.buttons(record.last)[0]["custom_id"]
        pressed = await h.press(verify, user=BOB, message=record.last)
        assert pressed.ephemeral and "belongs to another player" in pressed.text
        assert await bot.svc.registration.status(discord_id=BOB) is None


async def test_verify_without_the_code(running_bot: RunningBot, fake: FakeLichess) -> None:
    add_player(fake, "Alice")
    async with running_bot() as (bot, h):
        record = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        code = code_in(record.text)
        pressed = await h.press(
            h.buttons(record.last)[0]["custom_id"], user=ALICE, message=record.last
        )
        assert pressed.ephemeral and f"could not find the code `{code}`" in pressed.text
        assert await bot.svc.registration.status(discord_id=ALICE) is None


@pytest.mark.parametrize(
    ("setup", "name", "expected"),
    [
        ({}, "ghost", "no Lichess account named `ghost`"),
        ({"title": "BOT"}, "Robo", "BOT account"),
        ({"closed": True, "disabled": True}, "Gone", "closed Lichess account"),
        ({}, "not a name", "not a valid Lichess username"),
        ({}, "Ogul1", "pre-seeded"),
    ],
)
async def test_register_refusals_are_ephemeral_and_specific(
    running_bot: RunningBot, fake: FakeLichess, setup: dict, name: str, expected: str
) -> None:
    if name not in ("ghost", "not a name"):
        add_player(fake, name, **setup)
    async with running_bot() as (bot, h):
        record = await h.slash("register", user=ALICE, options={"lichess_username": name})
        assert record.ephemeral
        assert expected in record.text
        assert not record.errors
        assert await bot.svc.registration.status(discord_id=ALICE) is None


async def test_td_cannot_register_by_id_or_role(running_bot: RunningBot, fake: FakeLichess) -> None:
    add_player(fake, "Alice")
    async with running_bot() as (_, h):
        for user in (TD_ID, ROLE_TD):
            record = await h.slash("register", user=user, options={"lichess_username": "Alice"})
            assert record.ephemeral and "cannot register" in record.text


async def test_register_when_closed_and_td_reopens(
    running_bot: RunningBot, fake: FakeLichess, clock: FakeClock
) -> None:
    add_player(fake, "Alice")
    clock.set(datetime(2019, 10, 5, tzinfo=UTC))
    async with running_bot() as (_, h):
        record = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        closed_at = int(datetime(2019, 9, 29, 12, 0, tzinfo=UTC).timestamp())
        assert record.ephemeral and f"Registration closed on <t:{closed_at}:F>" in record.text
        assert "<@900>" in record.text  # whom to write to (ephemeral: nobody is pinged)
        refused = await h.slash("td registration open", user=ALICE)
        assert refused.ephemeral and "Only the tournament director" in refused.text
        opened = await h.slash("td registration open", user=ROLE_TD)
        assert opened.ephemeral and "now **open**" in opened.text
        again = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        assert "acwc-" in again.text


async def test_double_entry_alerts_the_td(running_bot: RunningBot, fake: FakeLichess) -> None:
    add_player(fake, "Alice")
    add_player(fake, "Alt")
    async with running_bot() as (bot, h):
        await register_and_verify(bot, h, fake, ALICE, "Alice")
        record = await h.slash("register", user=ALICE, options={"lichess_username": "Alt"})
        assert record.ephemeral and "already registered as Alice" in record.text
        assert bot.outbox is not None
        await bot.outbox.flush()  # the periodic job delivers what a refused command queued
        alerts = [m for m in h.dms_to(TD_ID) if "Double entry" in m.text]
        assert len(alerts) == 1 and "Alt" in alerts[0].text
        taken = await h.slash("register", user=BOB, options={"lichess_username": "Alice"})
        assert "another Discord user" in taken.text
        await bot.outbox.flush()
        assert len([m for m in h.dms_to(TD_ID) if "Double entry" in m.text]) == 2


async def test_td_listing_best_seed_first_and_hidden_from_players(
    running_bot: RunningBot, fake: FakeLichess
) -> None:
    add_player(fake, "Low", rating=1500)
    add_player(fake, "High", rating=2100)
    async with running_bot() as (bot, h):
        await register_and_verify(bot, h, fake, ALICE, "Low")
        await register_and_verify(bot, h, fake, BOB, "High")
        listing = await h.slash("td registration list", user=TD_ID)
        assert listing.ephemeral
        assert listing.text.index("High") < listing.text.index("Low")
        assert "2100" in listing.text
        refused = await h.slash("td registration list", user=ALICE)
        assert refused.ephemeral and "Only the tournament director" in refused.text


async def test_td_slash_approve_and_reject(running_bot: RunningBot, fake: FakeLichess) -> None:
    add_player(fake, "Alice", games=10)
    async with running_bot() as (bot, h):
        await register_and_verify(bot, h, fake, ALICE, "Alice")
        summary = await bot.svc.registration.status(discord_id=ALICE)
        assert summary is not None
        no_reason = await h.slash(
            "td registration approve", user=TD_ID, options={"registration": summary.id}
        )
        assert no_reason.ephemeral and "needs a reason" in no_reason.text
        missing = await h.slash(
            "td registration approve", user=TD_ID, options={"registration": 999}
        )
        assert "no registration 999" in missing.text
        done = await h.slash(
            "td registration reject",
            user=TD_ID,
            options={"registration": summary.id, "comment": "Too few games"},
        )
        assert "rejected" in done.text
        twice = await h.slash(
            "td registration approve",
            user=TD_ID,
            options={"registration": summary.id, "reason": "x"},
        )
        assert "already rejected" in twice.text


async def test_status_and_withdraw(running_bot: RunningBot, fake: FakeLichess) -> None:
    add_player(fake, "Alice")
    async with running_bot() as (bot, h):
        none = await h.slash("status", user=ALICE)
        assert none.ephemeral and "have not registered" in none.text
        await register_and_verify(bot, h, fake, ALICE, "Alice")
        ask = await h.slash("withdraw", user=ALICE)
        assert ask.ephemeral and "Withdraw your registration" in ask.text
        confirm = h.buttons(ask.last)[0]["custom_id"]
        other = await h.press(confirm, user=BOB, message=ask.last)
        assert "another player" in other.text
        done = await h.press(confirm, user=ALICE, message=ask.last)
        assert "withdrawn" in done.text
        summary = await bot.svc.registration.status(discord_id=ALICE)
        assert summary is not None and summary.state is RegistrationState.WITHDRAWN


async def test_closed_td_dms_fall_back_to_the_alert_channel(
    running_bot: RunningBot, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    async with running_bot() as (bot, h):
        h.dm_closed.add(TD_ID)
        await register_and_verify(bot, h, fake, ALICE, "Alice")
        posted = h.in_channel(TD_ALERT_CHANNEL)
        assert any(f"<@{TD_ID}>" in m.text and "Alice" in m.text for m in posted)
        review = [m for m in posted if h.buttons(m)]
        assert [b["label"] for b in h.buttons(review[0])] == ["Approve", "Reject"]


async def test_lichess_down_gives_a_clear_reply(running_bot: RunningBot, fake: FakeLichess) -> None:
    fake.set_down(True)
    async with running_bot() as (_bot, h):
        record = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        assert record.ephemeral and "Lichess could not be reached" in record.text
        assert not record.errors
