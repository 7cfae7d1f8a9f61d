"""Lichess's stream of games between users (``POST /api/stream/games-by-users``).

What Lichess does (the API reference, and lila's ``GamesByUsersStream``): the body is up to
300 user ids separated by commas (500 with a token; more is refused with 400); the answer is
ndjson, one event when a game between **two listed users** starts and one when it finishes
(an aborted game included), nothing else; with ``withCurrentGames`` the games in progress
come first. A blank line keeps the connection alive after 50 s of silence. Lichess keeps no
history for a stream: what finishes while it is down is never sent, and a caller reads it
back from the games export. At most 4 event streams per IP are open at once (the 5th: 429).

The stream is the one long-lived connection to Lichess and so bypasses the client's
one-at-a-time queue; it still honours the client's 429 pause (it opens only after one, and a
429 here starts one for every request).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import aiohttp

from .client import LichessClient
from .errors import LichessError, LichessRateLimited, LichessUnavailable
from .models import UNFINISHED_STATUSES, LichessGame, to_utc

log = logging.getLogger(__name__)

#: The documented limit of user ids per stream (Lichess allows 500 with a token; the bot
#: keeps to the documented 300).
STREAM_IDS = 300
#: Lichess sends a keep-alive line after 50 s of silence: longer than this without a byte
#: and the connection is taken as dead.
SILENCE_LIMIT = 120.0
PATH = "/api/stream/games-by-users"
#: Lichess's game status numbers (`GameStatusId` in the API reference), should an event carry
#: no `statusName`.
STATUS_NAMES = {
    10: "created", 20: "started", 25: "aborted", 30: "mate", 31: "resign", 32: "stalemate",
    33: "timeout", 34: "draw", 35: "outoftime", 36: "cheat", 37: "noStart",
    38: "unknownFinish", 39: "insufficientMaterialClaim", 60: "variantEnd",
}  # fmt: skip


@dataclass(frozen=True)
class StreamedGame:
    """One event of the stream: a game between two listed users started or finished."""

    id: str
    white_id: str | None
    black_id: str | None
    status: str  # Lichess's status name ("started", "resign", "aborted", ...)
    variant: str
    rated: bool
    created_at: datetime
    winner: str | None = None
    clock_initial: int | None = None
    clock_increment: int | None = None
    white_rating: int | None = None
    black_rating: int | None = None

    @property
    def ended(self) -> bool:
        """The finish event (any ending, an aborted game's too), not the start."""
        return self.status not in ("created", "started")

    @property
    def played_out(self) -> bool:
        """Ended with a result: worth reading the game (aborted and never-started are not)."""
        return self.status not in UNFINISHED_STATUSES

    @property
    def pair(self) -> frozenset[str]:
        return frozenset(p for p in (self.white_id, self.black_id) if p)

    def as_game(self, ended_at: datetime) -> LichessGame:
        """The finished game as the export would show it, but for what the stream does not
        send: the last move's time (`ended_at`: the event's arrival, within a second of the
        end), the rating changes and the clock record (read the game when they matter)."""
        return LichessGame(
            id=self.id,
            rated=self.rated,
            variant=self.variant,
            perf=self.variant,
            status=self.status,
            created_at=self.created_at,
            last_move_at=ended_at,
            white_id=self.white_id,
            black_id=self.black_id,
            white_rating=self.white_rating,
            black_rating=self.black_rating,
            white_rating_diff=None,
            black_rating_diff=None,
            winner=self.winner,
            clock_initial=self.clock_initial,
            clock_increment=self.clock_increment,
        )

    @classmethod
    def from_api(cls, data: Mapping[str, Any]) -> StreamedGame:
        """From one ndjson line: ``status`` is Lichess's number there, ``statusName`` the name."""
        players = data.get("players") or {}

        def user(side: str) -> str | None:
            value = (players.get(side) or {}).get("userId")
            return str(value).lower() if value else None

        def rating(side: str) -> int | None:
            value = (players.get(side) or {}).get("rating")
            return int(value) if isinstance(value, int | float) else None

        given = data.get("clock")
        clock: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        winner = data.get("winner")

        variant = data.get("variant")
        if isinstance(variant, Mapping):  # the export's shape, should Lichess ever send it
            variant = variant.get("key")
        return cls(
            id=str(data["id"]),
            white_id=user("white"),
            black_id=user("black"),
            status=_status(data),
            variant=str(variant or "standard"),
            rated=bool(data.get("rated", False)),
            created_at=to_utc(data.get("createdAt", 0)),
            winner=str(winner) if winner in ("white", "black") else None,
            clock_initial=_int(clock.get("initial")),
            clock_increment=_int(clock.get("increment")),
            white_rating=rating("white"),
            black_rating=rating("black"),
        )


async def games_by_users(
    lichess: LichessClient,
    http: aiohttp.ClientSession,
    ids: Collection[str],
    *,
    with_current_games: bool = True,
    on_open: Callable[[], None] | None = None,
    silence_limit: float = SILENCE_LIMIT,
) -> AsyncIterator[StreamedGame]:
    """The events of one stream for `ids` until the connection ends (returns) or breaks
    (:class:`LichessUnavailable`). Refusals raise typed errors: 429 starts the client's
    pause and raises :class:`LichessRateLimited`; 400/401/403/404 raise what
    :meth:`LichessClient.map_status` says. `on_open` runs once Lichess has accepted."""
    if len(ids) > STREAM_IDS:
        raise ValueError(f"{len(ids)} user ids for one stream; Lichess takes {STREAM_IDS}")
    await lichess.wait_out_pause()
    what = f"game stream of {len(ids)} players"
    timeout = aiohttp.ClientTimeout(total=None, connect=lichess.timeout, sock_read=silence_limit)
    params = {"withCurrentGames": "true" if with_current_games else "false"}
    headers = {"Content-Type": "text/plain", **lichess.auth_headers()}
    body = ",".join(sorted(ids))
    try:
        async with http.post(
            lichess.base_url + PATH, data=body, params=params, headers=headers, timeout=timeout
        ) as response:
            if response.status == 429:
                lichess.rate_limited()
                raise LichessRateLimited(f"Lichess rate limit (429) on {what}", status_code=429)
            if response.status != 200:
                said = (await response.text())[:300]
                raise lichess.map_status(what, response.status, _error_of(said))
            if on_open is not None:
                on_open()
            async for raw in response.content:
                line = raw.strip()
                if not line:
                    continue  # Lichess's keep-alive
                try:
                    yield StreamedGame.from_api(json.loads(line))
                except (ValueError, KeyError, TypeError) as exc:
                    log.warning("an unreadable line on the %s: %s", what, exc)
    except LichessError:
        raise
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise LichessUnavailable(f"the {what} broke: {type(exc).__name__}") from None


def _status(data: Mapping[str, Any]) -> str:
    """The status name: `statusName`, else the name of the `status` number (or a name sent
    as `status`)."""
    if data.get("statusName"):
        return str(data["statusName"])
    status = data.get("status")
    if isinstance(status, int) and not isinstance(status, bool):
        return STATUS_NAMES.get(status, "unknownFinish")
    return str(status or "")


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _error_of(body: str) -> str:
    """Lichess's ``{"error": ...}`` message, else the body as sent."""
    try:
        data = json.loads(body)
    except ValueError:
        return body
    return str(data.get("error", body)) if isinstance(data, dict) else body


__all__ = ["STREAM_IDS", "StreamedGame", "games_by_users"]
