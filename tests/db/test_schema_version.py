"""The start-up check of the schema revision, and migration in a child process: a running
bot knows whether to migrate without loading Alembic (Alembic finds the head, in a child)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from db import migrate, schema


async def test_the_head_is_the_revision_no_migration_builds_on(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('revision: str = "0001"\ndown_revision = None\n')
    (tmp_path / "b.py").write_text('revision = "0002"\ndown_revision: str | None = "0001"\n')
    assert await schema.head_revision(tmp_path) == "0002"


async def test_a_merge_migration_has_one_head(tmp_path: Path) -> None:
    """Two branches and the migration that merges them (`down_revision` a tuple): one head,
    found by Alembic itself (`db.heads`, in a child)."""
    scripts = {
        "a": ('"0001"', "None"),
        "b": ('"0002a"', '"0001"'),
        "c": ('"0002b"', '"0001"'),
        "d": ('"0003"', '("0002a", "0002b")'),
    }
    for name, (revision, down) in scripts.items():
        (tmp_path / f"{name}.py").write_text(
            f"revision: str = {revision}\ndown_revision = {down}\n"
            "branch_labels = None\ndepends_on = None\n"
            "def upgrade():\n    pass\ndef downgrade():\n    pass\n"
        )
    assert await schema.head_revision(tmp_path) == "0003"


async def test_two_heads_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('revision = "0001"\ndown_revision = None\n')
    (tmp_path / "b.py").write_text('revision = "0002"\ndown_revision = None\n')
    with pytest.raises(schema.SchemaCheckFailed, match="exactly one head, found"):
        await schema.head_revision(tmp_path)


async def test_unreadable_migrations_are_an_error_with_their_cause(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("revision = (\n")
    with pytest.raises(schema.SchemaCheckFailed, match="head failed: SyntaxError"):
        await schema.head_revision(tmp_path)


async def test_the_project_head_is_where_alembic_upgrades_to(db_url: str) -> None:
    assert await schema.current_revision(db_url) is None
    assert not await schema.at_head(db_url)
    await migrate.upgrade(db_url)
    assert await schema.current_revision(db_url) == await schema.head_revision()
    assert await schema.at_head(db_url)


async def test_a_child_process_migrates_the_database(db_url: str) -> None:
    await schema.migrate_in_child_async(db_url)
    assert await schema.at_head(db_url)


def test_the_bot_and_the_simulation_import_and_read_the_head_without_alembic() -> None:
    probe = (
        "import asyncio, sys, bot.app, acwc_sim.run\n"
        "from db import schema\n"
        "assert asyncio.run(schema.head_revision())\n"
        "print(sorted(m for m in sys.modules if m.startswith(('alembic', 'mako'))))"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == "[]"


def test_a_failed_child_migration_is_an_error_with_its_cause(tmp_path: Path) -> None:
    with pytest.raises(schema.MigrationFailed) as failed:
        schema.migrate_in_child(f"sqlite+aiosqlite:///{tmp_path}/missing/dir/x.db")
    assert "unable to open database file" in failed.value.cause
    assert "Traceback" in failed.value.output


async def test_a_failed_child_migration_is_an_error_without_blocking(tmp_path: Path) -> None:
    with pytest.raises(schema.MigrationFailed, match="exit 1"):
        await schema.migrate_in_child_async(f"sqlite+aiosqlite:///{tmp_path}/no/dir/x.db")
