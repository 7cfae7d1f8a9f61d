"""The fake Lichess's OAuth endpoints against what Lichess documents (`lichess-org/api`,
`doc/specs/tags/oauth/`) and lila does (`AuthorizationApi`: the 120-second code, consumed
once, the exact `redirect_uri`; `Protocol`: S256 only and the error names)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

import aiohttp
import pytest

from acwc_sim.oauth import s256
from bot.features.registration.login_oauth import new_secret
from tests.fakes.lichess import FakeLichess

REDIRECT = "http://acwc.test/login/callback"


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def ask(verifier: str, **changes: str) -> dict[str, str]:
    query = {
        "response_type": "code",
        "client_id": "acwc.test",
        "redirect_uri": REDIRECT,
        "code_challenge_method": "S256",
        "code_challenge": s256(verifier),
        "state": "st4te",
    }
    query.update(changes)
    return {k: v for k, v in query.items() if v != "-"}


async def authorize(
    http: aiohttp.ClientSession, fake: FakeLichess, query: dict[str, str]
) -> aiohttp.ClientResponse:
    async with http.get(f"{fake.base_url}/oauth", params=query, allow_redirects=False) as answer:
        await answer.read()
        return answer


def back(answer: aiohttp.ClientResponse) -> dict[str, str]:
    location = answer.headers["Location"]
    assert location.startswith(REDIRECT + "?"), location
    return dict(parse_qsl(location.split("?", 1)[1]))


async def exchange(
    http: aiohttp.ClientSession, fake: FakeLichess, code: str, verifier: str, **changes: str
) -> tuple[int, dict[str, Any]]:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": REDIRECT,
        "client_id": "acwc.test",
    }
    form.update(changes)
    form = {k: v for k, v in form.items() if v != "-"}
    async with http.post(f"{fake.base_url}/api/token", data=form) as answer:
        return answer.status, await answer.json()


async def a_code(http: aiohttp.ClientSession, fake: FakeLichess, verifier: str) -> str:
    answer = await authorize(http, fake, ask(verifier))
    assert answer.status == 303
    fields = back(answer)
    assert fields["state"] == "st4te"
    return fields["code"]


@pytest.fixture
def alice(fake: FakeLichess) -> FakeLichess:
    fake.add_user("Alice", created_at=datetime(2018, 1, 1, tzinfo=UTC))
    fake.oauth_login("Alice")
    return fake


async def test_approved_code_gives_a_token_that_reads_the_account_until_revoked(
    http: aiohttp.ClientSession, alice: FakeLichess
) -> None:
    verifier = new_secret()
    code = await a_code(http, alice, verifier)
    assert code.startswith("liu_")
    status, body = await exchange(http, alice, code, verifier)
    assert status == 200 and body["token_type"] == "Bearer" and body["expires_in"] > 0
    token = body["access_token"]
    bearer = {"Authorization": f"Bearer {token}"}
    async with http.get(f"{alice.base_url}/api/account", headers=bearer) as account:
        assert account.status == 200
        assert (await account.json())["username"] == "Alice"
    async with http.delete(f"{alice.base_url}/api/token", headers=bearer) as revoked:
        assert revoked.status == 204
    async with http.get(f"{alice.base_url}/api/account", headers=bearer) as after:
        assert after.status == 401
    async with http.get(f"{alice.base_url}/api/account") as anonymous:
        assert anonymous.status == 401


async def test_denied_consent_goes_back_with_access_denied(
    http: aiohttp.ClientSession, alice: FakeLichess
) -> None:
    alice.oauth_consent = "deny"
    fields = back(await authorize(http, alice, ask(new_secret())))
    assert fields == {
        "error": "access_denied",
        "error_description": "user cancelled authorization",
        "state": "st4te",
    }


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"client_id": "-"}, "invalid_request"),
        ({"scope": "no:such"}, "invalid_scope"),
        ({"code_challenge": "-"}, "invalid_request"),
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"code_challenge_method": "plain"}, "unauthorized_client"),
        ({"code_challenge_method": "-"}, "invalid_request"),
    ],
)
async def test_a_bad_authorization_request_goes_back_with_lilas_error(
    http: aiohttp.ClientSession, alice: FakeLichess, changes: dict[str, str], error: str
) -> None:
    fields = back(await authorize(http, alice, ask(new_secret(), **changes)))
    assert fields["error"] == error and fields["state"] == "st4te" and "code" not in fields


async def test_without_a_redirect_uri_nothing_can_go_back(
    http: aiohttp.ClientSession, alice: FakeLichess
) -> None:
    answer = await authorize(http, alice, ask(new_secret(), redirect_uri="-"))
    assert answer.status == 400 and "Location" not in answer.headers


async def test_a_wrong_verifier_is_invalid_grant_and_spends_the_code(
    http: aiohttp.ClientSession, alice: FakeLichess
) -> None:
    verifier = new_secret()
    code = await a_code(http, alice, verifier)
    status, body = await exchange(http, alice, code, new_secret())
    assert (status, body["error"]) == (400, "invalid_grant")
    assert body["error_description"] == "hash of code_verifier does not match code_challenge"
    status, body = await exchange(http, alice, code, verifier)  # lila removed it already
    assert (status, body["error"]) == (400, "invalid_grant")
    assert "consumed" in body["error_description"]
    assert alice.oauth_tokens_issued == []


async def test_a_code_is_good_for_120_seconds(
    http: aiohttp.ClientSession, alice: FakeLichess
) -> None:
    clock = Clock()
    alice.time_source = clock
    verifier = new_secret()
    late = await a_code(http, alice, verifier)
    in_time = await a_code(http, alice, verifier)
    clock.now += 119
    status, _body = await exchange(http, alice, in_time, verifier)
    assert status == 200
    clock.now += 1
    status, body = await exchange(http, alice, late, verifier)
    assert (status, body) == (
        400,
        {"error": "invalid_grant", "error_description": "authorization code expired"},
    )


async def test_a_code_is_used_once(http: aiohttp.ClientSession, alice: FakeLichess) -> None:
    verifier = new_secret()
    code = await a_code(http, alice, verifier)
    assert (await exchange(http, alice, code, verifier))[0] == 200
    status, body = await exchange(http, alice, code, verifier)
    assert (status, body["error"]) == (400, "invalid_grant")
    assert len(alice.oauth_tokens_issued) == 1


@pytest.mark.parametrize(
    ("changes", "error", "description"),
    [
        ({"redirect_uri": REDIRECT + "/"}, "invalid_grant", "different redirect_uri"),
        ({"client_id": "other.example"}, "invalid_grant", "different client_Id"),
        ({"grant_type": "refresh_token"}, "unsupported_grant_type", "authorization_code"),
        ({"grant_type": "-"}, "invalid_request", "grant_type required"),
        ({"code_verifier": "short"}, "invalid_request", "code_verifier too short"),
        ({"client_id": "-"}, "invalid_request", "client_id required"),
        ({"redirect_uri": "-"}, "invalid_request", "redirect_uri required"),
    ],
)
async def test_the_exchange_checks_what_lila_checks(
    http: aiohttp.ClientSession,
    alice: FakeLichess,
    changes: dict[str, str],
    error: str,
    description: str,
) -> None:
    verifier = new_secret()
    code = await a_code(http, alice, verifier)
    status, body = await exchange(http, alice, code, verifier, **changes)
    assert status == 400 and body["error"] == error and description in body["error_description"]
    assert alice.oauth_tokens_issued == []
