"""The fake Lichess's stream of the games between listed users, as the API reference
(``doc/specs/tags/games/api-stream-games-by-users.yaml``) and lila (``Api.gamesByUsersStream``,
``GamesByUsersStream``, ``GameStream.toJson``) have it.

* ``POST /api/stream/games-by-users`` (text body: user ids separated by commas; query
  ``withCurrentGames``): the ids are trimmed, lowercased and made a set (empty items
  dropped). More than **300** (no token) or **500** (a ``Bearer`` token; an unknown token is
  401 as everywhere) is **400** ``{"error": "Too many ids: N, expected up to 300"}``. At most
  **4** streams open per client address (lila's ``GlobalConcurrencyLimitPerIP.events``): the
  5th is **429**. Fewer than 2 ids: 200 and a body that ends at once.
* The stream (``application/x-ndjson``, one JSON line per event) sends, with
  ``withCurrentGames=true``, the games in progress (``created``/``started``) whose two
  players are both listed; then one event when such a game **starts** and one when it
  **finishes** (any end, ``aborted`` included), nothing else. Events come from the fake's
  own changes: ``add_game`` of a game in progress (a start), of a finished game (a start,
  then its finish), ``update_game`` that ends a game in progress (a finish); a game stored
  with ``listed_at`` still ahead publishes nothing until :meth:`GameStreams.release_listed`.
  Each stream keeps at most 150 events waiting and drops the oldest; an event published
  while no stream listens is lost (lila keeps no history). A blank line (``"\\n"``) after
  ``stream_keepalive_seconds`` (real time, lila's 50 s) with nothing to send.
* An event is ``GameStream.toJson``: ``id``, ``rated``, ``variant``, ``speed``, ``perf``,
  ``createdAt`` (ms), ``status`` (lila's number) and ``statusName``, ``players.white`` /
  ``players.black`` as ``{"userId", "rating"}``, ``winner`` when there is one, ``clock``
  as ``{"initial", "increment"}`` when the game has one. No ``lastMoveAt``, no
  ``ratingDiff``, no ``user`` objects: not the export's shape.

Test controls: :meth:`GameStreams.drop_streams`, :meth:`GameStreams.refuse_streams`,
``stream_keepalive_seconds``; observations: ``open_streams``, ``stream_opens``. A stream is
recorded in ``requests`` like any request but is **not** counted in ``in_flight`` /
``max_in_flight``: the bot keeps it open while it makes its one-at-a-time requests.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from acwc_sim.lichess_games import StoredGame, speed_of

STREAM_PATH = "/api/stream/games-by-users"
#: lila: `ctx.me.fold(300)(_ => 500)` (lichess4545's 900 left out).
MAX_IDS_ANONYMOUS = 300
MAX_IDS_AUTHENTICATED = 500
#: lila: `GlobalConcurrencyLimitPerIP.events`, maxConcurrency = 4.
MAX_STREAMS_PER_ADDRESS = 4
#: lila: `Source.queue[Game](150, OverflowStrategy.dropHead)`.
QUEUE_SIZE = 150
#: lila's `Status` ids (chess `Status`): the stream sends the number and the name.
STATUS_IDS = {
    "created": 10,
    "started": 20,
    "aborted": 25,
    "mate": 30,
    "resign": 31,
    "stalemate": 32,
    "timeout": 33,
    "draw": 34,
    "outoftime": 35,
    "cheat": 36,
    "noStart": 37,
    "unknownFinish": 38,
    "insufficientMaterialClaim": 39,
    "variantEnd": 60,
}
#: Statuses of a game still in progress (lila: below `aborted`, the game is playable).
IN_PROGRESS = frozenset({"created", "started"})
# While a stream waits for an event it looks this often (s) whether its client hung up.
_POLL_SECONDS = 0.05


def stream_event(game: StoredGame) -> dict[str, Any]:
    """The game as the stream sends it (lila `GameStream.toJson`)."""
    speed = speed_of(game.clock)
    event: dict[str, Any] = {
        "id": game.id,
        "rated": game.rated,
        "variant": game.variant,
        "speed": speed,
        "perf": speed if game.variant in ("standard", "fromPosition") else game.variant,
        "createdAt": game.created_ms,
        "status": STATUS_IDS[game.status],
        "statusName": game.status,
        "players": {
            "white": {"userId": game.white.lower(), "rating": game.white_rating},
            "black": {"userId": game.black.lower(), "rating": game.black_rating},
        },
    }
    if game.winner is not None and game.status not in IN_PROGRESS:
        event["winner"] = game.winner
    if game.clock is not None:
        event["clock"] = {"initial": game.clock[0], "increment": game.clock[1]}
    return event


@dataclass(eq=False)
class _Subscriber:
    """One open stream: whose games it wants, and the events waiting to be written."""

    ids: frozenset[str]
    address: str | None
    request: web.Request
    queue: deque[bytes] = field(default_factory=lambda: deque(maxlen=QUEUE_SIZE))
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    cut: bool = False

    def wants(self, game: StoredGame) -> bool:
        white, black = game.white.lower(), game.black.lower()
        return white != black and white in self.ids and black in self.ids


class GameStreams:
    """The open game streams of the fake server and the events its game changes publish."""

    games: list[StoredGame]
    _by_id: dict[str, StoredGame]
    _truncating: set[int]
    time_source: Callable[[], float]
    _listed: Callable[[StoredGame], bool]
    _bearer: Callable[[web.Request], str | None]
    fail_next: Callable[[str, int, int], None]

    def _init_streams(self) -> None:
        self._subscribers: list[_Subscriber] = []
        self._unreleased: dict[str, None] = {}  # ids of games still waiting for `listed_at`
        #: how many stream requests were answered 200 (fewer than 2 ids included)
        self.stream_opens = 0
        #: real seconds without an event before the stream sends a blank line (lila: 50)
        self.stream_keepalive_seconds = 50.0

    # ----------------------------------------------------------------- test controls

    @property
    def open_streams(self) -> list[frozenset[str]]:
        """The id sets of the streams open now, oldest first."""
        return [sub.ids for sub in self._subscribers]

    def drop_streams(self) -> int:
        """Cut every open stream now, as a Lichess restart does: the client sees its
        connection end (no final event). Returns how many were cut."""
        cut = self._subscribers
        self._subscribers = []
        for sub in cut:
            sub.cut = True
            if sub.request.transport is not None:
                sub.request.transport.close()
            sub.wake.set()
        return len(cut)

    def refuse_streams(self, status: int, times: int = 1) -> None:
        """Answer the next `times` stream requests with `status` and ``{"error": ...}`` (429
        as lila's rate limit, 503 as a restart): :meth:`fail_next` on the stream's path."""
        self.fail_next(STREAM_PATH, status, times)

    def release_listed(self) -> int:
        """Publish the games stored with a `listed_at` that ``time_source()`` has reached
        (a start, then the finish of a finished game); returns how many."""
        due = [gid for gid in self._unreleased if self._listed(self._by_id[gid])]
        for gid in due:
            del self._unreleased[gid]
            self._publish_new(self._by_id[gid])
        return len(due)

    # ----------------------------------------------------------------- publishing

    def _game_added(self, game: StoredGame) -> None:
        if self._listed(game):
            self._publish_new(game)
        else:
            self._unreleased[game.id] = None

    def _game_updated(self, old: StoredGame, new: StoredGame) -> None:
        if new.id in self._unreleased:
            return  # not on Lichess yet: `release_listed` tells its state then
        if old.status in IN_PROGRESS and new.status not in IN_PROGRESS:
            self._publish(new)

    def _publish_new(self, game: StoredGame) -> None:
        """A game that appears: it started, and a finished one also ended."""
        if game.status in IN_PROGRESS:
            self._publish(game)
        else:
            self._publish(dataclasses.replace(game, status="started", winner=None))
            self._publish(game)

    def _publish(self, game: StoredGame) -> None:
        line: bytes | None = None
        for sub in self._subscribers:
            if sub.wants(game):
                line = line or (json.dumps(stream_event(game)) + "\n").encode()
                sub.queue.append(line)  # a full queue drops its oldest event
                sub.wake.set()

    # ----------------------------------------------------------------- handler

    def stream_routes(self) -> list[web.RouteDef]:
        return [web.post(STREAM_PATH, self._stream_games)]

    async def _stream_games(self, request: web.Request) -> web.StreamResponse:
        text = await request.text()
        ids = frozenset(i.strip().lower() for i in text.split(",") if i.strip())
        most = MAX_IDS_AUTHENTICATED if self._bearer(request) else MAX_IDS_ANONYMOUS
        if len(ids) > most:
            message = f"Too many ids: {len(ids)}, expected up to {most}"
            return web.json_response({"error": message}, status=400)
        address = request.remote
        if sum(sub.address == address for sub in self._subscribers) >= MAX_STREAMS_PER_ADDRESS:
            message = f"Please only run {MAX_STREAMS_PER_ADDRESS} request(s) at a time"
            return web.json_response({"error": message}, status=429)
        self.stream_opens += 1
        resp = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await resp.prepare(request)
        if len(ids) < 2:
            await resp.write_eof()
            return resp
        sub = _Subscriber(ids, address, request)
        self._subscribers.append(sub)  # before the games in progress: no start falls between
        try:
            if request.query.get("withCurrentGames", "").lower() in ("true", "1"):
                for game in self.games:
                    if game.status in IN_PROGRESS and sub.wants(game) and self._listed(game):
                        if game.id not in self._unreleased:
                            await resp.write((json.dumps(stream_event(game)) + "\n").encode())
            await self._pump(sub, request, resp)
        except ConnectionError:
            pass  # the client hung up
        finally:
            if sub in self._subscribers:
                self._subscribers.remove(sub)
        if sub.cut:
            self._truncating.add(id(request))  # `statuses` says None: the stream was cut
        return resp

    async def _pump(self, sub: _Subscriber, request: web.Request, resp: web.StreamResponse) -> None:
        """Write the subscriber's events as they come, a blank line when idle, until the
        client hangs up or :meth:`drop_streams` cuts the stream."""
        loop = asyncio.get_running_loop()
        last_write = loop.time()
        while not sub.cut:
            if sub.queue:
                await resp.write(sub.queue.popleft())
                last_write = loop.time()
                continue
            if request.transport is None or request.transport.is_closing():
                return
            idle = loop.time() - last_write
            if idle >= self.stream_keepalive_seconds:
                await resp.write(b"\n")
                last_write = loop.time()
                continue
            sub.wake.clear()
            wait = min(_POLL_SECONDS, self.stream_keepalive_seconds - idle)
            try:
                await asyncio.wait_for(sub.wake.wait(), wait)
            except TimeoutError:
                pass
