"""`acwc run` runs the setup checks after logging in, before syncing the commands: what makes
the bot useless stops it with one clear line; the rest is logged and told to the TD alert
channel once, not again at the next start."""

from __future__ import annotations

import gc
import logging
from pathlib import Path

import discord
import pytest

from bot import cli
from bot.app import ChampionshipBot
from bot.config import DiscordConfig, Secrets
from bot.logging_setup import configure_logging
from tests.doctor.server import ALERTS, GOOD, config_file, run_acwc
from tests.fakes.lichess import FakeLichess
from tests.harness import DiscordHarness

SYNC = "/applications/{application_id}/guilds/{guild_id}/commands"


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, fake: FakeLichess, tmp_path: Path) -> None:
    monkeypatch.setenv("LICHESS_BASE_URL", fake.base_url)
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'acwc.sqlite3'}")


def log_lines(err: str, level: str) -> list[str]:
    return [line for line in err.splitlines() if f" {level} " in line]


def test_a_missing_pairings_channel_starts_in_setup_mode_not_a_refusal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It used to stop with "pick it with `/td setup`", which needs the bot running: now the
    bot starts, syncs its commands, says it waits for /td setup, and publishes nothing."""
    path = config_file(tmp_path, GOOD.model_copy(update={"pairings_channel_id": 4242}))
    harnesses: list[DiscordHarness] = []
    code = run_acwc(monkeypatch, ["--config", str(path), "run"], harnesses=harnesses)
    assert code == cli.EXIT_OK
    err = capsys.readouterr().err
    assert log_lines(err, "ERROR") == [] and "Traceback" not in err
    [waiting] = [line for line in log_lines(err, "WARNING") if "setup mode" in line]
    assert waiting.endswith(
        "setup mode: ✗ Pairings channel: there is no channel 4242 in Antichess. Fix: create "
        "it, then pick it with `/td setup` or set discord.pairings_channel_id to its id "
        "(Discord: Settings → Advanced → Developer Mode on, then right-click → Copy ID)."
    )
    [ready] = [line for line in log_lines(err, "INFO") if "Ready" in line]
    assert "Ready in setup mode: " in ready and "synced to server Antichess (1000)" in ready
    assert [r for r in harnesses[0].requests if r.path == SYNC]  # /td setup can be used
    assert harnesses[0].messages == []  # nothing published, not even the TD's notice


def test_acwc_run_logs_one_ready_line_and_the_scheduler_is_quiet(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_file(tmp_path, GOOD)
    assert run_acwc(monkeypatch, ["--config", str(path), "run"]) == cli.EXIT_OK
    err = capsys.readouterr().err
    ready = [line for line in err.splitlines() if "Ready" in line]
    assert len(ready) == 1, err
    synced = len(bot_commands())
    assert ready[0].endswith(
        f"INFO bot.app: Ready: {synced} slash commands synced to server Antichess (1000); "
        "the jobs run."
    )
    assert "apscheduler" not in err  # "Added job", "Scheduler started": not at INFO


def bot_commands() -> list[str]:
    """The top-level slash commands the bot registers (its extensions loaded in a bot
    that never logs in)."""
    import asyncio

    from bot.app import EXTENSIONS
    from bot.config import Config

    async def names() -> list[str]:
        bot = ChampionshipBot(Config(), Secrets(), sync_commands=False, start_scheduler=False)
        for extension in EXTENSIONS:
            await bot.load_extension(extension)
        found = [c.name for c in bot.tree.get_commands()]
        await bot.lichess.aclose()
        return found

    return asyncio.run(names())


def test_at_info_apschedulers_lines_stay_out_and_its_warnings_do_not(
    caplog: pytest.LogCaptureFixture,
) -> None:
    root = logging.getLogger()
    saved = root.handlers[:], root.level, logging.getLogger("apscheduler").level
    try:
        configure_logging([])
        root.addHandler(caplog.handler)  # configure_logging replaced the root's handlers
        scheduler = logging.getLogger("apscheduler.executors.default")
        scheduler.info('Running job "outbox" (trigger: interval[0:00:05])')
        scheduler.warning("Run time of job outbox was missed by 0:00:07")
        logging.getLogger("bot.app").info("Ready: 20 slash commands synced")
    finally:
        root.handlers[:], level, quiet = saved
        root.setLevel(level)
        logging.getLogger("apscheduler").setLevel(quiet)
    assert [r.getMessage() for r in caplog.records] == [
        "Run time of job outbox was missed by 0:00:07",
        "Ready: 20 slash commands synced",
    ]


def test_an_empty_config_no_longer_logs_in_silently(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # an earlier test's discord.py view timers, collected now rather than during the run,
    # where asyncio would log "Task was destroyed but it is pending!" among the bot's lines
    gc.collect()
    capsys.readouterr()
    assert run_acwc(monkeypatch, ["run"]) == cli.EXIT_FAILURE
    err = capsys.readouterr().err
    errors = log_lines(err, "ERROR")
    assert len(errors) == 1, err
    assert "✗ Discord server: no server (discord.guild_id) is configured. Fix: set " in errors[0]
    assert "Traceback" not in err


def test_warnings_reach_the_td_alert_channel_once_across_restarts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_file(tmp_path, GOOD.model_copy(update={"td_role_id": 888}))
    harnesses: list[DiscordHarness] = []
    for _ in range(2):
        code = run_acwc(monkeypatch, ["--config", str(path), "run"], harnesses=harnesses)
        assert code == cli.EXIT_OK
        warnings = log_lines(capsys.readouterr().err, "WARNING")
        assert any("setup: ✗ TD role: there is no role 888 in Antichess." in w for w in warnings)
    first, second = (h.in_channel(ALERTS) for h in harnesses)
    assert [m.content for m in first] == [
        "The bot started, but its setup has problems (`acwc doctor` checks them again):\n"
        "✗ TD role: there is no role 888 in Antichess. Fix: pick the role with `/td setup`, or "
        "correct discord.td_role_id (Discord: Settings → Advanced → Developer Mode on, then "
        "right-click → Copy ID)."
    ]
    assert second == []  # the same problems at the next start: not sent again
    assert [r for r in harnesses[1].requests if r.path == SYNC]  # and the bot did start


def test_warnings_without_a_td_alert_channel_are_only_logged(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg: DiscordConfig = GOOD.model_copy(update={"td_alert_channel_id": None})
    harnesses: list[DiscordHarness] = []
    path = config_file(tmp_path, cfg)
    assert run_acwc(monkeypatch, ["--config", str(path), "run"], harnesses=harnesses) == 0
    warnings = log_lines(capsys.readouterr().err, "WARNING")
    assert any("setup: ✗ TD alert channel: not configured" in w for w in warnings)
    assert harnesses[0].messages == []


def test_a_token_discord_refuses_at_login_is_one_line_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refused_login(self: ChampionshipBot, token: str, **_: object) -> None:
        raise discord.LoginFailure("Improper token has been passed.")

    monkeypatch.setattr(ChampionshipBot, "run", refused_login)
    monkeypatch.setattr("db.schema.migrate_in_child", lambda url: None)
    monkeypatch.setenv("DISCORD_TOKEN", "discord-token-123")
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        assert cli.main(["run"]) == cli.EXIT_FAILURE
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    err = capsys.readouterr().err
    errors = log_lines(err, "ERROR")
    assert len(errors) == 1 and "Traceback" not in err
    assert "Discord refused DISCORD_TOKEN: it is wrong or was reset" in errors[0]
