"""A database or a Discord the terminal commands cannot reach: one line that says which and
what to check, exit code 1, no traceback and no password; the traceback with --verbose."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import discord
import pytest

from bot import cli
from bot.app import ChampionshipBot

# A failed SQLite open used to leave aiosqlite's worker thread answering a closed event
# loop ("Event loop is closed" in a thread): any such thread exception fails the test.
pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")

UNREACHABLE_PG = "postgresql+asyncpg://acwc:s3cret-pw@127.0.0.1:9/acwc"  # port 9: refused


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    yield
    root.handlers[:], level = saved
    root.setLevel(level)


@pytest.mark.parametrize(
    "argv",
    [
        ["audit"],
        ["db", "upgrade"],
        ["db", "check"],
        ["standings"],
        ["export", "--out", "OUT"],
    ],
)
@pytest.mark.parametrize("where", ["postgres", "sqlite"])
def test_an_unreachable_database_is_one_line(
    argv: list[str],
    where: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    url = UNREACHABLE_PG
    if where == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'missing-dir' / 'acwc.sqlite3'}"
    monkeypatch.setenv("DATABASE_URL", url)
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    assert cli.main(argv) == cli.EXIT_FAILURE
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "s3cret-pw" not in err
    assert f"acwc {argv[0]}: cannot use the database" in lines[0]
    assert "DATABASE_URL" in lines[0] and "--verbose" in lines[0]


def test_verbose_shows_the_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", UNREACHABLE_PG)
    with pytest.raises(OSError):
        cli.main(["audit", "--verbose"])


@pytest.mark.parametrize(
    ("failure", "said"),
    [
        (
            aiohttp.ClientConnectionError("Cannot connect to host discord.com:443"),
            "Cannot reach Discord",
        ),
        (discord.LoginFailure("Improper token has been passed."), "Discord refused DISCORD_TOKEN"),
    ],
)
def test_acwc_run_without_discord_is_one_line(
    failure: Exception,
    said: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    restore_logging: None,
) -> None:
    def unreachable(self: ChampionshipBot, token: str, **_: object) -> None:
        raise failure

    monkeypatch.setattr(ChampionshipBot, "run", unreachable)
    monkeypatch.setattr("db.schema.migrate_in_child", lambda url: None)
    monkeypatch.setenv("DISCORD_TOKEN", "discord-token-123")
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'acwc.sqlite3'}")
    assert cli.main(["run"]) == cli.EXIT_FAILURE
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and said in lines[0], err
    assert "Traceback" not in err and "discord-token-123" not in err
