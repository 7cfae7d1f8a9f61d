"""What every use-case class holds, so each service only adds what is its own."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.config import Config
from bot.lichess.client import LichessClient


class LichessService:
    """A service that reads Lichess (outside its transactions) and writes the database."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        lichess: LichessClient,
        config: Config,
        clock: Clock,
    ) -> None:
        self.sessions = sessions
        self.lichess = lichess
        self.config = config
        self.clock = clock
