"""A fake Lichess: a real aiohttp server on 127.0.0.1 speaking Lichess-shaped JSON.

Usage::

    async with fake_lichess() as fake:
        fake.add_user("Alice", created_at=datetime(2020, 1, 1, tzinfo=UTC))
        client = LichessClient(base_url=fake.base_url, rate_limit_pause=0.05)

Semantics copied from lila:

* ``GET /api/games/user/{name}``: with ``rated`` or ``perfType`` (Lichess's search
  index) ``since`` and ``until`` are both inclusive on the game's ``lastMoveAt`` in whole
  seconds, newest last move first, finished games only (``noStart`` included); without
  them (the game database) ``since`` inclusive and ``until`` exclusive on ``createdAt``
  (ms), newest first, and unfinished games only with ``ongoing=true``. Then ``vs``
  (opponent, case-insensitive), ``rated``, ``perfType`` (comma separated), ``max``;
  ``clocks=true`` adds each game's clock record (``clocks``, when the game has one).
  Unknown user, or a closed account: 404.
* ``GET /api/user/{name}``: case-insensitive; closed accounts (``closed=True``)
  answer only ``id``, ``username``, ``disabled: true``; ``disabled=True`` without
  ``closed`` answers the full profile plus ``disabled: true``.  Unknown: 404.
  ``perfs.<perf>.games`` counts the user's rated finished games of that perf.
* ``GET /api/user/{name}/rating-history``: one entry per perf, points derived from
  rated finished games (last rating after the game, per UTC day), month 0-based.
* ``POST /api/challenge/open`` (form body; White is the first of ``users``),
  ``POST /api/token/test`` and tokens with scopes: :mod:`acwc_sim.lichess_access`.
  ``POST /api/users`` (text body).
* ``/oauth``, ``POST``/``DELETE /api/token``, ``/api/account``: :mod:`acwc_sim.oauth`.
* ``POST /api/stream/games-by-users``: the starts and ends of the games between listed
  users as ``add_game``/``update_game`` make them (:mod:`acwc_sim.game_stream`); not
  counted in ``in_flight``/``max_in_flight``.

Test controls: :meth:`FakeLichess.fail_next`, :meth:`FakeLichess.stall_next`,
:meth:`FakeLichess.truncate_next`, :meth:`FakeLichess.set_delay`,
:meth:`FakeLichess.set_down`, :meth:`FakeLichess.drop_streams`; observations:
``requests`` (method, path, query), ``request_times`` (``time_source()`` at arrival:
``time.monotonic`` unless a simulation sets its fake clock), ``statuses`` (the HTTP status
answered, ``None`` for a cut stream or one still open), ``max_in_flight``, ``challenges``,
``request_count`` (the only one kept with ``keep_requests`` off).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web

from acwc_sim.game_stream import STREAM_PATH, GameStreams
from acwc_sim.lichess_access import LichessAccess
from acwc_sim.lichess_games import History, StoredGame, ms, new_game_id
from acwc_sim.lichess_misbehaviour import Handler, Misbehaviour
from acwc_sim.oauth import OAuthEndpoints

_UNFINISHED = {"created", "started", "aborted"}

PERF_NAMES = {
    "ultraBullet": "UltraBullet",
    "bullet": "Bullet",
    "blitz": "Blitz",
    "rapid": "Rapid",
    "classical": "Classical",
    "correspondence": "Correspondence",
    "chess960": "Chess960",
    "kingOfTheHill": "King of the Hill",
    "threeCheck": "Three-check",
    "antichess": "Antichess",
    "atomic": "Atomic",
    "horde": "Horde",
    "racingKings": "Racing Kings",
    "crazyhouse": "Crazyhouse",
}


def _truthy(value: str | None) -> bool | None:
    if value is None:
        return None
    return value.lower() in ("true", "1", "yes")


class FakeLichess(LichessAccess, Misbehaviour, OAuthEndpoints, GameStreams):
    """State and handlers of the fake server.  Start it with :func:`fake_lichess`."""

    def __init__(self, seed: int | None = None) -> None:
        # Game ids come from this generator: a seeded run repeats itself. A challenge's id is
        # derived from the seed, its form and the moment, so a restarted simulation that
        # rebuilds the fake hands out the same links.
        self.seed = seed
        self.rng = random.Random(seed)
        self.base_url = ""
        self.users: dict[str, dict[str, Any]] = {}
        self.games: list[StoredGame] = []
        # The games of each user and each game by id: a read scans one player's games, not
        # the whole championship's (a 256-player run stores thousands).
        self._by_user: dict[str, list[StoredGame]] = {}
        self._by_id: dict[str, StoredGame] = {}
        self._histories: dict[str, History] = {}  # by user id (see `add_history`)
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.request_count = 0  # every request received, kept or not
        #: off, the request records and `challenges` stay empty (a simulation counts them)
        self.keep_requests = True
        self.request_times: list[float] = []
        self.statuses: list[int | None] = []
        self.time_source: Callable[[], float] = time.monotonic
        #: told of each request as it arrives (method, path with query, time_source())
        self.on_request: Callable[[str, str, float], None] | None = None
        self.bodies: list[str] = []
        self.challenges: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._init_access()
        self._init_oauth()
        self._init_streams()
        super().__init__()

    # ----------------------------------------------------------------- setup API

    def add_user(
        self,
        username: str,
        *,
        created_at: datetime,
        disabled: bool = False,
        tos_violation: bool = False,
        title: str | None = None,
        bio: str = "",
        location: str = "",
        closed: bool = False,
    ) -> None:
        """Create (or replace) an account."""
        self.users[username.lower()] = {
            "username": username,
            "created_at": created_at,
            "disabled": disabled,
            "tos_violation": tos_violation,
            "title": title,
            "bio": bio,
            "location": location,
            "closed": closed,
        }

    def set_profile(
        self, username: str, *, bio: str | None = None, location: str | None = None
    ) -> None:
        """Change the bio and/or location of an existing account."""
        user = self.users[username.lower()]
        if bio is not None:
            user["bio"] = bio
        if location is not None:
            user["location"] = location

    def add_game(self, *, listed_at: datetime | None = None, **fields: Any) -> dict[str, Any]:
        """Store a game (the fields of :class:`StoredGame`: `white`, `black`, `created_at`,
        then `status`, `winner`, ratings...; an `id` is made up if none is given) and return
        its Lichess JSON. With `listed_at`, the game stays invisible until `time_source()`
        reaches that moment: a simulation can store a match's games up front and Lichess
        still shows each only once it is played."""
        if not fields.get("id"):
            fields["id"] = new_game_id(self.rng)
        listed_ms = None if listed_at is None else ms(listed_at)
        game = StoredGame(**fields, listed_ms=listed_ms)
        self.games.append(game)
        self._by_id.setdefault(game.id, game)
        for uid in {game.white.lower(), game.black.lower()}:
            self._by_user.setdefault(uid, []).append(game)
        self._game_added(game)  # the game stream's start (and end) events
        return game.json(self.spelled)

    def update_game(self, game_id: str, **fields: Any) -> dict[str, Any]:
        """Change a stored game (a game in progress ends: `status`, `winner`, ...) and
        return its new JSON; every list that holds it sees the change."""
        old = self._by_id[game_id]
        new = dataclasses.replace(old, **fields)
        self.games[self.games.index(old)] = new
        self._by_id[game_id] = new
        for uid in {old.white.lower(), old.black.lower()}:
            listed = self._by_user[uid]
            listed[listed.index(old)] = new
        self._game_updated(old, new)
        return new.json(self.spelled)

    def add_history(
        self,
        username: str,
        *,
        games: int,
        rating: int,
        before: datetime,
        every: timedelta = timedelta(hours=2),
        opponent: str = "sparring",
        peak_gain: int = 0,
    ) -> None:
        """Give an account `games` rated antichess games as white against `opponent`, at
        `rating` (no change; the middle game at `rating + peak_gain`, the year's peak), one
        every `every`, the last starting `every` before `before`. They are listed, counted
        and exported like stored games, but kept as one rule."""
        uid = username.lower()
        self._histories[uid] = History(
            uid,
            opponent,
            rating,
            first=before - every * games,
            every=every,
            count=games,
            peak_gain=peak_gain,
        )

    def game_json(self, **fields: Any) -> dict[str, Any]:
        """A game's Lichess JSON (not stored); the fields of :class:`StoredGame`."""
        return StoredGame(**fields).json(self.spelled)

    def spelled(self, name: str) -> str:
        """The account's own spelling of `name` (as given when unknown)."""
        known = self.users.get(name.lower())
        return str(known["username"]) if known else name

    # ----------------------------------------------------------------- helpers

    def count(self, path_prefix: str, method: str | None = None) -> int:
        """Number of requests received whose path starts with ``path_prefix``."""
        wanted = [m for m, p, _q in self.requests if p.startswith(path_prefix)]
        return len(wanted) if method is None else wanted.count(method)

    def has_game(self, gid: str) -> bool:
        """Whether a game with this id was stored with `add_game` (listed yet or not)."""
        return gid in self._by_id

    def _listed_game(self, gid: str) -> dict[str, Any] | None:
        """The JSON of the game with this id, if Lichess shows it yet."""
        game = self._by_id.get(gid)
        if game is not None:
            return game.json(self.spelled) if self._listed(game) else None
        # A history game: the bot reads a game by id only for a match's own games, so this
        # scan of every history runs only on the way to a 404.
        for history in self._histories.values():
            for candidate in history.games(self.seed, self.spelled):
                if candidate["id"] == gid:
                    return candidate
        return None

    def _listed(self, game: StoredGame) -> bool:
        return game.listed_ms is None or self.time_source() * 1000 >= game.listed_ms

    def _user_games(self, uid: str, since_ms: int | None = None) -> list[dict[str, Any]]:
        """The user's listed games (history included), only those created at `since_ms`
        or later when given; in no particular order."""
        history = self._histories.get(uid)
        earlier = history.games(self.seed, self.spelled, since_ms) if history is not None else []
        stored = [
            game.json(self.spelled)
            for game in self._by_user.get(uid, ())
            if self._listed(game) and (since_ms is None or game.created_ms >= since_ms)
        ]
        return earlier + stored

    @staticmethod
    def _side(game: dict[str, Any], uid: str) -> dict[str, Any]:
        white: dict[str, Any] = game["players"]["white"]
        black: dict[str, Any] = game["players"]["black"]
        return white if white["user"]["id"] == uid else black

    @staticmethod
    def _opponent(game: dict[str, Any], uid: str) -> dict[str, Any]:
        white: dict[str, Any] = game["players"]["white"]
        black: dict[str, Any] = game["players"]["black"]
        return black if white["user"]["id"] == uid else white

    def _rated_finished(self, uid: str) -> list[dict[str, Any]]:
        games = [g for g in self._user_games(uid) if g["rated"] and g["status"] not in _UNFINISHED]
        return sorted(games, key=lambda g: g["lastMoveAt"])

    def user_json(self, uid: str) -> dict[str, Any]:
        """Lichess JSON of one stored user."""
        u = self.users[uid]
        if u["closed"]:
            return {"id": uid, "username": u["username"], "disabled": True}
        perfs: dict[str, Any] = {}
        for g in self._rated_finished(uid):
            side = self._side(g, uid)
            perf = perfs.setdefault(g["perf"], {"games": 0, "rating": 1500, "rd": 100, "prog": 0})
            perf["games"] += 1
            perf["rating"] = side["rating"] + side.get("ratingDiff", 0)
        data: dict[str, Any] = {
            "id": uid,
            "username": u["username"],
            "perfs": perfs,
            "createdAt": ms(u["created_at"]),
            "seenAt": ms(u["created_at"]),
            "playTime": {"total": 0, "tv": 0},
            "url": f"https://lichess.org/@/{u['username']}",
            "count": {"all": len(self._user_games(uid))},
        }
        profile = {k: u[k] for k in ("bio", "location") if u[k]}
        if profile:
            data["profile"] = profile
        if u["title"]:
            data["title"] = u["title"]
        if u["tos_violation"]:
            data["tosViolation"] = True
        if u["disabled"]:
            data["disabled"] = True
        return data

    # ----------------------------------------------------------------- handlers

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        self.request_count += 1
        keep = self.keep_requests
        if keep:
            self.requests.append((request.method, request.path, dict(request.query)))
            self.request_times.append(self.time_source())
            self.statuses.append(None)
        index = len(self.statuses) - 1
        if self.on_request is not None:
            self.on_request(request.method, request.path_qs, self.time_source())
        if self._stalling:
            # A client that gave up on a stalled request hung up before sending this one;
            # let the server see that hang-up first, so `in_flight` counts what the client
            # really has in flight (the stalled request ends within one poll of `_stalled`).
            await asyncio.sleep(0.1)
        counted = request.path != STREAM_PATH  # the bot keeps its stream open all along
        self.in_flight += counted
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if request.can_read_body and keep:
                self.bodies.append(await request.text())
            if self._delay:
                await asyncio.sleep(self._delay)
            stall = self._take(self._stalls, request.path)
            if stall is not None and not await self._stalled(request, stall[1]):
                return web.Response(status=504)  # nobody is listening any more
            refused = self.auth_refusal(request)
            response = refused or await self._answer_or_fail(request, handler)
            if keep and id(request) not in self._truncating:
                self.statuses[index] = response.status
            return response
        finally:
            self._truncating.discard(id(request))
            self.in_flight -= counted

    async def _get_user(self, request: web.Request) -> web.StreamResponse:
        uid = request.match_info["name"].lower()
        if uid not in self.users:
            return web.json_response({"error": "Not found"}, status=404)
        return web.json_response(self.user_json(uid))

    async def _post_users(self, request: web.Request) -> web.StreamResponse:
        text = await request.text()
        ids = [i.strip().lower() for i in text.split(",") if i.strip()]
        if len(ids) > 300:
            return web.json_response({"error": "Too many ids"}, status=400)
        return web.json_response([self.user_json(i) for i in ids if i in self.users])

    async def _rating_history(self, request: web.Request) -> web.StreamResponse:
        uid = request.match_info["name"].lower()
        if uid not in self.users:
            return web.json_response({"error": "Not found"}, status=404)
        per_perf: dict[str, dict[tuple[int, int, int], int]] = {k: {} for k in PERF_NAMES}
        for g in self._rated_finished(uid):
            side = self._side(g, uid)
            day = datetime.fromtimestamp(g["lastMoveAt"] / 1000, tz=UTC)
            key = (day.year, day.month - 1, day.day)  # Lichess months are 0-based
            per_perf.setdefault(g["perf"], {})[key] = side["rating"] + side.get("ratingDiff", 0)
        return web.json_response(
            [
                {
                    "name": PERF_NAMES.get(perf, perf),
                    "points": [[y, m, d, r] for (y, m, d), r in sorted(points.items())],
                }
                for perf, points in per_perf.items()
            ]
        )

    async def _export_games(self, request: web.Request) -> web.StreamResponse:
        uid = request.match_info["name"].lower()
        user = self.users.get(uid)
        if user is None or user["closed"] or user["disabled"]:  # a closed account: refused
            return web.json_response({"error": "Not found"}, status=404)
        q = request.query
        try:
            since = int(q["since"]) if "since" in q else None
            until = int(q["until"]) if "until" in q else None
            max_games = int(q["max"]) if "max" in q else None
        except ValueError:
            return web.json_response({"error": "bad number"}, status=400)
        vs = q.get("vs", "").lower() or None
        if vs is not None and vs not in self.users:  # lila: a closed opponent is fine
            return web.json_response({"error": f"No such opponent: {q['vs']}"}, status=404)
        rated = _truthy(q.get("rated"))
        perfs = set(q["perfType"].split(",")) if q.get("perfType") else None
        ongoing = bool(_truthy(q.get("ongoing")))
        # With `rated` or `perfType` Lichess answers from its search index: the last move,
        # both bounds inclusive, in whole seconds, newest last move first, finished games
        # only (`noStart` and games that changed no rating included). Otherwise its game
        # database: the creation time in ms, `until` exclusive, newest first.
        index = rated is not None or perfs is not None
        field = "lastMoveAt" if index else "createdAt"

        def inside(g: dict[str, Any]) -> bool:
            if index:
                second = g[field] // 1000
                return (since is None or second >= since // 1000) and (
                    until is None or second <= until // 1000
                )
            return (since is None or g[field] >= since) and (until is None or g[field] < until)

        # A game ends after it starts: on the index, look a day further back for its start.
        listed = self._user_games(uid, None if since is None else since - index * 86_400_000)
        selected = []
        for g in sorted(listed, key=lambda g: (g[field], g["id"]), reverse=True):
            if (index or not ongoing) and g["status"] in _UNFINISHED:
                continue
            if not inside(g):
                continue
            if vs is not None and self._opponent(g, uid)["user"]["id"] != vs:
                continue
            if rated is not None and g["rated"] != rated:
                continue
            if perfs is not None and g["perf"] not in perfs:
                continue
            selected.append(g)
        if max_games is not None:
            selected = selected[:max_games]
        resp = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await resp.prepare(request)
        if not _truthy(q.get("clocks")):  # lila: the clock record only with `clocks=true`
            selected = [{k: v for k, v in g.items() if k != "clocks"} for g in selected]
        lines = [(json.dumps(g) + "\n").encode() for g in selected]
        if id(request) in self._truncating:
            # Half the games, then half a line, then the connection drops mid-stream.
            cut = lines[: len(lines) // 2]
            cut.append(lines[len(lines) // 2][:20] if lines else b'{"id": "')
            for line in cut:
                await resp.write(line)
            assert request.transport is not None
            request.transport.close()
            return resp
        for line in lines:
            await resp.write(line)
        await resp.write_eof()
        return resp

    async def _export_game(self, request: web.Request) -> web.StreamResponse:
        """``GET /game/export/{id}`` as JSON: any stored game, finished or not."""
        gid = request.match_info["id"]
        game = self._listed_game(gid)
        if game is not None:
            return web.json_response(game)
        return web.json_response({"error": "Not found"}, status=404)

    def app(self) -> web.Application:
        """The aiohttp application serving this fake."""
        app = web.Application(middlewares=[self._middleware])
        app.router.add_get("/api/user/{name}", self._get_user)
        app.router.add_get("/api/user/{name}/rating-history", self._rating_history)
        app.router.add_get("/api/games/user/{name}", self._export_games)
        app.router.add_post("/api/challenge/open", self._open_challenge)
        app.router.add_get("/game/export/{id}", self._export_game)
        app.router.add_post("/api/users", self._post_users)
        app.router.add_post("/api/token/test", self._token_test)
        app.add_routes(self.oauth_routes())
        app.add_routes(self.stream_routes())
        return app


@asynccontextmanager
async def fake_lichess(seed: int | None = None) -> AsyncIterator[FakeLichess]:
    """Start a :class:`FakeLichess` on 127.0.0.1 (free port); stop it on exit."""
    fake = FakeLichess(seed)
    runner = web.AppRunner(fake.app(), shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    fake.base_url = f"http://127.0.0.1:{port}"
    try:
        yield fake
    finally:
        fake.drop_streams()  # an open stream would hold the shutdown for its whole timeout
        await runner.cleanup()


__all__ = ["FakeLichess", "History", "fake_lichess", "ms"]
