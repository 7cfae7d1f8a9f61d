"""Typed errors raised by :class:`bot.lichess.client.LichessClient`."""

from __future__ import annotations


class LichessError(Exception):
    """Base class of every error the Lichess client raises.

    ``status_code`` is the HTTP status when the error came from an HTTP answer.
    """

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class LichessNotFound(LichessError):
    """Lichess answered 404 (unknown user, game, ...)."""


class LichessRateLimited(LichessError):
    """Lichess kept answering 429 after the pause and the allowed retries."""


class LichessUnavailable(LichessError):
    """Lichess could not be reached: connection error, timeout or 5xx answer."""


__all__ = ["LichessError", "LichessNotFound", "LichessRateLimited", "LichessUnavailable"]
