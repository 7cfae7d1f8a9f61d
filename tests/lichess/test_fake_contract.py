"""The fake Lichess behaves like Lichess where the bot's correctness depends on it (the API
reference `lichess-org/api` and lila): colours from `users`, tokens and scopes, the export's
two kinds of time window, `ongoing`, closed accounts, and what an open challenge may be."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import pytest

from tests.fakes.lichess import ms
from tests.lichess.test_fake_server import T0, get_json, started

SECOND = timedelta(seconds=1)
FORM = {
    "users": "Bob,alice",
    "variant": "antichess",
    "clock.limit": "120",
    "clock.increment": "5",
    "rated": "true",
}


async def post(
    http: aiohttp.ClientSession, path: str, data: Any, token: str | None = None
) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with http.post(path, data=data, headers=headers) as resp:
        return resp.status, await resp.json()


async def test_the_first_user_gets_white_and_the_answer_has_the_required_fields() -> None:
    async with started() as (fake, http):
        fake.add_user("Alice", created_at=T0)
        fake.add_user("Bob", created_at=T0)
        status, body = await post(http, "/api/challenge/open", FORM)
        assert status == 200
        assert body["open"] == {"userIds": ["bob", "alice"]}
        assert fake.challenge_colours(body["url"]) == ("Bob", "alice")
        required = "id url status challenger destUser variant rated speed timeControl color perf"
        for field in [*required.split(), "urlWhite", "urlBlack", "open"]:
            assert field in body, field
        control = {"type": "clock", "limit": 120, "increment": 5, "show": "2+5"}
        assert body["timeControl"] == control
        assert body["variant"]["key"] == "antichess" and body["rated"] is True


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"users": "alice"}, "two different usernames"),
        ({"users": "alice,alice"}, "two different usernames"),
        ({"users": "alice,nobody"}, "no such user"),
        ({"clock.limit": "100"}, "not an allowed clock"),
        ({"clock.increment": "61"}, "at most 60"),
        ({"clock.limit": None, "clock.increment": None}, "needs a clock"),
        ({"clock.increment": None}, "together"),
        ({"variant": "chess"}, "unknown variant"),
    ],
)
async def test_lichess_refuses_a_challenge_it_cannot_make(
    change: dict[str, str | None], why: str
) -> None:
    async with started() as (fake, http):
        fake.add_user("Alice", created_at=T0)
        fake.add_user("Bob", created_at=T0)
        form = {k: v for k, v in {**FORM, **change}.items() if v is not None}
        status, body = await post(http, "/api/challenge/open", form)
        assert status == 400 and why in body["error"], body
        assert fake.challenges == []


async def test_tokens_and_scopes() -> None:
    async with started() as (fake, http):
        fake.add_user("Alice", created_at=T0)
        fake.add_user("Bob", created_at=T0)
        fake.add_token("lip_read", scopes=("preference:read",))
        fake.add_token("lip_write", user="TDbot", scopes=("challenge:write", "email:read"))
        assert (await post(http, "/api/challenge/open", FORM, "lip_read"))[0] == 403
        assert (await post(http, "/api/challenge/open", FORM, "lip_write"))[0] == 200
        assert (await post(http, "/api/challenge/open", FORM))[0] == 200  # anonymous is fine
        async with http.get("/api/user/alice", headers={"Authorization": "Bearer x"}) as resp:
            assert resp.status == 401  # an unknown token fails every call
        status, tested = await post(http, "/api/token/test", "lip_write,lip_gone")
        assert status == 200
        assert tested == {
            "lip_write": {"userId": "tdbot", "scopes": "challenge:write,email:read",
                          "expires": None},
            "lip_gone": None,
        }  # fmt: skip


async def test_the_search_index_filters_the_last_move_inclusively_in_whole_seconds() -> None:
    cut = datetime(2019, 9, 1, tzinfo=UTC)
    async with started() as (fake, http):
        fake.add_user("Alice", created_at=T0)
        fake.add_game(id="before01", white="alice", black="x", created_at=cut - 600 * SECOND,
                      last_move_at=cut - SECOND / 2)  # fmt: skip
        fake.add_game(id="across01", white="alice", black="x", created_at=cut - 300 * SECOND,
                      last_move_at=cut + 300 * SECOND)  # fmt: skip
        fake.add_game(id="never001", white="alice", black="x", created_at=cut - 900 * SECOND,
                      last_move_at=cut - 800 * SECOND, status="noStart", winner=None)  # fmt: skip
        fake.add_game(id="playing1", white="alice", black="x", created_at=cut - 60 * SECOND,
                      status="started", winner=None)  # fmt: skip
        path = "/api/games/user/alice"
        # the index: last move, `until` inclusive at the second (so 23:59:59.5 is in)
        _, games = await get_json(http, path, until=ms(cut - SECOND), perfType="antichess")
        assert [g["id"] for g in games] == ["before01", "never001"]
        _, games = await get_json(http, path, since=ms(cut), rated="true")
        assert [g["id"] for g in games] == ["across01"]
        # the database: creation time, `until` exclusive, unfinished only with `ongoing`
        _, games = await get_json(http, path, until=ms(cut))
        assert [g["id"] for g in games] == ["across01", "before01", "never001"]
        _, games = await get_json(http, path, since=ms(cut - 60 * SECOND), ongoing="true")
        assert [g["id"] for g in games] == ["playing1"]


async def test_a_closed_accounts_games_are_refused() -> None:
    async with started() as (fake, http):
        fake.add_user("Gone", created_at=T0, closed=True)
        fake.add_user("Alice", created_at=T0)
        fake.add_game(white="gone", black="alice", created_at=T0)
        assert (await get_json(http, "/api/games/user/gone"))[0] == 404
        status, games = await get_json(http, "/api/games/user/alice", vs="gone")
        assert status == 200 and len(games) == 1
