"""The site of a simulated championship, served on a free localhost port by a thread of its
own: the browser tests drive it with synchronous playwright and the privacy crawl reads it
with plain HTTP, so the server needs an event loop that no test runs in."""

from __future__ import annotations

import asyncio
import shutil
import socket
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aiohttp import web

from acwc_sim.edition import sim_config
from acwc_sim.run import simulate
from bot.clock import FakeClock
from bot.config import DEFAULT_PRESET, Config, WebConfig
from bot.features.web.deps import WebDeps
from bot.features.web.routes import app_for
from bot.wiring import WEB_PARTS
from db.engine import make_engine, make_sessionmaker

#: The simulated championship the browser tests and the crawl look at: 8 players, seed 3,
#: the 2019 format. Its run has a cheat report (dismissed), a withdrawal with its walkover
#: and a Final decided by the Armageddon (acwc_sim.games.ARMAGEDDON_SEEDS), in 8 seconds.
PLAYERS, SEED = 8, 3
#: Tokens in the environment while the site is served: the crawl fails if one shows.
TOKENS = {"DISCORD_TOKEN": "NzE0.discord-secret-Xq9", "LICHESS_TOKEN": "lip_secretToken7Rw2"}


@dataclass(frozen=True)
class Championship:
    """A finished simulated run: its folder, its SQLite file and its result.json."""

    folder: Path
    database: Path
    result: dict[str, Any]

    @property
    def url(self) -> str:
        return f"sqlite+aiosqlite:///{self.database}"

    def rows(self, query: str, *args: object) -> list[tuple[Any, ...]]:
        """Rows of the run's database, read as any observer of the file could."""
        with sqlite3.connect(self.database) as connection:
            return list(connection.execute(query, args))

    def execute(self, statement: str, *args: object) -> None:
        """Change the run's database (a copy's: see `copy`)."""
        with sqlite3.connect(self.database) as connection:
            connection.execute(statement, args)

    def ended_at(self) -> datetime:
        """A moment just after the championship's last recorded change (the site's clock)."""
        (last,) = self.rows("SELECT max(at) FROM audit_log")[0]
        return datetime.fromisoformat(last).replace(tzinfo=UTC) + timedelta(hours=1)

    def copy(self, folder: Path) -> Championship:
        """The same run in `folder`, to change without touching this one."""
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.database, folder / self.database.name)
        return Championship(folder, folder / self.database.name, self.result)


def simulated_championship(folder: Path) -> Championship:
    """Run the simulation (acwc_sim) into `folder` and return what it left. In a thread of
    its own: synchronous playwright keeps an event loop running in the tests' thread."""
    with ThreadPoolExecutor(1) as thread:
        result = thread.submit(asyncio.run, simulate(PLAYERS, SEED, folder)).result()
    return Championship(folder, folder / "acwc.sqlite3", result)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def site_config(championship: Championship, port: int) -> Config:
    """The simulation's own config (its channels and TD) with the web part switched on."""
    config = sim_config(championship.url, "http://127.0.0.1:9", DEFAULT_PRESET)
    web_config = WebConfig(enabled=True, port=port, base_url=f"http://127.0.0.1:{port}")
    return config.model_copy(update={"web": web_config})


def site_app(deps: WebDeps) -> web.Application:
    """The whole site as `acwc site` serves it: the web feature's parts and the others the
    wiring gives it (the calendar feeds)."""
    return app_for(deps, WEB_PARTS)


class ServedSite:
    """The site over `championship`'s database, read-only, served until `stop`."""

    def __init__(self, championship: Championship) -> None:
        self.championship = championship
        self.port = free_port()
        self.config = site_config(championship, self.port)
        self.url = self.config.web.public_url()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None
        self._engine: Any = None

    def start(self) -> None:
        self._thread.start()
        self._call(self._start)

    def stop(self) -> None:
        self._call(self._stop)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def _call(self, coroutine: Callable[[], Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine(), self._loop).result(timeout=60)

    async def _start(self) -> None:
        self._engine = make_engine(self.championship.url)
        clock = FakeClock(self.championship.ended_at())
        deps = WebDeps(make_sessionmaker(self._engine), self.config, clock, read_only=True)
        self._runner = web.AppRunner(site_app(deps), access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def _stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._engine is not None:
            await self._engine.dispose()


@contextmanager
def served(championship: Championship) -> Iterator[ServedSite]:
    site = ServedSite(championship)
    site.start()
    try:
        yield site
    finally:
        site.stop()
