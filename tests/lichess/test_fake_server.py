"""The fake Lichess server itself, over raw HTTP (aiohttp client)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp

from tests.fakes.lichess import FakeLichess, fake_lichess, ms

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


@asynccontextmanager
async def started() -> AsyncIterator[tuple[FakeLichess, aiohttp.ClientSession]]:
    async with fake_lichess() as fake, aiohttp.ClientSession(fake.base_url) as http:
        yield fake, http


async def get_json(http: aiohttp.ClientSession, path: str, **params: Any) -> tuple[int, Any]:
    async with http.get(path, params=params) as resp:
        text = await resp.text()
        if resp.content_type == "application/x-ndjson":
            return resp.status, [json.loads(line) for line in text.splitlines() if line]
        return resp.status, json.loads(text) if text else None


async def test_listens_on_localhost_only() -> None:
    async with fake_lichess() as fake:
        assert fake.base_url.startswith("http://127.0.0.1:")


async def test_user_shapes() -> None:
    async with started() as (fake, http):
        fake.add_user("Alice", created_at=T0, bio="hi", location="Paris")
        fake.add_user("Closed1", created_at=T0, closed=True)
        fake.add_user("Robo", created_at=T0, title="BOT", tos_violation=True)
        fake.add_game(white="alice", black="robo", created_at=T0)
        fake.add_game(white="alice", black="robo", created_at=T0, rated=False)

        status, alice = await get_json(http, "/api/user/ALICE")
        assert status == 200
        assert alice["id"] == "alice" and alice["username"] == "Alice"
        assert alice["createdAt"] == ms(T0)
        assert alice["profile"] == {"bio": "hi", "location": "Paris"}
        assert alice["perfs"]["antichess"]["games"] == 1  # rated only
        assert "disabled" not in alice and "tosViolation" not in alice and "title" not in alice

        status, closed = await get_json(http, "/api/user/closed1")
        assert status == 200
        assert closed == {"id": "closed1", "username": "Closed1", "disabled": True}

        _, robo = await get_json(http, "/api/user/robo")
        assert robo["title"] == "BOT" and robo["tosViolation"] is True
        assert "profile" not in robo

        status, _ = await get_json(http, "/api/user/nobody")
        assert status == 404

        fake.set_profile("alice", bio="new bio")
        _, alice = await get_json(http, "/api/user/alice")
        assert alice["profile"]["bio"] == "new bio"


async def test_post_users() -> None:
    async with started() as (fake, http):
        fake.add_user("Alice", created_at=T0)
        fake.add_user("Bob", created_at=T0)
        async with http.post("/api/users", data="alice,BOB,ghost") as resp:
            users = await resp.json()
        assert sorted(u["id"] for u in users) == ["alice", "bob"]
        assert fake.bodies[-1] == "alice,BOB,ghost"


async def test_export_filters_and_order() -> None:
    async with started() as (fake, http):
        fake.add_user("Alice", created_at=T0)
        fake.add_user("Bob", created_at=T0)
        fake.add_user("Carol", created_at=T0)
        g1 = fake.add_game(white="alice", black="bob", created_at=T0, id="g1")
        fake.add_game(white="carol", black="alice", created_at=T0 + timedelta(hours=1), id="g2")
        fake.add_game(
            white="alice", black="bob", created_at=T0 + timedelta(hours=2), id="g3", rated=False
        )
        fake.add_game(
            white="alice",
            black="bob",
            created_at=T0 + timedelta(hours=3),
            id="g4",
            variant="standard",
            clock=(180, 0),
        )
        fake.add_game(
            white="alice",
            black="bob",
            created_at=T0 + timedelta(hours=4),
            id="g5",
            status="aborted",
            winner=None,
        )
        fake.add_game(
            white="alice",
            black="bob",
            created_at=T0 + timedelta(hours=5),
            id="g6",
            status="started",
            winner=None,
        )

        async def ids(**params: Any) -> list[str]:
            status, games = await get_json(http, "/api/games/user/alice", **params)
            assert status == 200
            return [g["id"] for g in games]

        assert await ids() == ["g4", "g3", "g2", "g1"]  # newest first, finished only
        assert await ids(ongoing="true") == ["g6", "g5", "g4", "g3", "g2", "g1"]
        assert await ids(since=ms(T0 + timedelta(hours=1))) == ["g4", "g3", "g2"]  # inclusive
        assert await ids(until=ms(T0 + timedelta(hours=1))) == ["g1"]  # exclusive
        assert await ids(vs="BOB") == ["g4", "g3", "g1"]
        assert await ids(rated="false") == ["g3"]
        assert await ids(rated="true", perfType="antichess") == ["g2", "g1"]
        assert await ids(perfType="blitz,bullet") == ["g4"]
        assert await ids(perfType="antichess", max=2) == ["g3", "g2"]
        status, _ = await get_json(http, "/api/games/user/nobody")
        assert status == 404

        _, games = await get_json(http, "/api/games/user/alice", until=ms(T0) + 1)
        assert games == [g1]
        assert g1["players"]["white"]["user"] == {"name": "Alice", "id": "alice"}
        assert g1["clock"] == {"initial": 120, "increment": 5, "totalTime": 320}
        assert g1["winner"] == "white" and g1["perf"] == "antichess"


async def test_rating_history_is_daily_and_zero_based() -> None:
    async with started() as (fake, http):
        fake.add_user("Alice", created_at=T0)
        fake.add_user("Bob", created_at=T0)
        jan31 = datetime(2024, 1, 31, 10, tzinfo=UTC)
        fake.add_game(
            white="alice", black="bob", created_at=jan31, white_rating=1500, white_rating_diff=10
        )
        fake.add_game(
            white="bob",
            black="alice",
            created_at=jan31 + timedelta(hours=1),
            black_rating=1510,
            black_rating_diff=-4,
        )
        fake.add_game(
            white="alice",
            black="bob",
            created_at=datetime(2024, 12, 1, tzinfo=UTC),
            white_rating=1506,
            white_rating_diff=7,
        )
        fake.add_game(
            white="alice",
            black="bob",
            created_at=datetime(2024, 12, 2, tzinfo=UTC),
            white_rating=1600,
            white_rating_diff=7,
            rated=False,
        )
        _, history = await get_json(http, "/api/user/alice/rating-history")
        anti = next(h for h in history if h["name"] == "Antichess")
        assert anti["points"] == [[2024, 0, 31, 1506], [2024, 11, 1, 1513]]
        assert next(h for h in history if h["name"] == "Blitz")["points"] == []


async def test_open_challenge_records_form() -> None:
    async with started() as (fake, http):
        fake.add_user("Alice", created_at=T0)
        fake.add_user("Bob", created_at=T0)
        form = {
            "users": "alice,bob",
            "variant": "antichess",
            "clock.limit": "180",
            "clock.increment": "2",
            "rated": "true",
        }
        async with http.post("/api/challenge/open", data=form) as resp:
            body = await resp.json()
        assert body["url"] == f"https://lichess.org/{body['id']}"
        assert fake.challenges[0]["form"] == form


async def test_controls_fail_down_delay_and_log() -> None:
    async with started() as (fake, http):
        fake.add_user("Alice", created_at=T0)
        fake.fail_next("/api/user/", 429, times=2)
        assert (await get_json(http, "/api/user/alice"))[0] == 429
        assert (await get_json(http, "/api/user/alice"))[0] == 429
        assert (await get_json(http, "/api/user/alice"))[0] == 200
        fake.set_down(True)
        assert (await get_json(http, "/api/user/alice"))[0] == 503
        fake.set_down(False)
        fake.set_delay(0.2)
        t = datetime.now(UTC)
        assert (await get_json(http, "/api/user/alice", x="1"))[0] == 200
        assert datetime.now(UTC) - t >= timedelta(seconds=0.2)
        assert fake.requests[-1] == ("GET", "/api/user/alice", {"x": "1"})
        assert fake.count("/api/user/") == 5
        assert len(fake.request_times) == 5


async def test_a_history_reads_like_the_same_games_stored_one_by_one() -> None:
    """`add_history` keeps a run of games as one rule; every endpoint answers as if each
    game were stored (the simulation's memory depends on it, its verification on this)."""
    before = T0 + timedelta(days=10)
    async with started() as (lazy, http_lazy), started() as (eager, http_eager):
        for fake in (lazy, eager):
            fake.add_user("Alice", created_at=T0)
            fake.add_game(
                white="bob",
                black="alice",
                created_at=before + timedelta(hours=5),
                id="bobgame1",
                rated=False,
            )
        lazy.add_history("Alice", games=30, rating=1800, before=before)
        stored = lazy._user_games("alice")
        history_games = [g for g in stored if g["players"]["black"]["user"]["id"] == "sparring"]
        assert len(history_games) == 30
        for game in history_games:  # the same games, ids included, stored one by one
            eager.add_game(
                white="Alice",
                black="sparring",
                created_at=datetime.fromtimestamp(game["createdAt"] / 1000, tz=UTC),
                last_move_at=datetime.fromtimestamp(game["lastMoveAt"] / 1000, tz=UTC),
                white_rating=1800,
                id=game["id"],
            )
        newest = max(g["createdAt"] for g in history_games)
        assert newest == ms(before - timedelta(hours=2))
        assert min(g["createdAt"] for g in history_games) == ms(before - timedelta(hours=60))
        queries: list[tuple[str, dict[str, Any]]] = [
            ("/api/user/alice", {}),
            ("/api/user/alice/rating-history", {}),
            ("/api/games/user/alice", {}),
            ("/api/games/user/alice", {"since": str(newest - 3 * 3600_000)}),
            ("/api/games/user/alice", {"until": str(newest), "max": "5"}),
            ("/api/games/user/alice", {"vs": "sparring", "perfType": "antichess"}),
            (f"/game/export/{history_games[3]['id']}", {}),
        ]
        for path, params in queries:
            assert await get_json(http_lazy, path, **params) == await get_json(
                http_eager, path, **params
            ), path
        status, user = await get_json(http_lazy, "/api/user/alice")
        assert status == 200 and user["perfs"]["antichess"]["games"] == 30
        assert user["perfs"]["antichess"]["rating"] == 1800
        _, recent = await get_json(
            http_lazy, "/api/games/user/alice", since=str(newest - 3 * 3600_000)
        )
        assert len(recent) == 3  # the two newest history games and Bob's game
        assert await get_json(http_lazy, "/game/export/nosuchid") == (404, {"error": "Not found"})


async def test_a_fake_that_keeps_no_requests_still_counts_them_and_answers_alike() -> None:
    async with started() as (fake, http):
        fake.add_user("Alice", created_at=T0)
        fake.keep_requests = False
        status, alice = await get_json(http, "/api/user/alice")
        await get_json(http, "/api/user/nobody")
        assert status == 200 and alice["username"] == "Alice"
        assert fake.request_count == 2
        assert fake.requests == [] and fake.statuses == [] and fake.request_times == []
        fake.keep_requests = True
        await get_json(http, "/api/user/alice")
        assert fake.request_count == 3 and fake.statuses == [200]


async def test_a_game_in_progress_can_end() -> None:
    async with started() as (fake, http):
        fake.add_user("Alice", created_at=T0)
        fake.add_user("Bob", created_at=T0)
        game = fake.add_game(
            white="alice", black="bob", created_at=T0, status="started", winner=None
        )
        _, listed = await get_json(http, "/api/games/user/alice")
        assert listed == []  # only finished games without ongoing=true
        ended = fake.update_game(game["id"], status="mate", winner="black")
        assert ended["status"] == "mate" and ended["winner"] == "black"
        _, listed = await get_json(http, "/api/games/user/bob")
        assert [(g["id"], g["winner"]) for g in listed] == [(game["id"], "black")]
