"""Logging that can never print a secret, whoever formats the message."""

from __future__ import annotations

import logging
from collections.abc import Iterable


class RedactSecrets(logging.Filter):
    """Replaces every occurrence of a secret in a log record's final text with `[redacted]`."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s and len(s) >= 6]

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        exc_text = record.exc_text or ""
        for secret in self.secrets:
            message = message.replace(secret, "[redacted]")
            exc_text = exc_text.replace(secret, "[redacted]")
        record.msg, record.args = message, None
        record.exc_text = exc_text or None
        return True


def configure_logging(secrets: Iterable[str | None], level: int = logging.INFO) -> None:
    """Every log line to stderr, secrets redacted, libraries' chatter kept out at INFO."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # aiosqlite logs SQL parameters (private report texts among them) at DEBUG.
    logging.getLogger("aiosqlite").setLevel(max(level, logging.INFO))
    # APScheduler logs two INFO lines per job run ("Running job", "executed successfully"):
    # every few seconds, they hid the one line a TD looks for (the bot's "Ready"). Its
    # warnings (a missed run) and errors still show; `level` DEBUG shows everything.
    quiet = level if level < logging.INFO else max(level, logging.WARNING)
    logging.getLogger("apscheduler").setLevel(quiet)
