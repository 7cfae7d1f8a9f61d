"""Setup mode (issue 32): with no usable pairings channel `acwc run` used to refuse with
"pick it with /td setup", which needs the bot running. Now the bot starts, answers only
`/td setup` and `/help`, publishes nothing and runs no job; the `/td setup` pick that makes
the pairings channel usable ends setup mode at once, with no restart."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import ChampionshipBot
from bot.config import Secrets, load_config
from bot.doctor.permissions import BOT_PERMISSIONS
from cogs import text as cogs_text
from tests.doctor.server import ALERTS, GOOD, GUILD, PAIRINGS, TD, TD_ROLE, build, config_file
from tests.fakes.lichess import FakeLichess
from tests.harness import discord_harness

PICK = "acwc:setup:pairings_channel_id"
ALICE = 950


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, fake: FakeLichess, tmp_path: Path) -> None:
    monkeypatch.setenv("LICHESS_BASE_URL", fake.base_url)
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'acwc.sqlite3'}")
    monkeypatch.setattr("bot.app.gc.freeze", lambda: None)  # a live bot's, not a test's


async def test_the_bot_waits_for_td_setup_then_goes_on_without_a_restart(
    tmp_path: Path,
) -> None:
    # no pairings channel, and a TD role that does not exist: a warning for the TD alerts
    cfg = GOOD.model_copy(update={"pairings_channel_id": None, "td_role_id": 888})
    config = load_config(config_file(tmp_path, cfg))
    bot = ChampionshipBot(config, Secrets(discord_token="discord-token-123"))
    async with discord_harness(
        bot, guild_id=GUILD, td_role_id=TD_ROLE, bot_permissions=BOT_PERMISSIONS.value
    ) as h:
        build(h)
        h.add_member(ALICE, "alice")
        await bot.setup_hook()  # as Client.login runs it: the checks, the sync, the jobs
        assert [line.title for line in bot.setup_mode] == ["Pairings channel"]
        assert bot.scheduler is None  # no job runs
        assert [r for r in h.requests if r.path.endswith("/commands")]  # synced: usable

        for user, command in ((ALICE, "standings"), (TD, "td round start")):
            refused = await h.slash(command, user=user)
            assert refused.ephemeral and refused.refusal == cogs_text.SETUP_MODE
        helped = await h.slash("help", user=ALICE)
        assert helped.refusal is None and "/register" in helped.text
        panel = await h.slash("td setup", user=TD)
        assert panel.refusal is None
        assert "**Setup mode**: until the Pairings channel check passes" in panel.text
        assert "✗ Pairings channel: not configured" in panel.text

        await bot.deliver()  # what a job or a command would do: nothing goes out
        assert h.messages == []

        done = await h.press(PICK, user=TD, values=[str(PAIRINGS)])
        assert done.refusal is None, done.refusal
        assert bot.setup_mode == [] and bot.scheduler is not None  # it went on, no restart
        assert "Setup mode" not in done.last.text and "✓ Pairings channel" in done.last.text
        [notice] = h.in_channel(ALERTS)  # what waited is delivered now
        assert "✗ TD role: there is no role 888" in notice.text
        standings = await h.slash("standings", user=ALICE)
        assert standings.refusal != cogs_text.SETUP_MODE


async def test_a_pick_that_does_not_fix_it_stays_in_setup_mode(tmp_path: Path) -> None:
    config = load_config(config_file(tmp_path, GOOD.model_copy(update={"pairings_channel_id": 7})))
    bot = ChampionshipBot(config, Secrets(discord_token="discord-token-123"))
    async with discord_harness(
        bot, guild_id=GUILD, td_role_id=TD_ROLE, bot_permissions=BOT_PERMISSIONS.value
    ) as h:
        build(h)
        h.add_text_channel(4500, "read-only")
        h.set_overwrite(4500, h.bot_user_id + 1, deny=1 << 11)  # Send Messages denied
        await bot.setup_hook()
        assert [line.title for line in bot.setup_mode] == ["Pairings channel"]
        await h.slash("td setup", user=TD)
        still = await h.press(PICK, user=TD, values=["4500"])
        assert [line.title for line in bot.setup_mode] == ["Pairings channel"]
        assert bot.scheduler is None
        assert "**Setup mode**" in still.last.text
        assert "the bot lacks Send Messages" in still.last.text
