"""Secrets never reach a log line, whoever formats it."""

from __future__ import annotations

import io
import logging

import pytest

from bot.logging_setup import RedactSecrets


def test_tokens_are_redacted_from_messages_args_and_tracebacks() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactSecrets(["discord-token-123", "lip_lichess456", None]))
    logger = logging.getLogger("test.redact")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("token is %s", "discord-token-123")
        try:
            raise RuntimeError("bad header Bearer lip_lichess456")
        except RuntimeError:
            logger.exception("request failed")
    finally:
        logger.removeHandler(handler)
    output = stream.getvalue()
    assert "discord-token-123" not in output and "lip_lichess456" not in output
    assert output.count("[redacted]") >= 2
    assert "RuntimeError" in output


def test_acwc_run_redacts_the_database_password_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PostgreSQL URL carries a password; `acwc run` treats it as a secret."""
    from bot import cli
    from bot.app import ChampionshipBot

    def fake_run(self: ChampionshipBot, token: str, **_: object) -> None:
        logging.getLogger("test.db").error("cannot reach %s", self.config.database.url)
        logging.getLogger("test.db").error("token %s", token)

    monkeypatch.setattr(ChampionshipBot, "run", fake_run)
    monkeypatch.setattr("db.schema.migrate_in_child", lambda url: None)
    monkeypatch.setenv("DISCORD_TOKEN", "discord-token-123")
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://acwc:s3cret-pw@db.example/acwc")
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        assert cli.main(["run"]) == 0
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    err = capsys.readouterr().err
    assert "cannot reach postgresql+asyncpg://acwc:[redacted]@db.example/acwc" in err
    assert "s3cret-pw" not in err and "discord-token-123" not in err


def test_a_failed_migration_is_reported_without_the_database_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The child's traceback can quote the URL; `acwc run` logs it, redacted, and stops."""
    from bot import cli
    from db import schema

    url = "postgresql+asyncpg://acwc:s3cret-pw@db.example/acwc"

    def failing_migration(given: str) -> None:
        assert given == url
        raise schema.MigrationFailed(1, f"Traceback ...\nOSError: cannot reach {given}\n")

    monkeypatch.setattr("db.schema.migrate_in_child", failing_migration)
    monkeypatch.setenv("DISCORD_TOKEN", "discord-token-123")
    monkeypatch.setenv("DATABASE_URL", url)
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        assert cli.main(["run"]) == cli.EXIT_FAILURE
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    err = capsys.readouterr().err
    assert (
        "Migrating the database failed: OSError: cannot reach postgresql+asyncpg://acwc:[redacted]@db.example/acwc"
        in err
    )
    assert "s3cret-pw" not in err
