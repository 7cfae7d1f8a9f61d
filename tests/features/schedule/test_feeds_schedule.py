"""/schedule gives the calendar feeds' addresses when the site is served at a known public
address, and says nothing of feeds otherwise; the address it gives serves the player's feed."""

from __future__ import annotations

from datetime import timedelta

from aiohttp.test_utils import TestClient, TestServer
from icalendar import Calendar

from bot.clock import FakeClock
from bot.config import Config, WebConfig
from bot.features.schedule.feeds import routes
from bot.features.web.deps import WebDeps
from bot.features.web.server import build_app
from tests.features.schedule.test_cog import ROUND2_START, setup, td_fixes_alice_eve
from tests.running import ALICE, RunningBot

SITE = "https://acwc.example.org"


async def test_schedule_links_the_feeds_when_the_site_is_public(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    public = config.model_copy(update={"web": WebConfig(enabled=True, base_url=SITE)})
    async with running_bot(public) as (bot, h):
        ids = await setup(bot, h, public)
        clock.set(ROUND2_START + timedelta(hours=9))
        await td_fixes_alice_eve(bot.svc.rulings, ids)
        rec = await h.slash("schedule", user=ALICE)
        assert rec.ephemeral and not rec.errors, rec.errors
        own = f"<{SITE}/players/alice/calendar.ics>"
        assert own in rec.text and f"<{SITE}/calendar.ics>" in rec.text, rec.text
        assert len(rec.text) <= 2000
        assert rec.text.index("acwc-schedule.ics") < rec.text.index(own)  # after the file's note

        # The address it gives is the player's feed, with the same events as the file.
        assert bot.sessions is not None
        app = build_app(WebDeps(bot.sessions, public, clock, read_only=True), [routes])
        async with TestClient(TestServer(app)) as client:
            answer = await client.get(own.strip("<>").removeprefix(SITE))
            assert answer.status == 200
            feed = Calendar.from_ical(await answer.read())
        assert rec.response is not None
        attached = Calendar.from_ical(rec.response.file_data["acwc-schedule.ics"])
        assert {str(e["uid"]) for e in feed.walk("VEVENT")} == {
            str(e["uid"]) for e in attached.walk("VEVENT")
        }


async def test_schedule_says_nothing_of_feeds_without_a_public_site(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    unnamed = config.model_copy(update={"web": WebConfig(enabled=True)})
    for cfg in (config, unnamed):  # web off; on, but at no address people can reach
        async with running_bot(cfg) as (bot, h):
            if cfg is config:
                await setup(bot, h, cfg)
            rec = await h.slash("schedule", user=ALICE)
            assert rec.ephemeral and not rec.errors and "Your matches" in rec.text
            words = rec.text.lower()
            assert "calendar.ics" not in words and "subscribe" not in words
            assert "feed" not in words
