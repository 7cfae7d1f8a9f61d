"""`acwc site`: the public pages served read-only from the configured database, without
Discord (a finished championship, a simulation, a database copied off the server). The
same application `acwc run` serves with `web.enabled`, its login off (`read_only`), until
Ctrl-C or SIGTERM.

`acwc simulate` ends with the line to look at its run this way (`simulation_hint`): it
writes `site.yaml` beside the run's database (the edition's preset, the database, the
simulated pre-seeded players) so that the pages name every stage as the run did.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

from bot.clock import SystemClock
from bot.config import DEFAULT_PRESET, Config
from bot.features.web.deps import WebDeps
from bot.features.web.routes import app_for
from bot.features.web.server import RouteMaker, WebServer
from db import schema
from db.engine import make_engine, make_sessionmaker

SITE_CONFIG = "site.yaml"


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """The `site` subcommand and its options."""
    site = commands.add_parser(
        "site",
        parents=[common],
        help="serve the public pages read-only from the database (no Discord)",
    )
    site.add_argument("--host", default=None, help="address to listen on (default: web.host)")
    site.add_argument("--port", type=int, default=None, help="port (default: web.port)")


def run(args: argparse.Namespace, config: Config, others: Iterable[RouteMaker] = ()) -> int:
    """`acwc site`: serve until stopped; 1 with one line when the database is not ready."""
    host = args.host or config.web.host
    port = args.port or config.web.port
    return asyncio.run(serve(config, host, port, list(others)))


async def serve(
    config: Config,
    host: str,
    port: int,
    others: list[RouteMaker],
    stop: asyncio.Event | None = None,
) -> int:
    """Serve the pages of `config`'s database on host:port until `stop` (or a signal)."""
    url = config.database.url
    if not await schema.at_head(url):
        print(
            "acwc site: the database is not at the current schema (or holds no "
            "championship); run  acwc db upgrade  first (the site itself never writes)."
        )
        return 1
    engine = make_engine(url)
    try:
        deps = WebDeps(make_sessionmaker(engine), config, SystemClock(), read_only=True)
        server = WebServer(app_for(deps, others), host, port)
        await server.start()
        print(f"Serving {config.tournament.name} on http://{host}:{port}/ (Ctrl-C stops)")
        if stop is None:
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError):
                    loop.add_signal_handler(signum, stop.set)
        try:
            await stop.wait()
        finally:
            await server.stop()
    finally:
        await engine.dispose()
    return 0


def site_config(config: Config, edition: str) -> dict[str, Any]:
    """The settings the pages of a simulated run need: the format, the database, who was
    pre-seeded."""
    players = config.players
    return {
        "preset": None if edition == DEFAULT_PRESET else edition,
        "database": {"url": config.database.url},
        "players": {
            "previous_champion": players.previous_champion,
            "pre_seeded": [
                {"lichess": p.lichess, "stage": p.stage, "role": p.role} for p in players.pre_seeded
            ],
        },
    }


def simulation_hint(sim_config: Callable[[str, str, str], Config], edition: str, out: Path) -> str:
    """Write `out/site.yaml` for the run (`sim_config`: the simulator's config of a run, given
    by `acwc simulate`, the one place the bot reaches the simulator) and say how to look at
    it."""
    url = f"sqlite+aiosqlite:///{(out / 'acwc.sqlite3').resolve()}"
    config = sim_config(url, "https://lichess.org", edition)
    path = out / SITE_CONFIG
    data = {k: v for k, v in site_config(config, edition).items() if v is not None}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return f"Look at it in a browser: acwc site --config {path}  (then open http://127.0.0.1:8080/)"
