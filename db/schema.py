"""Whether a database is at the latest schema, and migrating it in a child process, without
loading Alembic.

Alembic pulls in Mako and Pygments (about 11 MB of a 100 MB bot). A running bot needs
them only when the schema changes, so `acwc run` and `acwc simulate` migrate in a short
child process and the bot's start-up only checks the revision (:func:`at_head`); it
migrates in its own process only when it finds the schema behind (tests, embedders).
"""

from __future__ import annotations

import ast
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


def _assigned(script: Path) -> dict[str, object]:
    """A migration's module-level `revision` and `down_revision`, read with `ast` (a merge
    migration's `down_revision` is a tuple; the first migration's is None)."""
    found: dict[str, object] = {}
    for node in ast.parse(script.read_text(encoding="utf-8")).body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and target.id in ("revision", "down_revision"):
            found[target.id] = ast.literal_eval(value) if value is not None else None
    return found


def head_revision(versions: Path = VERSIONS) -> str:
    """The revision no other migration builds on: the one `alembic upgrade head` ends at.

    Read from the scripts without importing Alembic (which costs the bot 11 MB, see the
    module docstring); tests/db checks that it agrees with Alembic's own `ScriptDirectory`,
    merge migrations included."""
    revisions: set[str] = set()
    built_on: set[str] = set()
    for script in versions.glob("*.py"):
        found = _assigned(script)
        if isinstance(found.get("revision"), str):
            revisions.add(str(found["revision"]))
        down = found.get("down_revision")
        if isinstance(down, str):
            built_on.add(down)
        elif isinstance(down, tuple | list):
            built_on.update(str(d) for d in down)
    heads = revisions - built_on
    if len(heads) != 1:
        raise RuntimeError(f"migrations must have exactly one head, found {sorted(heads)}")
    return heads.pop()


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
    return await current_revision(url) == head_revision()


def _child_environment(url: str) -> dict[str, str]:
    """This checkout's code first on the child's path, as it is on ours."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, URL_VARIABLE: url, "PYTHONPATH": path}


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
