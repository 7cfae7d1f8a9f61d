"""The real LichessClient (berserk over requests) against the fake server over HTTP."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest

from bot.lichess import (
    LichessClient,
    LichessError,
    LichessGame,
    LichessNotFound,
    LichessRateLimited,
    LichessUnavailable,
    LichessUser,
)
from bot.lichess.models import to_millis, to_utc
from tests.fakes.lichess import FakeLichess, fake_lichess, ms

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
PAUSE = 0.3


@asynccontextmanager
async def setup(**kwargs: Any) -> AsyncIterator[tuple[FakeLichess, LichessClient]]:
    async with fake_lichess() as fake:
        opts: dict[str, Any] = {"timeout": 2.0, "rate_limit_pause": PAUSE}
        opts.update(kwargs)
        client = LichessClient(base_url=fake.base_url, **opts)
        try:
            yield fake, client
        finally:
            await client.aclose()


# ---------------------------------------------------------------- users


async def test_get_user_normal() -> None:
    async with setup() as (fake, client):
        fake.add_user("Alice", created_at=T0, bio="I love antichess", location="Paris")
        fake.add_user("Bob", created_at=T0)
        fake.add_game(white="alice", black="bob", created_at=T0)
        user = await client.get_user("ALICE")
        assert user == LichessUser(
            id="alice",
            username="Alice",
            created_at=T0,
            disabled=False,
            tos_violation=False,
            is_bot=False,
            bio="I love antichess",
            location="Paris",
            antichess_games=1,
        )
        assert user.url == "https://lichess.org/@/Alice"
        assert user.created_at is not None and user.created_at.tzinfo is not None
        bob = await client.get_user("bob")
        assert bob.bio == "" and bob.location == ""
        assert fake.requests[0][:2] == ("GET", "/api/user/ALICE")


async def test_get_user_never_played_antichess() -> None:
    async with setup() as (fake, client):
        fake.add_user("Newbie", created_at=T0)
        assert (await client.get_user("newbie")).antichess_games is None


async def test_get_user_closed_bot_tos() -> None:
    async with setup() as (fake, client):
        fake.add_user("Gone", created_at=T0, closed=True)
        fake.add_user("Robo", created_at=T0, title="BOT")
        fake.add_user("Cheater", created_at=T0, tos_violation=True)
        gone = await client.get_user("gone")
        assert gone.disabled and gone.created_at is None and gone.username == "Gone"
        assert gone.antichess_games is None and gone.bio == ""
        robo = await client.get_user("robo")
        assert robo.is_bot and not robo.tos_violation
        cheater = await client.get_user("cheater")
        assert cheater.tos_violation and not cheater.is_bot and not cheater.disabled


async def test_get_user_unknown_and_invalid() -> None:
    async with setup() as (fake, client):
        with pytest.raises(LichessNotFound) as info:
            await client.get_user("nobody")
        assert info.value.status_code == 404
        with pytest.raises(LichessNotFound):
            await client.get_user("../api/users")
        assert fake.count("/api/users") == 0


async def test_get_users_chunks_of_300() -> None:
    async with setup() as (fake, client):
        names = [f"user{i}" for i in range(650)]
        for name in names[:5]:
            fake.add_user(name, created_at=T0)
        fake.add_user("Gone", created_at=T0, closed=True)
        users = await client.get_users([*names, "Gone"])
        assert sorted(u.id for u in users) == sorted([*names[:5], "gone"])
        assert fake.count("/api/users", "POST") == 3
        assert [len(b.split(",")) for b in fake.bodies] == [300, 300, 51]
        assert await client.get_users([]) == []
        assert fake.count("/api/users") == 3


# ---------------------------------------------------------------- games


def _games(fake: FakeLichess) -> None:
    for name in ("Alice", "Bob", "Carol"):
        fake.add_user(name, created_at=T0)
    fake.add_game(
        white="alice",
        black="bob",
        created_at=T0,
        id="g1",
        white_rating=1500,
        white_rating_diff=8,
        black_rating=1490,
        black_rating_diff=-8,
    )
    fake.add_game(
        white="carol",
        black="alice",
        created_at=T0 + timedelta(hours=1),
        id="g2",
        winner=None,
        status="draw",
    )
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


async def test_export_parses_games() -> None:
    async with setup() as (fake, client):
        _games(fake)
        games = await client.export_games("alice")
        assert [g.id for g in games] == ["g4", "g3", "g2", "g1"]
        g1 = games[-1]
        assert g1 == LichessGame(
            id="g1",
            rated=True,
            variant="antichess",
            perf="antichess",
            status="resign",
            created_at=T0,
            last_move_at=T0 + timedelta(minutes=5),
            white_id="alice",
            black_id="bob",
            white_rating=1500,
            black_rating=1490,
            white_rating_diff=8,
            black_rating_diff=-8,
            winner="white",
            clock_initial=120,
            clock_increment=5,
        )
        assert g1.url == "https://lichess.org/g1"
        assert g1.color_of("ALICE") == "white" and g1.color_of("Bob") == "black"
        assert g1.color_of("carol") is None
        assert g1.rating_after("alice") == 1508 and g1.rating_after("bob") == 1482
        assert g1.rating_after("carol") is None and g1.finished
        assert games[2].winner is None
        assert games[1].white_rating_diff is None and games[1].rating_after("alice") == 1500
        assert games[0].perf == "blitz" and games[0].variant == "standard"
        assert fake.requests[-1][2] == {"moves": "false"}


async def test_export_filters() -> None:
    async with setup() as (fake, client):
        _games(fake)

        async def ids(**kw: Any) -> list[str]:
            return [g.id for g in await client.export_games("alice", **kw)]

        one_hour = T0 + timedelta(hours=1)
        assert await ids(since=one_hour) == ["g4", "g3", "g2"]  # since inclusive
        assert await ids(until=one_hour) == ["g1"]  # until exclusive
        assert await ids(since=T0, until=T0 + timedelta(hours=2)) == ["g2", "g1"]
        assert fake.requests[-1][2]["since"] == str(ms(T0))
        assert fake.requests[-1][2]["until"] == str(ms(T0) + 2 * 3600 * 1000)
        assert await ids(vs="Bob") == ["g4", "g3", "g1"]
        assert await ids(rated=False) == ["g3"]
        assert fake.requests[-1][2]["rated"] == "false"
        assert await ids(rated=True, perf_type="antichess") == ["g2", "g1"]
        assert fake.requests[-1][2]["rated"] == "true"
        assert fake.requests[-1][2]["perfType"] == "antichess"
        assert await ids(perf_type="antichess", max_games=2) == ["g3", "g2"]
        assert fake.requests[-1][2]["max"] == "2"
        n = len(fake.requests)
        assert await ids(max_games=0) == []
        assert len(fake.requests) == n
        with pytest.raises(LichessNotFound):
            await client.export_games("nobody")


async def test_export_non_utc_datetimes() -> None:
    async with setup() as (fake, client):
        _games(fake)
        cet = T0.astimezone(timezone(timedelta(hours=1)))
        assert cet.hour == 13
        assert [g.id for g in await client.export_games("alice", until=cet)] == []
        assert fake.requests[-1][2]["until"] == str(ms(T0))


async def test_count_rated_games_with_limit() -> None:
    async with setup() as (fake, client):
        fake.add_user("Alice", created_at=T0)
        fake.add_user("Bob", created_at=T0)
        for i in range(7):
            fake.add_game(white="alice", black="bob", created_at=T0 + timedelta(days=i))
        fake.add_game(white="alice", black="bob", created_at=T0, rated=False)
        fake.add_game(white="alice", black="bob", created_at=T0, variant="atomic")
        cutoff = T0 + timedelta(days=5)
        assert (
            await client.count_rated_games("alice", perf_type="antichess", until=cutoff, limit=100)
            == 5
        )
        assert (
            await client.count_rated_games("alice", perf_type="antichess", until=cutoff, limit=3)
            == 3
        )
        q = fake.requests[-1][2]
        assert q == {
            "moves": "false",
            "until": str(ms(cutoff) - 1000),  # the last whole second before it, inclusive
            "rated": "true",
            "perfType": "antichess",
            "max": "3",
        }


async def test_rating_history_month_conversion() -> None:
    async with setup() as (fake, client):
        fake.add_user("Alice", created_at=T0)
        fake.add_user("Bob", created_at=T0)
        fake.add_game(
            white="alice",
            black="bob",
            created_at=datetime(2023, 12, 31, 20, tzinfo=UTC),
            white_rating=1500,
            white_rating_diff=12,
        )
        fake.add_game(
            white="alice",
            black="bob",
            created_at=datetime(2024, 1, 31, 9, tzinfo=UTC),
            white_rating=1512,
            white_rating_diff=-5,
        )
        fake.add_game(
            white="alice",
            black="bob",
            created_at=datetime(2024, 1, 31, 10, tzinfo=UTC),
            white_rating=1507,
            white_rating_diff=3,
        )
        history = await client.rating_history("alice")
        assert history == [(date(2023, 12, 31), 1512), (date(2024, 1, 31), 1510)]
        assert await client.rating_history("alice", "Blitz") == []
        assert await client.rating_history("alice", "antichess") == history
        with pytest.raises(LichessNotFound):
            await client.rating_history("nobody")


# ---------------------------------------------------------------- challenges


async def test_open_challenge_form_body() -> None:
    async with setup() as (fake, client):
        for name in ("Alice", "bob", "a", "b"):  # Lichess refuses unknown users
            fake.add_user(name, created_at=T0)
        challenge = await client.create_open_challenge(
            users=("Alice", "bob"),
            variant="antichess",
            clock_limit=180,
            clock_increment=2,
            name="ACWC R1",
        )
        assert challenge.id == fake.challenges[0]["id"]
        assert challenge.url == f"https://lichess.org/{challenge.id}"
        assert fake.challenges[0]["form"] == {
            "users": "Alice,bob",
            "variant": "antichess",
            "clock.limit": "180",
            "clock.increment": "2",
            "rated": "true",
            "name": "ACWC R1",
        }
        await client.create_open_challenge(
            users=("a", "b"), variant="antichess", clock_limit=60, clock_increment=0, rated=False
        )
        assert fake.challenges[1]["form"]["rated"] == "false"
        assert "name" not in fake.challenges[1]["form"]


# ---------------------------------------------------------------- failures


async def test_429_then_success_pauses() -> None:
    async with setup() as (fake, client):
        fake.add_user("Alice", created_at=T0)
        fake.fail_next("/api/user/", 429)
        user = await client.get_user("alice")
        assert user.id == "alice"
        assert fake.count("/api/user/") == 2
        gap = fake.request_times[1] - fake.request_times[0]
        assert gap >= PAUSE


async def test_pause_applies_to_other_calls() -> None:
    async with setup(max_retries_after_429=0) as (fake, client):
        fake.add_user("Alice", created_at=T0)
        fake.fail_next("/api/user/", 429)
        with pytest.raises(LichessRateLimited):
            await client.get_user("alice")
        await client.export_games("alice")  # must wait for the pause too
        assert fake.request_times[1] - fake.request_times[0] >= PAUSE


async def test_persistent_429_raises_rate_limited() -> None:
    async with setup(max_retries_after_429=2) as (fake, client):
        fake.add_user("Alice", created_at=T0)
        fake.fail_next("/api/games/", 429, times=10)
        with pytest.raises(LichessRateLimited) as info:
            await client.export_games("alice")
        assert info.value.status_code == 429
        assert fake.count("/api/games/") == 3
        times = fake.request_times
        assert times[1] - times[0] >= PAUSE and times[2] - times[1] >= PAUSE


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_5xx_is_unavailable(status: int) -> None:
    async with setup() as (fake, client):
        fake.add_user("Alice", created_at=T0)
        fake.fail_next("/api/", status)
        with pytest.raises(LichessUnavailable) as info:
            await client.get_user("alice")
        assert info.value.status_code == status
        assert fake.count("/api/") == 1  # no retry on 5xx
        assert (await client.get_user("alice")).id == "alice"


async def test_other_4xx_is_plain_lichess_error() -> None:
    async with setup() as (fake, client):
        fake.fail_next("/api/challenge", 400)
        with pytest.raises(LichessError) as info:
            await client.create_open_challenge(
                users=("a", "b"), variant="antichess", clock_limit=60, clock_increment=0
            )
        assert type(info.value) is LichessError and info.value.status_code == 400


async def test_server_down_is_unavailable() -> None:
    async with setup() as (fake, client):
        fake.add_user("Alice", created_at=T0)
        fake.set_down(True)
        with pytest.raises(LichessUnavailable):
            await client.get_user("alice")
        with pytest.raises(LichessUnavailable):
            await client.export_games("alice")


async def test_connection_refused_is_unavailable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = LichessClient(base_url=f"http://127.0.0.1:{port}", timeout=2.0)
    try:
        with pytest.raises(LichessUnavailable):
            await client.get_user("alice")
        with pytest.raises(LichessUnavailable):
            await client.export_games("alice")
    finally:
        await client.aclose()


async def test_slow_server_times_out() -> None:
    async with setup(timeout=0.3) as (fake, client):
        fake.add_user("Alice", created_at=T0)
        fake.set_delay(1.0)
        start = time.monotonic()
        with pytest.raises(LichessUnavailable):
            await client.get_user("alice")
        with pytest.raises(LichessUnavailable):
            await client.export_games("alice")
        assert time.monotonic() - start < 1.9
        fake.set_delay(0)
        assert (await client.get_user("alice")).id == "alice"


async def test_one_request_in_flight() -> None:
    async with setup() as (fake, client):
        fake.add_user("Alice", created_at=T0)
        fake.add_user("Bob", created_at=T0)
        fake.add_game(white="alice", black="bob", created_at=T0)
        fake.set_delay(0.05)
        results = await asyncio.gather(
            *(client.get_user("alice") for _ in range(4)),
            *(client.export_games("bob") for _ in range(3)),
            client.rating_history("alice"),
            client.get_users(["alice", "bob"]),
            client.create_open_challenge(
                users=("alice", "bob"), variant="antichess", clock_limit=60, clock_increment=1
            ),
        )
        assert len(results) == 10
        assert len(fake.requests) == 10
        assert fake.max_in_flight == 1


async def test_token_sent_but_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with setup(token="lip_secret123") as (fake, client):
        fake.add_token("lip_secret123", scopes=("challenge:write",))
        fake.add_user("Alice", created_at=T0)
        fake.fail_next("/api/user/", 429)
        await client.get_user("alice")
        assert "lip_secret123" not in repr(client)
        fake.fail_next("/api/user/", 500)
        with pytest.raises(LichessUnavailable) as info:
            await client.get_user("alice")
        assert "lip_secret123" not in str(info.value)
    assert "lip_secret123" not in caplog.text


# ---------------------------------------------------------------- models


def test_to_utc_accepts_ms_datetimes_and_strings() -> None:
    assert to_utc(ms(T0)) == T0
    assert to_utc(T0.replace(tzinfo=None)) == T0
    assert to_utc(T0.astimezone(timezone(timedelta(hours=-5)))) == T0
    assert to_utc("2024-03-01T12:00:00Z") == T0
    assert to_millis(T0) == ms(T0)


def test_models_accept_berserk_datetimes() -> None:
    user = LichessUser.from_api({"id": "x", "username": "X", "createdAt": T0})
    assert user.created_at == T0 and user.antichess_games is None
    game = LichessGame.from_api(
        {
            "id": "abc",
            "rated": True,
            "variant": "antichess",
            "perf": "antichess",
            "status": "started",
            "createdAt": T0.replace(tzinfo=None),
            "lastMoveAt": ms(T0),
            "players": {
                "white": {"aiLevel": 3},
                "black": {"user": {"name": "Bob", "id": "bob"}, "rating": 1500},
            },
        }
    )
    assert game.white_id is None and game.black_id == "bob" and not game.finished
    assert game.created_at == T0 and game.last_move_at == T0
    assert game.clock_initial is None and game.winner is None


class _ShortGuardClient(LichessClient):
    """Overall guard much shorter than the requests timeout, to exercise wait_for."""

    @property
    def _guard(self) -> float:
        return 0.2


async def test_overall_guard_and_abandoned_request_do_not_overlap() -> None:
    async with fake_lichess() as fake:
        fake.add_user("Alice", created_at=T0)
        client = _ShortGuardClient(base_url=fake.base_url, timeout=5.0, rate_limit_pause=PAUSE)
        try:
            fake.set_delay(0.6)
            start = time.monotonic()
            with pytest.raises(LichessUnavailable):
                await client.get_user("alice")
            assert time.monotonic() - start < 0.5
            fake.set_delay(0)
            # The abandoned request is still being served: the next call waits for it.
            assert (await client.get_user("alice")).id == "alice"
            assert fake.max_in_flight == 1
            assert fake.request_times[1] - fake.request_times[0] >= 0.5
        finally:
            await client.aclose()
