"""What the web feature is given by the wiring (composition: the web imports no other
feature; what it needs from one comes in as a callable)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.config import Config

#: Registers a Lichess account proven by the OAuth login for a Discord user, exactly as the
#: profile code does (the same entry checks, the same TD decision); returns what to tell
#: the person on the page. Given by the registration feature through the wiring.
RegisterVerified = Callable[[int, str], Awaitable[str]]


@dataclass(frozen=True)
class WebDeps:
    """The database, the config and the clock; `read_only` for `acwc site` (no login, no
    write of any kind); `register_verified` for the login (None: the login is off)."""

    sessions: async_sessionmaker[AsyncSession]
    config: Config
    clock: Clock
    read_only: bool = False
    register_verified: RegisterVerified | None = None
