"""Whether a database is at the latest schema, and migrating it in a child process, without
loading Alembic in the bot.

Alembic pulls in Mako and Pygments (about 11 MB of a 100 MB bot). A running bot needs
them only when the schema changes, so `acwc run` and `acwc simulate` migrate in a short
child process and the bot's start-up only checks the revision (:func:`at_head`, which asks a
child for the head Alembic finds); it migrates in its own process only when it finds the
schema behind (tests, embedders).
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from db.engine import make_engine

ROOT = Path(__file__).resolve().parents[1]
VERSIONS = ROOT / "migrations" / "versions"
URL_VARIABLE = "ACWC_MIGRATE_URL"  # the URL reaches the child here, not on its command line
_RAISED = re.compile(r"^[A-Za-z_][\w.]*: .*$", re.M)  # an exception line of a traceback


HEAD_SECONDS = 60.0  # reading the head in a child takes well under a second
_heads: dict[Path, str] = {}  # by folder: the migrations do not change under a running process


class SchemaCheckFailed(RuntimeError):
    """The child that reads the migrations' head failed, hung or found more than one head."""


async def head_revision(versions: Path = VERSIONS) -> str:
    """The revision `alembic upgrade head` ends at, as Alembic's own `ScriptDirectory` finds
    it (`db.heads`), read once per process in a child so that Alembic stays out of the bot's
    memory (see the module docstring). Awaited, never blocking the event loop."""
    if versions not in _heads:
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "db.heads",
            str(versions),
            env=_child_environment(),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        try:
            async with asyncio.timeout(HEAD_SECONDS):
                output, _ = await child.communicate()
        except TimeoutError:
            child.kill()
            await child.wait()
            limit = f"reading the migrations' head took over {HEAD_SECONDS} s"
            raise SchemaCheckFailed(limit) from None
        text_out = output.decode(errors="replace")
        if child.returncode != 0:
            cause = MigrationFailed(child.returncode or 1, text_out).cause
            raise SchemaCheckFailed(f"reading the migrations' head failed: {cause}")
        heads = text_out.split()
        if len(heads) != 1:
            raise SchemaCheckFailed(f"migrations must have exactly one head, found {heads}")
        _heads[versions] = heads[0]
    return _heads[versions]


async def current_revision(url: str) -> str | None:
    """The revision the database records, or None before its first migration."""
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            found = await connection.execute(text("SELECT version_num FROM alembic_version"))
            return found.scalar_one_or_none()
    except DBAPIError:  # no alembic_version table yet
        return None
    finally:
        await engine.dispose()


async def at_head(url: str) -> bool:
    return await current_revision(url) == await head_revision()


def _child_environment(url: str | None = None) -> dict[str, str]:
    """This checkout's code first on the child's path, as it is on ours (and the URL, which
    never goes on a command line)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    found = {**os.environ, "PYTHONPATH": path}
    return {**found, URL_VARIABLE: url} if url is not None else found


class MigrationFailed(RuntimeError):
    """The child migration exited non-zero; `output` is what it printed (its traceback).
    The caller logs it through its redacting logger: the child's text may hold the URL."""

    def __init__(self, returncode: int, output: str) -> None:
        super().__init__(f"migrating the database failed (exit {returncode})")
        self.output = output

    @property
    def cause(self) -> str:
        """The error the child died of (a traceback's last `Type: message` line)."""
        raised = _RAISED.findall(self.output)
        lines = [line.strip() for line in self.output.splitlines() if line.strip()]
        return raised[-1] if raised else lines[-1] if lines else str(self)


def migrate_in_child(url: str) -> None:
    """Bring the database to head in a child process (Alembic is loaded there only)."""
    child = subprocess.run(
        [sys.executable, "-m", "db.migrate"],
        env=_child_environment(url),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if child.returncode != 0:
        raise MigrationFailed(child.returncode, child.stdout)


async def migrate_in_child_async(url: str) -> None:
    """:func:`migrate_in_child` without blocking the event loop."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "db.migrate",
        env=_child_environment(url),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await child.communicate()
    if child.returncode != 0:
        raise MigrationFailed(child.returncode or 1, output.decode(errors="replace"))
