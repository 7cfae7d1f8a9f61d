"""`acwc site`: the pages served read-only from a database with no Discord, on the port
asked for, until stopped; a database not at the schema's head is refused with one line;
`acwc simulate`'s hint writes a config that `acwc site` loads with the run's format."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from acwc_sim.harness import discord_harness
from bot.app import ChampionshipBot
from bot.cli import _parser
from bot.clock import FakeClock
from bot.config import Config, Secrets, load_config, with_preset
from bot.features.web import site_command
from bot.features.web.server import WebServer
from bot.lichess.client import LichessClient
from bot.wiring import WEB_PARTS, web_server
from tests.features.web.test_pages import Played, _play_2024


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_acwc_site_serves_the_pages_until_stopped(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    capsys: pytest.CaptureFixture[str],
) -> None:
    played: Played = await _play_2024(sessions, config, clock)
    port = _free_port()
    stop = asyncio.Event()
    serving = asyncio.create_task(
        site_command.serve(played.config, "127.0.0.1", port, WEB_PARTS, stop)
    )
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(100):
                try:
                    answer = await http.get(f"http://127.0.0.1:{port}/champion.json")
                    break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.05)
            assert answer.status == 200
            assert (await answer.json())["champion"]["name"] == played.champion
            home = await http.get(f"http://127.0.0.1:{port}/")
            assert "Antichess World Championship 2024" in await home.text()
    finally:
        stop.set()
        assert await serving == 0
    said = capsys.readouterr().out
    assert f"on http://127.0.0.1:{port}/" in said
    with socket.socket() as s:  # stopped: the port is free again
        s.bind(("127.0.0.1", port))


async def test_acwc_site_refuses_a_database_not_migrated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = load_config(None, environ={"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/x.db"})
    assert await site_command.serve(config, "127.0.0.1", _free_port(), []) == 1
    assert "acwc db upgrade" in capsys.readouterr().out


def test_the_command_line_has_site_with_host_and_port() -> None:
    args = _parser().parse_args(["site", "--host", "0.0.0.0", "--port", "8123"])
    assert (args.command, args.host, args.port) == ("site", "0.0.0.0", 8123)
    args = _parser().parse_args(["site"])
    assert (args.host, args.port) == (None, None)


def test_the_simulation_hint_writes_a_config_acwc_site_reads(tmp_path: Path) -> None:
    def sim_config(url: str, lichess: str, edition: str) -> Config:
        data: dict[str, Any] = with_preset({"preset": edition})
        data["database"] = {"url": url}
        data["players"] = {**data.get("players", {}), "previous_champion": "arimakat"}
        return Config.model_validate(data)

    line = site_command.simulation_hint(sim_config, "acwc-2024", tmp_path)
    written = tmp_path / "site.yaml"
    assert f"acwc site --config {written}" in line
    loaded = load_config(written, environ={})
    assert loaded.format.keys()[-1] == "third_place"
    assert loaded.database.url == f"sqlite+aiosqlite:///{(tmp_path / 'acwc.sqlite3').resolve()}"


async def test_acwc_run_serves_the_site_when_enabled(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    """The wiring's server: the web feature's pages and the other features' parts, on
    web.host:web.port, stopped cleanly."""
    port = _free_port()
    enabled = config.model_copy(
        update={"web": config.web.model_copy(update={"enabled": True, "port": port})}
    )
    server = web_server(sessions, enabled, clock)
    assert isinstance(server, WebServer) and (server.host, server.port) == ("127.0.0.1", port)
    await server.start()
    try:
        async with aiohttp.ClientSession() as http:
            answer = await http.get(f"http://127.0.0.1:{port}/index.json")
            assert answer.status == 200
            assert (await answer.json())["page"] == "home"
    finally:
        await server.stop()


async def test_the_bot_serves_the_site_while_it_runs(
    config: Config, lichess: LichessClient, clock: FakeClock
) -> None:
    """`acwc run` with `web.enabled`: the bot starts the site with its services and stops it
    when it closes (the port is free again)."""
    port = _free_port()
    enabled = config.model_copy(
        update={"web": config.web.model_copy(update={"enabled": True, "port": port})}
    )
    bot = ChampionshipBot(
        enabled, Secrets(), clock=clock, lichess=lichess, sync_commands=False,
        check_setup=False, start_scheduler=False,
    )  # fmt: skip
    async with discord_harness(bot, run_setup_hook=True, guild_id=enabled.discord.guild_id):
        assert bot.web is not None
        async with aiohttp.ClientSession() as http:
            answer = await http.get(f"http://127.0.0.1:{port}/field.json")
            assert answer.status == 200 and (await answer.json())["page"] == "field"
    assert bot.web is None
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
