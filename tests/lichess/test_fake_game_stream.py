"""The fake Lichess streams the games between listed users as lila does
(`POST /api/stream/games-by-users`: `GamesByUsersStream`, `GameStream.toJson`, the API
controller's id limits and `GlobalConcurrencyLimitPerIP.events`), read with a plain client."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import aiohttp
import pytest

from tests.fakes.lichess import FakeLichess, fake_lichess, ms
from tests.lichess.test_fake_server import T0, started

STREAM = "/api/stream/games-by-users"
PLAYERS = ("Alice", "Bob", "Carol")


class Stream:
    """One open stream as a client reads it: a line at a time, with a deadline."""

    def __init__(self, resp: aiohttp.ClientResponse) -> None:
        self.resp = resp

    async def line(self, seconds: float = 2.0) -> bytes:
        return await asyncio.wait_for(self.resp.content.readline(), seconds)

    async def event(self, seconds: float = 2.0) -> dict[str, Any]:
        raw = await self.line(seconds)
        assert raw.endswith(b"\n") and raw.strip(), raw
        event: dict[str, Any] = json.loads(raw)
        return event

    async def nothing_for(self, seconds: float) -> None:
        try:
            raw = await self.line(seconds)
        except TimeoutError:
            return
        raise AssertionError(f"unexpected line {raw!r}")


@asynccontextmanager
async def stream(
    http: aiohttp.ClientSession, ids: str, token: str | None = None, **query: str
) -> AsyncIterator[Stream]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with http.post(STREAM, data=ids, params=query, headers=headers) as resp:
        assert resp.status == 200, await resp.text()
        assert resp.content_type == "application/x-ndjson"
        yield Stream(resp)


async def until_open(fake: FakeLichess, count: int) -> None:
    """Wait until the server holds `count` streams (the request reaches it a little later)."""
    for _ in range(200):
        if len(fake.open_streams) == count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"open streams: {fake.open_streams}")


def players(fake: FakeLichess) -> None:
    for name in PLAYERS:
        fake.add_user(name, created_at=T0)


def game(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"white": "Alice", "black": "Bob", "created_at": T0}
    return base | fields


async def test_a_game_between_listed_users_streams_its_start_and_its_end_only() -> None:
    async with started() as (fake, http), stream(http, "alice,bob") as games:
        players(fake)
        await until_open(fake, 1)
        fake.add_game(**game(id="g1", status="started", winner=None, white_rating=1620))
        start = await games.event()
        assert start == {
            "id": "g1",
            "rated": True,
            "variant": "antichess",
            "speed": "blitz",
            "perf": "antichess",
            "createdAt": ms(T0),
            "status": 20,
            "statusName": "started",
            "players": {
                "white": {"userId": "alice", "rating": 1620},
                "black": {"userId": "bob", "rating": 1500},
            },
            "clock": {"initial": 120, "increment": 5},
        }
        fake.update_game("g1", status="resign", winner="black")  # the game ends
        end = await games.event()
        assert (end["id"], end["status"], end["statusName"], end["winner"]) == (
            "g1",
            31,
            "resign",
            "black",
        )
        assert "lastMoveAt" not in end and "ratingDiff" not in end["players"]["white"]
        assert "user" not in end["players"]["black"]
        fake.update_game("g1", winner="white")  # no longer a change of state: nothing
        await games.nothing_for(0.2)


async def test_only_games_whose_both_players_are_listed() -> None:
    async with started() as (fake, http), stream(http, "alice,bob") as games:
        players(fake)
        await until_open(fake, 1)
        fake.add_game(**game(id="carol", black="Carol", status="started", winner=None))
        fake.add_game(**game(id="wanted", status="started", winner=None))
        assert (await games.event())["id"] == "wanted"


async def test_a_game_stored_finished_streams_a_start_then_its_end() -> None:
    async with started() as (fake, http), stream(http, "alice,bob") as games:
        players(fake)
        await until_open(fake, 1)
        fake.add_game(**game(id="g1", status="mate", winner="white"))
        start, end = await games.event(), await games.event()
        assert (start["id"], start["statusName"], "winner" in start) == ("g1", "started", False)
        assert (end["id"], end["status"], end["winner"]) == ("g1", 30, "white")


async def test_an_aborted_game_and_a_game_without_clock() -> None:
    async with started() as (fake, http), stream(http, "alice,bob") as games:
        players(fake)
        await until_open(fake, 1)
        fake.add_game(**game(id="g1", status="started", winner=None, clock=None, rated=False))
        start = await games.event()
        assert "clock" not in start and start["speed"] == "correspondence"
        fake.update_game("g1", status="aborted")
        end = await games.event()
        assert (end["status"], end["statusName"], end["rated"]) == (25, "aborted", False)


async def test_with_current_games_sends_the_games_in_progress_first() -> None:
    async with started() as (fake, http):
        players(fake)
        fake.add_game(**game(id="on", status="started", winner=None))
        fake.add_game(**game(id="over", status="resign"))
        fake.add_game(**game(id="other", black="Carol", status="started", winner=None))
        async with stream(http, "alice,bob", withCurrentGames="true") as games:
            assert (await games.event())["id"] == "on"
            await until_open(fake, 1)
            fake.add_game(**game(id="new", status="started", winner=None))
            assert (await games.event())["id"] == "new"
        async with stream(http, "alice,bob") as games:  # without the flag: only what happens
            await games.nothing_for(0.2)


async def test_too_many_ids() -> None:
    async with started() as (fake, http):
        fake.add_token("tok")
        many = ",".join(f"user{i}" for i in range(301))
        async with http.post(STREAM, data=many) as resp:
            assert resp.status == 400
            assert await resp.json() == {"error": "Too many ids: 301, expected up to 300"}
        async with stream(http, many, token="tok"):
            await until_open(fake, 1)
        more = ",".join(f"user{i}" for i in range(501))
        headers = {"Authorization": "Bearer tok"}
        async with http.post(STREAM, data=more, headers=headers) as resp:
            assert resp.status == 400
            assert await resp.json() == {"error": "Too many ids: 501, expected up to 500"}
        # The same id twice, in any case, counts once (lila makes a set).
        async with stream(http, ",".join(["Alice", "alice"] * 200)) as games:
            assert await games.line() == b""  # one id: an empty stream


async def test_fewer_than_two_ids_is_an_empty_stream() -> None:
    async with started() as (fake, http):
        for body in ("", "alice", " , alice,,"):
            async with stream(http, body) as games:
                assert await games.line() == b""
        assert fake.stream_opens == 3 and fake.open_streams == []


async def test_a_fifth_stream_at_once_is_refused_with_429() -> None:
    async with started() as (fake, http):
        async with (
            stream(http, "alice,bob"),
            stream(http, "alice,bob"),
            stream(http, "alice,carol"),
            stream(http, "bob,carol"),
        ):
            await until_open(fake, 4)
            async with http.post(STREAM, data="alice,bob") as resp:
                assert resp.status == 429
                assert "error" in await resp.json()
            assert fake.max_in_flight == 0  # open streams are not requests in flight
        await until_open(fake, 0)
        async with stream(http, "alice,bob"):
            await until_open(fake, 1)
        assert fake.stream_opens == 5
        assert fake.count(STREAM, "POST") == 6


async def test_refused_streams() -> None:
    async with started() as (fake, http):
        fake.refuse_streams(503, times=2)
        for _ in range(2):
            async with http.post(STREAM, data="alice,bob") as resp:
                assert resp.status == 503 and "error" in await resp.json()
        async with stream(http, "alice,bob"):
            await until_open(fake, 1)
        assert fake.statuses[:2] == [503, 503]


async def test_drop_streams_cuts_and_what_happens_meanwhile_is_lost() -> None:
    async with started() as (fake, http):
        players(fake)
        fake.add_game(**game(id="g1", status="started", winner=None))
        async with stream(http, "alice,bob") as games:
            await until_open(fake, 1)
            assert fake.drop_streams() == 1
            with pytest.raises(aiohttp.ClientPayloadError):  # the body never ends properly
                await games.line()
        assert fake.open_streams == [] and fake.drop_streams() == 0
        fake.update_game("g1", status="outoftime", winner="white")  # nobody listening
        async with stream(http, "alice,bob") as games:
            await until_open(fake, 1)
            await games.nothing_for(0.3)
        assert fake.stream_opens == 2


async def test_a_blank_line_keeps_a_quiet_stream_alive() -> None:
    async with started() as (fake, http), stream(http, "alice,bob") as games:
        fake.stream_keepalive_seconds = 0.2
        players(fake)
        await until_open(fake, 1)
        assert await games.line(seconds=1.0) == b"\n"
        fake.add_game(**game(id="g1", status="started", winner=None))
        assert (await games.event())["id"] == "g1"


async def test_ids_are_trimmed_and_case_insensitive() -> None:
    async with started() as (fake, http), stream(http, " ALICE , ,Bob\n") as games:
        players(fake)
        await until_open(fake, 1)
        assert fake.open_streams == [frozenset({"alice", "bob"})]
        fake.add_game(**game(id="g1", white="alice", black="BOB", status="started", winner=None))
        assert (await games.event())["players"]["black"]["userId"] == "bob"


async def test_a_game_listed_later_streams_when_released() -> None:
    async with started() as (fake, http), stream(http, "alice,bob") as games:
        now = [0.0]
        fake.time_source = lambda: now[0]
        players(fake)
        await until_open(fake, 1)
        later = T0 + timedelta(hours=1)
        fake.add_game(**game(id="g1", status="draw", winner=None), listed_at=later)
        assert fake.release_listed() == 0  # not yet
        await games.nothing_for(0.2)
        now[0] = ms(later) / 1000
        assert fake.release_listed() == 1
        start, end = await games.event(), await games.event()
        assert (start["status"], end["status"], "winner" in end) == (20, 34, False)


async def test_an_open_stream_is_recorded_but_not_counted_in_flight() -> None:
    async with started() as (fake, http), stream(http, "alice,bob"):
        players(fake)
        await until_open(fake, 1)
        async with http.get("/api/user/alice") as resp:
            assert resp.status == 200
        assert fake.max_in_flight == 1 and fake.in_flight == 0
        assert [(m, p) for m, p, _q in fake.requests] == [
            ("POST", STREAM),
            ("GET", "/api/user/alice"),
        ]


async def test_a_stream_keeps_the_newest_150_events_waiting() -> None:
    async with started() as (fake, http), stream(http, "alice,bob") as games:
        players(fake)
        await until_open(fake, 1)
        for number in range(200):  # all at once: the server writes none in between
            fake.add_game(**game(id=f"g{number}", status="started", winner=None))
        assert (await games.event())["id"] == "g50"  # lila's queue drops the oldest


async def test_a_stream_the_client_leaves_is_no_longer_open() -> None:
    async with started() as (fake, http):
        async with stream(http, "alice,bob"):
            await until_open(fake, 1)
        await until_open(fake, 0)
        assert fake.statuses == [200]


async def test_stopping_the_fake_cuts_its_open_streams_at_once() -> None:
    async with aiohttp.ClientSession() as http:
        async with fake_lichess() as fake:
            resp = await http.post(f"{fake.base_url}{STREAM}", data="alice,bob")
            await until_open(fake, 1)
            stopping = asyncio.get_running_loop().time()
        assert asyncio.get_running_loop().time() - stopping < 0.4
        with pytest.raises(aiohttp.ClientPayloadError):
            await resp.content.readline()
        resp.release()
