"""Secrets never reach a log line, whoever formats it."""

from __future__ import annotations

import io
import logging

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
