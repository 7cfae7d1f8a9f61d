"""A match's game in progress, as Lichess's game stream announced it: the results feature
writes it when a game between the two starts and clears it when the game ends; `/match` and
the no-show check read it, so they know a game began without asking Lichess."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.lichess.models import LICHESS_SITE
from db.models import Setting

#: Setting key + match id: "<game id> <created at, ms since the epoch>".
LIVE_GAME_KEY = "live-game:"


@dataclass(frozen=True)
class LiveGame:
    """The game under way between a match's two players."""

    game_id: str
    created_at: datetime

    @property
    def url(self) -> str:
        return f"{LICHESS_SITE}/{self.game_id}"


async def game_began(
    session: AsyncSession, match_id: int, game_id: str, created_at: datetime, now: datetime
) -> None:
    """Remember the game in progress (a later start replaces an earlier one)."""
    value = f"{game_id} {int(created_at.timestamp() * 1000)}"
    row = await session.get(Setting, LIVE_GAME_KEY + str(match_id))
    if row is None:
        session.add(Setting(key=LIVE_GAME_KEY + str(match_id), value=value, updated_at=now))
    else:
        row.value, row.updated_at = value, now


async def game_ended(session: AsyncSession, match_id: int, game_id: str) -> None:
    """Forget the game once it ended (only that game: a newer one stays)."""
    row = await session.get(Setting, LIVE_GAME_KEY + str(match_id))
    if row is not None and row.value.partition(" ")[0] == game_id:
        await session.delete(row)


async def live_game(session: AsyncSession, match_id: int) -> LiveGame | None:
    """The match's game in progress, if the stream announced one that has not ended."""
    row = await session.get(Setting, LIVE_GAME_KEY + str(match_id))
    if row is None:
        return None
    game_id, _, millis = row.value.partition(" ")
    return LiveGame(game_id, datetime.fromtimestamp(int(millis or 0) / 1000, tz=UTC))
