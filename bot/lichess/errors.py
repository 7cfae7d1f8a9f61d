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


class LichessBusy(LichessRateLimited):
    """Lichess asked the bot to slow down (429) and a person is waiting for this call: it is
    not made, rather than keep them waiting out the pause. ``retry_in``: seconds left."""

    def __init__(self, retry_in: float) -> None:
        super().__init__(f"Lichess is pausing the bot for {retry_in:.0f} s", status_code=429)
        self.retry_in = retry_in


class LichessUnavailable(LichessError):
    """Lichess could not be reached: connection error, timeout or 5xx answer."""


class LichessAuthError(LichessError):
    """Lichess refused the bot's token: 401 (invalid, revoked or expired: every call fails)
    or 403 (the token lacks the scope the call needs, e.g. ``challenge:write``). Retrying
    does not help; only a new token (and a restart) does."""

    @property
    def fix(self) -> str:
        """What the TD must do, in one sentence."""
        if self.status_code == 403:
            return (
                "the Lichess token lacks the `challenge:write` scope: create a token with it "
                "at https://lichess.org/account/oauth/token, set LICHESS_TOKEN and restart the bot"
            )
        return (
            "Lichess refused the token (invalid, revoked or expired): create a new one at "
            "https://lichess.org/account/oauth/token with the `challenge:write` scope, set "
            "LICHESS_TOKEN (or unset it) and restart the bot"
        )


__all__ = [
    "LichessAuthError",
    "LichessBusy",
    "LichessError",
    "LichessNotFound",
    "LichessRateLimited",
    "LichessUnavailable",
]
