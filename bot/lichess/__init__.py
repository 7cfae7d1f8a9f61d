"""Lichess access: one asynchronous client over berserk, typed errors and models."""

from .client import LichessClient
from .errors import (
    LichessAuthError,
    LichessError,
    LichessNotFound,
    LichessRateLimited,
    LichessUnavailable,
)
from .models import LichessGame, LichessUser, OpenChallenge

__all__ = [
    "LichessAuthError",
    "LichessClient",
    "LichessError",
    "LichessGame",
    "LichessNotFound",
    "LichessRateLimited",
    "LichessUnavailable",
    "LichessUser",
    "OpenChallenge",
]
