"""The one Lichess client of the bot.

berserk (synchronous, over ``requests``) does the HTTP; this wrapper makes it safe
to use from asyncio:

* every call runs in a worker thread (``asyncio.to_thread``), berserk's lazy export
  generators consumed there; one request in flight at a time (an ``asyncio.Lock`` held for
  the whole call, 429 pause and retries included; after a call abandoned on its timeout
  guard, the next waits for the abandoned thread first);
* every HTTP request gets ``timeout=`` (connect and read), and every call is guarded with
  ``asyncio.wait_for``;
* after an HTTP 429 no request at all is sent for ``rate_limit_pause`` seconds (the game
  stream, :mod:`bot.lichess.game_stream`, the one connection outside the queue, included);
  the call is then retried up to ``max_retries_after_429`` times before
  :class:`LichessRateLimited`. The pause runs on a :class:`PauseClock` (the event loop's by
  default): a simulation on a fake clock spends it in championship time;
* errors are typed (:mod:`bot.lichess.errors`).  The token is never logged.

Time window semantics of :meth:`LichessClient.export_games` are Lichess's, and depend on
the filters: with ``rated`` or ``perfType`` (the bot sends them on every read but the
no-show check's) Lichess answers from its search index, where ``since`` and ``until`` filter
the game's **last move**, both **inclusive**, at whole-second precision, newest last move
first, and the index also holds games that were never played (``noStart``) or changed no
rating. Without them it reads its game database: ``since`` inclusive and ``until``
exclusive on the game's **creation** time. So a caller never trusts the window alone: it
checks each game's own ``createdAt``/``lastMoveAt`` and status (see
:meth:`LichessClient.count_rated_games`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime, timedelta
from typing import Any, TypeVar

import berserk
import requests
from berserk.exceptions import ApiError, ResponseError
from berserk.formats import JSON, NDJSON
from berserk.session import Requestor

from bot.rules.eligibility import counts_before_cutoff, last_second_before

from .errors import (
    LichessAuthError,
    LichessBusy,
    LichessError,
    LichessNotFound,
    LichessRateLimited,
    LichessUnavailable,
)
from .models import LichessGame, LichessUser, OpenChallenge, to_millis
from .pause import LoopPauseClock, PauseClock
from .urgency import PERSON_WAITING

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Lichess usernames: letters, digits, "_" and "-", at most 30 characters.
_USERNAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,30}$")
#: ``POST /api/users`` accepts at most this many ids per request.
USERS_CHUNK = 300
#: Pages of the games export `count_rated_games` reads at most (each of `limit` games).
_COUNT_PAGES = 10


class _Abandoned(Exception):
    """Raised inside a worker thread whose call was given up by the event loop."""


class _TimeoutSession(requests.Session):
    """A requests session giving every request a default ``timeout`` and the token."""

    def __init__(self, timeout: float, token: str | None) -> None:
        super().__init__()
        self._default_timeout = timeout
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> requests.Response:
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = self._default_timeout
        return super().request(method, url, *args, **kwargs)

    def __repr__(self) -> str:  # never show headers (token)
        return f"<_TimeoutSession timeout={self._default_timeout}>"


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _check_username(username: str) -> str:
    if not _USERNAME_RE.match(username or ""):
        raise LichessNotFound(f"invalid Lichess username: {username!r}", status_code=None)
    return username


class LichessClient:
    """Asynchronous facade over berserk.  Create one per process and share it."""

    def __init__(
        self,
        *,
        base_url: str = "https://lichess.org",
        token: str | None = None,
        timeout: float = 20.0,
        rate_limit_pause: float = 60.0,
        max_retries_after_429: int = 1,
        pause_clock: PauseClock | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.rate_limit_pause = rate_limit_pause
        self.max_retries_after_429 = max(0, max_retries_after_429)
        self._token = token or None
        self._session = _TimeoutSession(timeout, token)
        self._api = berserk.Client(session=self._session, base_url=self.base_url)
        self._raw = Requestor(self._session, self.base_url, default_fmt=JSON)
        self._lock = asyncio.Lock()
        self._pause_clock: PauseClock = pause_clock or LoopPauseClock()
        self._paused_until = float("-inf")  # pause-clock time before which no request is sent
        self._straggler: asyncio.Future[Any] | None = None

    def __repr__(self) -> str:
        return f"<LichessClient base_url={self.base_url!r}>"

    @property
    def token_key(self) -> str:
        """A short fingerprint of the token (never the token): a new token is a new key."""
        if not self._token:
            return "none"
        return hashlib.sha256(self._token.encode()).hexdigest()[:8]

    # ------------------------------------------------------------------ the 429 pause, shared

    def pause_left(self) -> float:
        """Seconds until requests may go to Lichess again after a 429 (0 when none)."""
        return max(0.0, self._paused_until - self._pause_clock.time())

    async def wait_out_pause(self) -> None:
        """Wait until the 429 pause is over: the long-lived game stream opens only then."""
        wait = self.pause_left()
        if wait > 0:
            await self._pause_clock.sleep(wait)

    def rate_limited(self) -> None:
        """Lichess answered 429 outside the queue (the game stream): pause every request."""
        self._paused_until = self._pause_clock.time() + self.rate_limit_pause

    def auth_headers(self) -> dict[str, str]:
        """The token's header for a request made outside berserk (never logged)."""
        return {"Authorization": f"Bearer {self._token}"} if self._token else {}

    # ------------------------------------------------------------------ plumbing

    @property
    def _guard(self) -> float:
        """Overall wall-clock bound of one non-streaming request (connect + read)."""
        return self.timeout * 2 + 1.0

    async def _call(self, what: str, fn: Callable[[threading.Event], T], *, guard: float) -> T:
        """Run ``fn`` in a thread under the lock, with 429 pause/retry and error mapping."""
        pause = self._pause_clock
        async with self._lock:
            retries = 0
            while True:
                if self._straggler is not None and not self._straggler.done():
                    await asyncio.wait({self._straggler})
                self._straggler = None
                wait = self._paused_until - pause.time()
                if wait > 0 and PERSON_WAITING.get():
                    raise LichessBusy(wait)  # a person does not wait out the pause
                if wait > 0:
                    await pause.sleep(wait)
                try:
                    return await self._run_thread(what, fn, guard)
                except ResponseError as exc:
                    status = int(exc.status_code)
                    if status == 429:
                        self.rate_limited()
                        if PERSON_WAITING.get():
                            raise LichessBusy(self.rate_limit_pause) from None
                        if retries < self.max_retries_after_429:
                            retries += 1
                            log.warning(
                                "Lichess rate limit (429) on %s; pausing %.1fs before retry %d",
                                what,
                                self.rate_limit_pause,
                                retries,
                            )
                            continue
                        raise LichessRateLimited(
                            f"Lichess rate limit (429) on {what}", status_code=429
                        ) from None
                    raise self.map_status(what, status, _error_body(exc)) from None
                except ApiError as exc:  # wrapped requests exception (connection, timeout)
                    raise LichessUnavailable(
                        f"Lichess unreachable on {what}: {type(exc.error).__name__}"
                    ) from None
                except requests.RequestException as exc:  # raised while streaming
                    raise LichessUnavailable(
                        f"Lichess unreachable on {what}: {type(exc).__name__}"
                    ) from None
                except ValueError as exc:  # undecodable JSON
                    raise LichessError(f"invalid answer from Lichess on {what}: {exc}") from None

    async def _run_thread(self, what: str, fn: Callable[[threading.Event], T], guard: float) -> T:
        abandon = threading.Event()
        fut: asyncio.Future[T] = asyncio.ensure_future(asyncio.to_thread(fn, abandon))
        try:
            return await asyncio.wait_for(asyncio.shield(fut), guard)
        except TimeoutError:
            abandon.set()
            self._straggler = fut
            fut.add_done_callback(_swallow)
            raise LichessUnavailable(f"Lichess call {what} took longer than {guard:.1f}s") from None
        except asyncio.CancelledError:
            abandon.set()
            self._straggler = fut
            fut.add_done_callback(_swallow)
            raise

    @staticmethod
    def map_status(what: str, status: int, body: str | None = None) -> LichessError:
        said = f": {body}" if body else ""
        if status != 404:  # Lichess's own words ({"error": ...}) say what went wrong
            log.warning("Lichess answered %s on %s%s", status, what, said)
        if status == 404:
            return LichessNotFound(f"not found on Lichess: {what}{said}", status_code=404)
        if status in (401, 403):
            return LichessAuthError(
                f"Lichess refused the token ({status}) on {what}{said}", status_code=status
            )
        if status >= 500:
            return LichessUnavailable(f"Lichess error {status} on {what}", status_code=status)
        return LichessError(f"Lichess answered {status} on {what}{said}", status_code=status)

    # ------------------------------------------------------------------ users

    async def get_user(self, username: str) -> LichessUser:
        """Public data of one account.  :class:`LichessNotFound` if it does not exist."""
        name = _check_username(username)
        data = await self._call(
            f"user {name}", lambda _a: self._api.users.get_public_data(name), guard=self._guard
        )
        return LichessUser.from_api(data)

    async def get_users(self, ids: Sequence[str]) -> list[LichessUser]:
        """Many accounts by id (``POST /api/users``, 300 per request).  Unknown ids are
        simply missing from the result."""
        wanted = list(dict.fromkeys(i.lower() for i in ids if _USERNAME_RE.match(i or "")))
        users: list[LichessUser] = []
        for start in range(0, len(wanted), USERS_CHUNK):
            chunk = wanted[start : start + USERS_CHUNK]
            data = await self._call(
                f"users ({len(chunk)})",
                lambda _a, c=chunk: self._api.users.get_by_id(*c),  # type: ignore[misc]
                guard=self._guard,
            )
            users.extend(LichessUser.from_api(d) for d in data)
        return users

    async def rating_history(
        self, username: str, perf_name: str = "Antichess"
    ) -> list[tuple[date, int]]:
        """Daily rating points of one perf (``name`` as Lichess spells it), oldest first.

        Lichess counts months from 0; the dates returned are real calendar dates."""
        name = _check_username(username)
        data = await self._call(
            f"rating history {name}",
            lambda _a: self._api.users.get_rating_history(name),
            guard=self._guard,
        )
        out: list[tuple[date, int]] = []
        for entry in data or []:
            if str(entry.get("name", "")).lower() != perf_name.lower():
                continue
            for point in entry.get("points") or []:
                year, month0, day, rating = (int(x) for x in tuple(point)[:4])
                out.append((date(year, month0 + 1, day), rating))
        out.sort(key=lambda p: p[0])
        return out

    # ------------------------------------------------------------------ games

    async def export_games(
        self,
        username: str,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        vs: str | None = None,
        rated: bool | None = None,
        perf_type: str | None = None,
        max_games: int | None = None,
        ongoing: bool = False,
        clocks: bool = False,
    ) -> list[LichessGame]:
        """Games of ``username``, newest first, as Lichess sends them; unfinished ones only
        with ``ongoing`` (Lichess delays them by a few seconds); with ``clocks`` each game's
        clock record (`LichessGame.clocks`: the Armageddon's bid is checked from it).

        With ``rated`` or ``perf_type`` (Lichess's search index): ``since`` and ``until``
        both inclusive on the **last move**, in whole seconds, sorted by last move, and the
        games may include never-played (``noStart``) ones. Without them: ``since`` inclusive
        and ``until`` exclusive on the **creation** time. ``max_games`` applies after the
        other filters. A closed account's export is refused (:class:`LichessNotFound`)."""
        name = _check_username(username)
        if max_games is not None and max_games <= 0:
            return []
        params: dict[str, str | int] = {"moves": "false"}
        if since is not None:
            params["since"] = to_millis(since)
        if until is not None:
            params["until"] = to_millis(until)
        if vs is not None:
            params["vs"] = vs
        if rated is not None:
            params["rated"] = _bool(rated)
        if perf_type is not None:
            params["perfType"] = perf_type
        if max_games is not None:
            params["max"] = max_games
        if ongoing:
            params["ongoing"] = "true"
        if clocks:
            params["clocks"] = "true"
        path = f"/api/games/user/{name}"

        def run(abandon: threading.Event) -> list[dict[str, Any]]:
            # berserk sends the request here, at once (an error status raises here); the
            # games then arrive as the loop reads the stream.
            stream: Iterable[dict[str, Any]] = self._raw.get(
                path, params=params, fmt=NDJSON, stream=True
            )
            games: list[dict[str, Any]] = []
            for game in stream:
                if abandon.is_set():
                    raise _Abandoned()
                games.append(game)
            return games

        # Lichess streams ~20-30 games/s; allow for that on top of the request bound.
        budget = self._guard + (max_games / 10 if max_games is not None else 600.0)
        raw = await self._call(f"games of {name}", run, guard=budget)
        return [LichessGame.from_api(g) for g in raw]

    async def get_game(self, game_id: str) -> LichessGame:
        """One game by its 8-character id, finished or not (``GET /game/export/{id}``).

        :class:`LichessNotFound` if there is no such game."""
        if not re.fullmatch(r"[A-Za-z0-9]{8}", game_id or ""):
            raise LichessNotFound(f"invalid Lichess game id: {game_id!r}", status_code=None)
        data = await self._call(
            f"game {game_id}",
            lambda _a: self._raw.get(f"/game/export/{game_id}", params={"moves": "false"}),
            guard=self._guard,
        )
        return LichessGame.from_api(data)

    async def count_rated_games(
        self, username: str, *, perf_type: str, until: datetime, limit: int
    ) -> int:
        """Rated ``perf_type`` games ``username`` **played** before ``until`` (exclusive),
        counting at most ``limit`` (a cheap "has at least N games" check).

        Which games count is rule II.A.2's, decided in
        :func:`bot.rules.eligibility.counts_before_cutoff` (played to an end that changed
        the player's rating, last move before ``until``). Lichess's index filters the last
        move with ``until`` inclusive in whole seconds, so the request asks up to the last
        whole second before ``until`` and each game's own ``lastMoveAt`` is checked. Pages
        go back by last move until ``limit`` games count or the history ends."""
        if limit <= 0:
            return 0
        uid = username.lower()
        cursor = last_second_before(until)
        seen: set[str] = set()
        counted = 0
        for _page in range(_COUNT_PAGES):
            games = await self.export_games(
                username, rated=True, perf_type=perf_type, until=cursor, max_games=limit
            )
            for game in games:
                if game.id in seen:
                    continue
                seen.add(game.id)
                if counts_before_cutoff(game, uid, until):
                    counted += 1
            if counted >= limit or len(games) < limit:
                return min(counted, limit)
            oldest = min(g.last_move_at for g in games).replace(microsecond=0)
            # The bound is inclusive: the same second again (ids already seen are skipped),
            # or one second earlier when a whole page shares it.
            cursor = oldest if oldest < cursor else cursor - timedelta(seconds=1)
        return counted

    # ------------------------------------------------------------------ challenges

    async def create_open_challenge(
        self,
        *,
        users: tuple[str, str],
        variant: str,
        clock_limit: int,
        clock_increment: int,
        rated: bool = True,
        name: str | None = None,
    ) -> OpenChallenge:
        """Open challenge that only ``users`` may join; **the first gets White** (Lichess's
        rule for ``users=a,b``). With a token it needs the ``challenge:write`` scope."""
        form: dict[str, str | int] = {
            "users": ",".join(users),
            "variant": variant,
            "clock.limit": int(clock_limit),
            "clock.increment": int(clock_increment),
            "rated": _bool(rated),
        }
        if name:
            form["name"] = name
        data = await self._call(
            "open challenge",
            lambda _a: self._raw.post("/api/challenge/open", data=form),
            guard=self._guard,
        )
        return OpenChallenge.from_api(data)

    # ------------------------------------------------------------------ the token

    async def token_scopes(self) -> frozenset[str] | None:
        """The scopes of the client's own token (``POST /api/token/test``), or None when
        Lichess says the token is invalid (revoked, expired, never existed). Raises
        :class:`ValueError` when the client has no token, and the usual errors when
        Lichess cannot be reached."""
        token = self._token
        if not token:
            raise ValueError("the Lichess client has no token")

        def run(_abandon: threading.Event) -> Any:
            # Sent without the Authorization header: Lichess answers 401 to any request
            # that carries an invalid token, and this one must say "invalid" in its body.
            response = self._session.post(
                f"{self.base_url}/api/token/test",
                data=token.encode(),
                headers={"Content-Type": "text/plain", "Authorization": None},
            )
            if not response.ok:
                raise ResponseError(response)
            return response.json()

        data = await self._call("token test", run, guard=self._guard)
        entry = data.get(token) if isinstance(data, dict) else None
        if not isinstance(entry, dict):
            return None
        return frozenset(s.strip() for s in str(entry.get("scopes") or "").split(",") if s)

    # ------------------------------------------------------------------ lifecycle

    async def aclose(self) -> None:
        """Wait for any abandoned request, then close the HTTP session."""
        async with self._lock:
            if self._straggler is not None and not self._straggler.done():
                await asyncio.wait({self._straggler})
            self._straggler = None
            self._session.close()


def _error_body(exc: ResponseError) -> str | None:
    """Lichess's ``{"error": ...}`` (or the body it sent), for the log and the message."""
    try:
        cause = exc.cause
    except Exception:  # pragma: no cover - berserk reads the body itself
        return None
    if isinstance(cause, dict) and "error" in cause:
        return str(cause["error"])[:300]
    return str(cause)[:300] if cause else None


def _swallow(fut: asyncio.Future[Any]) -> None:
    if not fut.cancelled():
        fut.exception()


__all__ = ["LichessClient"]
