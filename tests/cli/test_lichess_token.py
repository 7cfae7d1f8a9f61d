"""`acwc run` checks the Lichess token before anything starts (`POST /api/token/test`): a
token Lichess calls invalid, or one without `challenge:write` while the bot opens game
links, stops the start with one line that says what to do."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot import cli
from bot.app import ChampionshipBot
from tests.fakes.lichess import FakeLichess

TOKEN_PAGE = "https://lichess.org/account/oauth/token"


def acwc_run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fake: FakeLichess,
    tmp_path: Path,
    token: str,
    *args: str,
) -> tuple[int, list[str], list[str]]:
    """`acwc run` with LICHESS_TOKEN set; the exit code, the ERROR lines, and the starts."""
    started: list[str] = []

    def run(self: ChampionshipBot, discord_token: str, **_: object) -> None:
        started.append(discord_token)

    monkeypatch.setattr(ChampionshipBot, "run", run)
    monkeypatch.setattr("db.schema.migrate_in_child", lambda url: None)
    monkeypatch.setenv("DISCORD_TOKEN", "discord-token-123")
    monkeypatch.setenv("LICHESS_TOKEN", token)
    monkeypatch.setenv("LICHESS_BASE_URL", fake.base_url)
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'acwc.sqlite3'}")
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        code = cli.main([*args, "run"])
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    err = capsys.readouterr().err
    assert "Traceback" not in err and token not in err
    return code, [line for line in err.splitlines() if " ERROR " in line], started


@pytest.fixture
async def lichess_up(fake: FakeLichess) -> FakeLichess:
    fake.add_token("lip_readonly", scopes=("preference:read", "email:read"))
    fake.add_token("lip_good", scopes=("challenge:write",))
    return fake


Run = Callable[..., Awaitable[tuple[int, list[str], list[str]]]]


@pytest.fixture
def run(
    lichess_up: FakeLichess,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> Run:
    """`await run(token, *args)`: `acwc run` in a thread (the fake Lichess runs on this loop)."""

    async def running(token: str, *args: str) -> tuple[int, list[str], list[str]]:
        return await asyncio.to_thread(
            acwc_run, monkeypatch, capsys, lichess_up, tmp_path, token, *args
        )

    return running


async def test_a_token_without_challenge_write_stops_the_start_in_one_line(
    run: Run, lichess_up: FakeLichess
) -> None:
    code, errors, started = await run("lip_readonly")
    assert code == cli.EXIT_FAILURE and started == []
    assert len(errors) == 1, errors
    assert "lacks the `challenge:write` scope" in errors[0] and TOKEN_PAGE in errors[0]
    assert "email:read, preference:read" in errors[0]
    assert lichess_up.count("/api/token/test") == 1


async def test_an_invalid_token_stops_the_start_in_one_line(run: Run) -> None:
    code, errors, started = await run("lip_revoked")
    assert code == cli.EXIT_FAILURE and started == []
    assert len(errors) == 1 and "LICHESS_TOKEN is invalid" in errors[0], errors


async def test_a_good_token_or_no_links_to_open_lets_the_bot_start(
    run: Run, tmp_path: Path
) -> None:
    code, errors, started = await run("lip_good")
    assert (code, errors, started) == (cli.EXIT_OK, [], ["discord-token-123"])
    config = tmp_path / "config.yaml"
    config.write_text("match_day:\n  create_challenge: false\n", encoding="utf-8")
    code, errors, started = await run("lip_readonly", "--config", str(config))
    assert (code, errors, started) == (cli.EXIT_OK, [], ["discord-token-123"])
