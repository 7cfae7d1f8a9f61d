"""Start-up wiring and the central error handler of the real bot."""

from __future__ import annotations

import asyncio
import logging

import pytest
from sqlalchemy import select, text

from bot.app import ChampionshipBot
from bot.errors import InvalidInput
from db.models import Player, StageKind
from tests.running import ALICE, RunningBot


async def test_setup_hook_migrates_loads_commands_and_enters_pre_seeded(
    running_bot: RunningBot,
) -> None:
    async with running_bot() as (bot, _):
        names = {command.qualified_name for command in bot.tree.walk_commands()}
        assert {
            "register",
            "status",
            "withdraw",
            "td registration list",
            "td registration open",
            "td registration close",
            "td registration approve",
            "td registration reject",
            "td registration show",
        } <= names
        td = bot.tree.get_command("td")
        assert td is not None and td.default_permissions is not None
        assert td.default_permissions.manage_guild
        assert bot.sessions is not None
        async with bot.sessions() as session:
            players = (await session.scalars(select(Player))).all()
        assert {(p.lichess_username, p.pre_seeded_stage) for p in players} == {
            ("arimakat", StageKind.FINAL),
            ("Ogul1", StageKind.CANDIDATES),
        }


async def test_unexpected_errors_get_a_generic_reply_and_a_logged_traceback(
    running_bot: RunningBot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot() as (bot, h):

        async def broken(**_: object) -> None:
            raise RuntimeError("database on fire")

        monkeypatch.setattr(bot.svc.registration, "status", broken)
        with caplog.at_level(logging.ERROR):
            record = await h.slash("status", user=ALICE)
        assert record.ephemeral
        assert "Something went wrong on our side" in record.text
        assert "database on fire" not in record.text
        assert any(r.exc_info and "database on fire" in str(r.exc_info[1]) for r in caplog.records)


async def test_user_errors_after_a_deferral_go_to_the_followup(
    running_bot: RunningBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_bot() as (bot, h):

        async def refuse(**_: object) -> None:
            raise InvalidInput("That is not how this works.")

        monkeypatch.setattr(bot.svc.registration, "start", refuse)
        record = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        assert [r.kind for r in record.responses] == ["deferred", "followup"]
        assert record.ephemeral and record.last is not None
        assert record.last.text == "That is not how this works."


async def test_scheduler_runs_the_outbox_job_and_stops_on_close(
    running_bot: RunningBot, config, clock, fake
) -> None:
    from bot.config import Secrets
    from bot.lichess.client import LichessClient
    from tests.harness import discord_harness

    bot = ChampionshipBot(
        config,
        Secrets(),
        clock=clock,
        sync_commands=False,
        check_setup=False,
        lichess=LichessClient(base_url=fake.base_url),
    )
    async with discord_harness(bot, run_setup_hook=True):
        assert bot.scheduler is not None and bot.scheduler.running
        jobs = sorted(job.id for job in bot.scheduler.get_jobs())
        assert jobs == ["accounts", "deadlines", "outbox", "results"]
    assert not bot.scheduler.running


async def test_close_cancels_a_job_run_under_way_before_the_engine_goes(
    running_bot: RunningBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A close without a drain (Discord ended the connection, a test's harness) used to leave
    a periodic run working on a disposed engine; the event loop's last cleanup could then wait
    on it forever (a CI run hung so). Now the run is cancelled and awaited first."""
    order: list[str] = []
    async with running_bot() as (bot, _h):
        assert bot.sessions is not None and bot.engine is not None

        async def job() -> None:
            try:
                async with bot.sessions() as session:  # type: ignore[misc]
                    await session.execute(text("SELECT 1"))
                    await asyncio.sleep(3600)
            except asyncio.CancelledError:
                order.append("job cancelled")
                raise

        task: asyncio.Task[object] = asyncio.create_task(job())
        bot.jobs_in_flight.add(task)
        await asyncio.sleep(0.05)
        dispose = type(bot.engine).dispose

        async def disposing(engine: object, *args: object, **kwargs: object) -> None:
            order.append("engine disposed")
            await dispose(engine, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(type(bot.engine), "dispose", disposing)
    assert task.cancelled()
    assert order == ["job cancelled", "engine disposed"]
