"""The login's guards: the rate limit per client address, no redirect anywhere but Lichess,
no login on the read-only site, the browser cookie's flags; and /register's button."""

from __future__ import annotations

from unittest import mock

import pytest
from aiohttp.test_utils import make_mocked_request
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.features.registration.login import COOKIE
from bot.features.registration.login_limit import RateLimit, client_address
from bot.lichess.client import LichessClient
from bot.wiring import build_registration
from tests.conftest import add_player
from tests.fakes.lichess import FakeLichess
from tests.features.registration.login_helpers import (
    ALICE,
    SITE,
    link_for,
    nothing_registered,
    path_of,
    query_of,
    site,
    walk,
    web_config,
)
from tests.running import RunningBot


class Ticks:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_each_address_has_its_own_bucket(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    ticks = Ticks()
    limit = RateLimit(burst=3, per_minute=6, now=ticks)
    async with site(sessions, web_config(config), clock, None, limit=limit) as client:
        answers = [(await client.get("/login/start?t=x")).status for _ in range(4)]
        assert answers == [404, 404, 404, 429]
        throttled = await client.get("/login/callback?state=x")
        assert throttled.status == 429 and throttled.headers["Retry-After"] == "10"
        assert "Too many tries" in await throttled.text()
        # Behind the proxy on the loopback: the address the proxy wrote is the client.
        other = await client.get("/login/start?t=x", headers={"X-Forwarded-For": "203.0.113.9"})
        assert other.status == 404
        ticks.now += 10  # one token back
        assert (await client.get("/login/start?t=x")).status == 404
        assert (await client.get("/login/start?t=x")).status == 429


def test_a_forwarded_address_is_believed_only_from_the_proxy() -> None:
    def request(peer: str, forwarded: str) -> str:
        transport = mock.Mock()
        transport.get_extra_info.return_value = (peer, 4000)
        made = make_mocked_request(
            "GET", "/login/start", headers={"X-Forwarded-For": forwarded}, transport=transport
        )
        return client_address(made)

    assert request("127.0.0.1", "198.51.100.1, 203.0.113.9") == "203.0.113.9"
    assert request("::1", "203.0.113.9") == "203.0.113.9"
    assert request("203.0.113.50", "198.51.100.1") == "203.0.113.50"  # not our proxy


def test_the_bucket_forgets_the_least_recent_addresses() -> None:
    limit = RateLimit(burst=1, per_minute=1, now=Ticks())
    with mock.patch("bot.features.registration.login_limit.MAX_ADDRESSES", 2):
        assert limit.allow("a") and limit.allow("b") and limit.allow("c")
        assert limit.allow("a")  # forgotten, so a fresh bucket
        assert not limit.allow("c")


async def test_no_redirect_goes_anywhere_but_lichess(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    fake: FakeLichess,
    lichess: LichessClient,
) -> None:
    """Whatever the request carries, the start page sends the browser to the configured
    Lichess's /oauth with the configured callback, and the callback redirects nowhere."""
    web = web_config(config)
    service = build_registration(sessions, web, clock, lichess)
    add_player(fake, "Alice")
    fake.oauth_login("Alice")
    link = await link_for(service, ALICE, "Alice")
    evil = "https://evil.example/steal"
    async with site(sessions, web, clock, service) as client:
        start = await client.get(
            path_of(link) + f"&next={evil}&redirect_uri={evil}",
            headers={"Host": "evil.example", "X-Forwarded-Host": "evil.example"},
            allow_redirects=False,
        )
        assert start.status == 303
        location = start.headers["Location"]
        assert location.startswith(f"{fake.base_url}/oauth?")
        assert query_of(location)["redirect_uri"] == f"{SITE}/login/callback"
        for path in (f"/login/callback?next={evil}", f"/login/callback?state=x&next={evil}"):
            answer = await client.get(path, allow_redirects=False)
            assert answer.status == 400 and "Location" not in answer.headers


async def test_the_read_only_site_has_no_login(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    fake: FakeLichess,
    lichess: LichessClient,
) -> None:
    web = web_config(config)
    service = build_registration(sessions, web, clock, lichess)
    add_player(fake, "Alice")
    fake.oauth_login("Alice")
    link = await link_for(service, ALICE, "Alice")
    async with site(sessions, web, clock, service, read_only=True) as client:
        done = await walk(client, link)
    assert done.start.status == 404 and "read-only" in done.start_text
    assert await nothing_registered(sessions)
    async with site(sessions, web, clock, service) as client:  # the link was not spent
        assert (await walk(client, link, to_callback=False)).start.status == 303


@pytest.mark.parametrize(("base", "secure"), [("https://acwc.example.org", True), (SITE, False)])
async def test_the_browser_cookie_is_secure_behind_https(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    fake: FakeLichess,
    lichess: LichessClient,
    base: str,
    secure: bool,
) -> None:
    web = web_config(config, base)
    service = build_registration(sessions, web, clock, lichess)
    add_player(fake, "Alice")
    link = await link_for(service, ALICE, "Alice")
    async with site(sessions, web, clock, service) as client:
        start = await client.get(path_of(link), allow_redirects=False)
    cookie = start.cookies[COOKIE]
    assert bool(cookie["secure"]) is secure and cookie["samesite"] == "Lax"
    assert query_of(start.headers["Location"])["client_id"] == base.split("//")[1]


async def test_register_offers_the_login_button_when_the_web_runs(
    running_bot: RunningBot, config: Config, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    async with running_bot(web_config(config)) as (_bot, h):
        record = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        buttons = {b["label"]: b for b in h.buttons(record.last)}
        assert set(buttons) == {"Log in with Lichess", "Verify"}
        assert buttons["Log in with Lichess"]["url"].startswith(f"{SITE}/login/start?t=")
        assert "Log in with Lichess" in record.text and "`acwc-" in record.text
    async with running_bot() as (_bot, h):  # web off: the profile code only
        record = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        assert [b["label"] for b in h.buttons(record.last)] == ["Verify"]
        assert "Log in with Lichess" not in record.text
