"""Named time zones in /offer and a player's own zone (/timezone), through the real command
tree: whatever the player types, the bot records and shows the UTC time (rule V.B)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from bot.clock import FakeClock
from bot.config import Config
from bot.features.matches.text import NOT_A_PLAYER
from bot.timefmt import discord_time
from db.models import AuditEntry, Player, TimeOffer
from tests.factories import ROUND_THREAD
from tests.features.negotiation.test_cog import setup_round
from tests.running import ALICE, BOB, RunningBot

WED_16 = datetime(2019, 10, 2, 16, 0, tzinfo=UTC)  # wed 18:00 in Berlin (summer time)
THU_20 = datetime(2019, 10, 3, 20, 0, tzinfo=UTC)


async def test_offer_with_a_named_zone_echoes_the_utc_time(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        rec = await h.slash("offer", user=ALICE, options={"times": "wed 18:00 Europe/Berlin"})
        assert rec.ephemeral and discord_time(WED_16) in rec.text, rec.text
        assert "(2019-10-02 16:00 UTC)" in rec.text
        assert "The rules record the UTC time shown in brackets (rule V.B)." in rec.text
        assert discord_time(WED_16) in h.in_channel(ROUND_THREAD)[-1].text
        assert bot.sessions is not None
        async with bot.sessions() as session:
            times = list(await session.scalars(select(TimeOffer.proposed_time)))
        assert times == [WED_16]


async def test_a_bad_zone_is_refused_and_changes_nothing(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        typo = await h.slash("offer", user=ALICE, options={"times": "wed 18:00 Europe/Berln"})
        assert typo.ephemeral and "not a time zone I know" in typo.text, typo.text
        assert "did you mean `Europe/Berlin`" in typo.text
        short = await h.slash("offer", user=ALICE, options={"times": "wed 18:00 CEST"})
        assert short.ephemeral and "abbreviations are ambiguous" in short.text, short.text
        skipped = await h.slash("timezone", user=ALICE, options={"zone": "Europe/Berlinn"})
        assert skipped.ephemeral and "Time zone not changed" in skipped.text, skipped.text
        assert "did you mean `Europe/Berlin`" in skipped.text
        assert h.dms_to(BOB) == []
        assert bot.sessions is not None
        async with bot.sessions() as session:
            assert list(await session.scalars(select(TimeOffer))) == []
            zones = list(await session.scalars(select(Player.time_zone)))
        assert zones == [None] * len(zones)


async def test_a_saved_zone_reads_offer_and_reschedule(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        suggested = await h.autocomplete("timezone", user=ALICE, option="zone", current="berl")
        assert [c["value"] for c in suggested] == ["Europe/Berlin"]
        assert len(await h.autocomplete("timezone", user=ALICE, option="zone", current="")) == 25

        saved = await h.slash("timezone", user=ALICE, options={"zone": "europe/berlin"})
        assert saved.ephemeral and "now read in **Europe/Berlin**" in saved.text, saved.text
        assert "rule V.B" in saved.text and "2019-09-30 16:00 UTC" in saved.text, saved.text

        rec = await h.slash("offer", user=ALICE, options={"times": "wed 18:00, thu 20:00 UTC"})
        assert discord_time(WED_16) in rec.text and discord_time(THU_20) in rec.text, rec.text
        assert "read in **Europe/Berlin** (your /timezone)" in rec.text
        # Bob has no zone: his times are UTC.
        bob = await h.slash("offer", user=BOB, options={"times": "thu 20:00"})
        assert discord_time(THU_20) in bob.text and "read in" not in bob.text, bob.text

        await h.slash("accept", user=BOB, options={"offer": 1})
        moved = await h.slash("reschedule", user=ALICE, options={"time": "sat 20:00"})
        sat_18 = datetime(2019, 10, 5, 18, 0, tzinfo=UTC)
        assert moved.ephemeral and discord_time(sat_18) in moved.text, moved.text

        back = await h.slash("timezone", user=ALICE, options={"zone": "UTC"})
        assert "read in UTC again (was Europe/Berlin)" in back.text, back.text
        assert bot.sessions is not None
        async with bot.sessions() as session:
            alice = await session.scalar(select(Player).where(Player.discord_id == ALICE))
            assert alice is not None and alice.time_zone is None
            audit = list(
                await session.scalars(
                    select(AuditEntry.action).where(AuditEntry.action == "time_zone_set")
                )
            )
        assert len(audit) == 2


async def test_timezone_needs_a_player(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup_round(bot, h, config, clock)
        h.add_member(999, "stranger")
        rec = await h.slash("timezone", user=999, options={"zone": "Europe/Berlin"})
        assert rec.ephemeral and rec.text == NOT_A_PLAYER, rec.text
