"""What players and the TD are told when a Lichess call fails, by why it failed.

A refused token (401/403) is not Lichess being down: retrying does not help, only a new
token and a restart do. The TD hears it once, with the fix; players are told the truth.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import Config
from bot.lichess.errors import LichessAuthError, LichessBusy, LichessError, LichessRateLimited
from bot.td_alerts import notify_td_once


def lichess_failure(exc: LichessError) -> str:
    """The reply to a player whose command needed Lichess and did not get it."""
    if isinstance(exc, LichessAuthError):
        return (
            "Lichess refused the bot's access token, so the bot cannot use Lichess until the "
            "tournament director replaces it (they have been told). Nothing was changed."
        )
    if isinstance(exc, LichessBusy):
        minutes = max(1, round(exc.retry_in / 60))
        when = "a minute" if minutes == 1 else f"{minutes} minutes"
        return (
            "Lichess asked the bot to slow down and the bot is waiting before it asks again. "
            f"Nothing was changed; please try again in {when}."
        )
    if isinstance(exc, LichessRateLimited):
        return (
            "Lichess asked the bot to slow down. Nothing was changed; please try again in a "
            "minute or two."
        )
    return (
        "Lichess could not be reached just now. Nothing was changed; please try again in a minute."
    )


def auth_td_note(exc: LichessAuthError) -> str:
    """The TD's note: what failed and what to do."""
    return f"⚠️ Lichess refused the bot's token (HTTP {exc.status_code}): {exc.fix}."


async def tell_td_of_auth(
    session: AsyncSession, config: Config, exc: LichessAuthError, now: datetime, token_key: str
) -> bool:
    """The TD hears of a refused token once per token and status."""
    return await notify_td_once(
        session,
        config,
        key=f"lichess-auth:{exc.status_code}:{token_key}",
        now=now,
        content=auth_td_note(exc),
    )
