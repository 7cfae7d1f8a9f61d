"""Fair play (rule VII) through the real command tree: /report's modal, the TD's buttons and
commands, the account check's one-click disqualification, and the public-accusation watch."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config, FairPlayConfig
from db.models import Player
from tests.conftest import TD_ALERT_CHANNEL, TD_ID
from tests.factories import ROUND_THREAD, SeededRound, seed_round
from tests.fakes.lichess import FakeLichess
from tests.harness import DiscordHarness
from tests.running import ALICE, BOB, RunningBot

CAROL, DAVE = 104, 105
MONDAY = datetime(2019, 9, 30, 9, 0, tzinfo=UTC)
SECRET = "moves in 0.1s in every lost position"
GAME = "https://lichess.org/abcd1234"


async def setup(bot: ChampionshipBot, h: DiscordHarness, config: Config, clock: FakeClock) -> Any:
    clock.set(MONDAY)
    h.add_text_channel(ROUND_THREAD, "round-1")
    h.add_member(CAROL, "carol")
    h.add_member(DAVE, "dave")
    assert bot.sessions is not None
    return await seed_round(
        bot.sessions, config, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")]
    )


def for_td(message: Any) -> bool:
    return getattr(message, "dm_user_id", None) == TD_ID or message.channel_id == TD_ALERT_CHANNEL


def visible_to_others(h: DiscordHarness) -> list[str]:
    """Every text a non-TD could have seen: messages and interaction responses."""
    texts = [m.text for m in h.messages if not for_td(m)]
    texts += [r.text for r in h.responses if r.user_id != TD_ID and r.kind != "modal"]
    return texts


async def submit_report(
    h: DiscordHarness, user: int, accused: str, links: str, description: str
) -> Any:
    opened = await h.slash("report", user=user)
    assert opened.response is not None and opened.response.kind == "modal"
    labels = [f["custom_id"] for f in opened.response.modal_fields]
    assert labels == ["accused", "links", "description"]
    return await h.submit_modal(
        None, {"accused": accused, "links": links, "description": description}, user=user
    )


async def player(sessions: async_sessionmaker[AsyncSession] | None, player_id: int) -> Player:
    assert sessions is not None
    async with sessions() as session:
        row = await session.get(Player, player_id)
        assert row is not None
        return row


def capture_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    for name in ("bot", "cogs", "db", "tests"):
        caplog.set_level(logging.DEBUG, logger=name)


async def test_report_reporter_hidden_from_everyone_but_the_td(
    running_bot: RunningBot, config: Config, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    capture_logs(caplog)
    async with running_bot() as (bot, h):
        seeded: SeededRound = await setup(bot, h, config, clock)
        rec = await submit_report(h, ALICE, "bob", GAME, SECRET)
        assert rec.ephemeral and "cheat report 1" in rec.text and "Bob" in rec.text, rec.text
        assert not rec.errors

        (td_dm,) = h.dms_to(TD_ID)
        assert f"<@{ALICE}>" in td_dm.text and SECRET in td_dm.text and GAME in td_dm.text
        assert [b["custom_id"] for b in h.buttons(td_dm)] == [
            "acwc:fp:investigating:1",
            "acwc:fp:dismissed:1",
            "acwc:fp:upheld:1",
        ]

        # Bob and everyone else: nothing; only the TD's DM names the reporter.
        assert h.dms_to(BOB) == [] and h.in_channel(ROUND_THREAD) == []
        # a non-TD cannot list the reports
        listing = await h.slash("td fairplay reports", user=BOB)
        assert listing.ephemeral and "tournament director" in listing.text

        # the TD moves it on: investigating (in place), then upheld through the note modal
        pressed = await h.press("acwc:fp:investigating:1", user=TD_ID, message=td_dm, dm=True)
        assert "under investigation" in h.message(td_dm.id).text, pressed.text
        assert "acwc:fp:investigating:1" not in str(h.buttons(td_dm))
        listing = await h.slash(
            "td fairplay reports", user=TD_ID, options={"state": "investigating"}
        )
        assert listing.ephemeral and f"<@{ALICE}>" in listing.text and "Bob" in listing.text

        opened = await h.press("acwc:fp:upheld:1", user=TD_ID, message=td_dm, dm=True)
        assert opened.response is not None and opened.response.kind == "modal"
        done = await h.submit_modal(
            None, {"note": "matches engine top line", "engine": "yes"}, user=TD_ID
        )
        assert not done.errors, done.errors
        assert h.buttons(td_dm) == []
        assert "disqualified" in h.message(td_dm.id).text
        bob = await player(bot.sessions, seeded.player_ids["Bob"])
        assert bob.disqualified_at is not None

        # The reporter's answer says the report was handled, not what came of it. (Alice is
        # also Bob's opponent: like every opponent she is told, apart, that she wins their
        # match; Bob's disqualification itself is public.)
        handled = [m for m in h.dms_to(ALICE) if "handled" in m.text]
        assert len(handled) == 1 and "disqualif" not in handled[0].text.lower()
        others = [m.text for m in h.dms_to(ALICE) if m not in handled]
        assert all("you win your match against them" in text for text in others), others

        for text in visible_to_others(h):
            assert str(ALICE) not in text and "alice" not in text.lower(), text
            assert SECRET not in text and GAME not in text and "matches engine" not in text
    for record in caplog.records:
        message = record.getMessage()
        for secret in (SECRET, GAME, str(ALICE), "Alice", "matches engine"):
            assert secret not in message, (record.name, message)


@pytest.mark.parametrize(
    ("accused", "links", "description", "words"),
    [
        ("Bobb", "", SECRET, ["not a participant", "`Bob`"]),
        ("Alice", "", SECRET, ["cannot report yourself"]),
        ("Bob", "", "   ", ["describe what happened"]),
        ("Bob", "https://chess.com/game/1", SECRET, ["lichess.org URLs"]),
    ],
)
async def test_report_refusals(
    running_bot: RunningBot,
    config: Config,
    clock: FakeClock,
    accused: str,
    links: str,
    description: str,
    words: list[str],
) -> None:
    async with running_bot() as (bot, h):
        await setup(bot, h, config, clock)
        rec = await submit_report(h, ALICE, accused, links, description)
        assert rec.ephemeral and not rec.errors
        for word in words:
            assert word in rec.text, rec.text
        assert h.dms_to(TD_ID) == []


async def test_td_commands_dismiss_and_the_reporter_is_told(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup(bot, h, config, clock)
        await submit_report(h, CAROL, "Dave", "", SECRET)
        empty = await h.slash("td fairplay reports", user=TD_ID, options={"state": "dismissed"})
        assert "No dismissed cheat reports" in empty.text
        rec = await h.slash(
            "td fairplay report-state",
            user=TD_ID,
            options={"report": 1, "state": "dismissed", "note": "normal play"},
        )
        assert rec.ephemeral and "dismissed" in rec.text, rec.text
        again = await h.slash(
            "td fairplay report-state", user=TD_ID, options={"report": 1, "state": "dismissed"}
        )
        assert "already dismissed" in again.text
        missing = await h.slash(
            "td fairplay report-state", user=TD_ID, options={"report": 7, "state": "open"}
        )
        assert "no cheat report 7" in missing.text
        (told,) = h.dms_to(CAROL)
        assert "handled" in told.text and "Dave" not in told.text
        dave = await player(bot.sessions, seeded.player_ids["Dave"])
        assert dave.disqualified_at is None


async def test_account_mark_alert_and_one_click_engine_disqualification(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        seeded = await setup(bot, h, config, clock)
        for name in ("Alice", "Bob", "Carol", "Dave", "arimakat", "Ogul1"):
            fake.add_user(name, created_at=datetime(2017, 1, 1, tzinfo=UTC))
        fake.add_user("Bob", created_at=datetime(2017, 1, 1, tzinfo=UTC), tos_violation=True)
        assert bot.outbox is not None
        h.dm_closed.add(TD_ID)  # the alert lands in the TD alert channel instead
        await bot.svc.fairplay.check_accounts()
        await bot.outbox.flush()
        assert fake.count("/api/users", method="POST") == 1
        (alert,) = [m for m in h.in_channel(TD_ALERT_CHANNEL) if h.buttons(m)]
        assert "Bob" in alert.text and "tosViolation" in alert.text
        bob_id = seeded.player_ids["Bob"]
        buttons = h.buttons(alert)
        assert buttons[0]["label"] == "Disqualify (engine mark)"
        assert buttons[0]["custom_id"] == f"acwc:fp:engine:{bob_id}"
        assert (await player(bot.sessions, bob_id)).disqualified_at is None  # TD decides

        clock.advance(timedelta(days=1))
        await bot.svc.fairplay.check_accounts()
        await bot.outbox.flush()
        assert len(h.in_channel(TD_ALERT_CHANNEL)) == 2  # seen before: no second alert

        refused = await h.press(f"acwc:fp:engine:{bob_id}", user=ALICE, message=alert)
        assert "tournament director" in refused.text
        pressed = await h.press(f"acwc:fp:engine:{bob_id}", user=TD_ID, message=alert)
        assert not pressed.errors
        assert "engine mark" in h.message(alert.id).text and h.buttons(alert) == []
        bob = await player(bot.sessions, bob_id)
        assert bob.disqualified_at is not None and "engine" in (bob.disqualification_reason or "")
        assert any(
            "Bob" in m.text and "disqualified" in m.text for m in h.in_channel(TD_ALERT_CHANNEL)[2:]
        )


def _message(bot: ChampionshipBot, channel: discord.TextChannel, author: int, content: str) -> Any:
    data: dict[str, Any] = {
        "id": "77777",
        "channel_id": str(channel.id),
        "guild_id": str(channel.guild.id),
        "author": {
            "id": str(author),
            "username": f"user{author}",
            "discriminator": "0",
            "avatar": None,
        },
        "content": content,
        "timestamp": "2019-09-30T09:00:00+00:00",
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": [],
        "embeds": [],
        "pinned": False,
        "type": 0,
    }
    return discord.Message(state=bot._connection, channel=channel, data=data)  # type: ignore[arg-type]


async def test_public_accusations_flagged_only_when_switched_on(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        assert not bot.intents.message_content
        await setup(bot, h, config, clock)
        general = h.add_text_channel(3100, "general-chat")
        cog = bot.get_cog("FairPlayCog")
        assert cog is not None
        await cog.on_message(_message(bot, general, CAROL, "bob is a cheater"))  # type: ignore[attr-defined]
        assert h.dms_to(TD_ID) == []

    on = config.model_copy(update={"fair_play": FairPlayConfig(flag_public_accusations=True)})
    async with running_bot(on) as (bot, h):
        assert bot.intents.message_content
        general = h.add_text_channel(3100, "general-chat")
        cog = bot.get_cog("FairPlayCog")
        assert cog is not None
        await cog.on_message(_message(bot, general, CAROL, "gg bob"))  # type: ignore[attr-defined]
        assert h.dms_to(TD_ID) == []
        await cog.on_message(_message(bot, general, CAROL, "bob is a cheater"))  # type: ignore[attr-defined]
        (alert,) = h.dms_to(TD_ID)
        assert f"https://discord.com/channels/{general.guild.id}/3100/77777" in alert.text
        assert f"<@{CAROL}>" in alert.text and "Bob" in alert.text
        assert h.in_channel(3100) == []  # nothing public, no punishment
