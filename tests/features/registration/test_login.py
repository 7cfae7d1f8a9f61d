""" "Log in with Lichess" end to end: the site's login pages against the fake Lichess's OAuth,
on a migrated database; the registration it records is the profile code's, and every
refusal a person can meet is a page that changes nothing."""

from __future__ import annotations

import logging
from typing import NamedTuple

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.features.registration.login import COOKIE
from bot.features.registration.login_links import FLOW_LIFETIME, LINK_LIFETIME
from bot.features.registration.service import RegistrationService
from bot.lichess.client import LichessClient
from bot.wiring import build_registration
from db.models import LoginLink, OutboxKind, OwnershipChallenge, Registration, RegistrationState
from tests.conftest import TD_ID, add_player
from tests.fakes.lichess import FakeLichess
from tests.features.registration.login_helpers import (
    ALICE,
    BOB,
    SITE,
    alice_at_lichess,
    count,
    link_for,
    nothing_registered,
    outbox,
    outbox_ids,
    path_of,
    query_of,
    site,
    walk,
    web_config,
)


@pytest.fixture
def web(config: Config) -> Config:
    return web_config(config)


@pytest.fixture
def service(
    sessions: async_sessionmaker[AsyncSession],
    web: Config,
    clock: FakeClock,
    lichess: LichessClient,
) -> RegistrationService:
    return build_registration(sessions, web, clock, lichess)


class LoginWorld(NamedTuple):
    """What a login test works with: the database, the site's config, the clock, the fake
    Lichess and registration's use cases (unpacked at the top of each test)."""

    sessions: async_sessionmaker[AsyncSession]
    web: Config
    clock: FakeClock
    fake: FakeLichess
    service: RegistrationService


@pytest.fixture
def world(
    sessions: async_sessionmaker[AsyncSession],
    web: Config,
    clock: FakeClock,
    fake: FakeLichess,
    service: RegistrationService,
) -> LoginWorld:
    return LoginWorld(sessions, web, clock, fake, service)


async def test_the_whole_login_registers_the_player_as_the_profile_code_does(
    sessions: async_sessionmaker[AsyncSession],
    web: Config,
    clock: FakeClock,
    fake: FakeLichess,
    service: RegistrationService,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.INFO, logger="aiosqlite")  # as `configure_logging` always sets it
    add_player(fake, "Alice", rating=1900)
    add_player(fake, "Bob", rating=1900)
    fake.oauth_login("Alice")
    link = await link_for(service, ALICE, "alice")
    async with site(sessions, web, clock, service) as client:
        done = await walk(client, link)
    assert done.page is not None
    page = done.page_text
    assert done.page.status == 200, page
    assert "You are registered" in page and "Alice" in page and "TD" in page
    assert done.page.headers["Cache-Control"] == "no-store"

    # Lichess was asked as it documents: PKCE S256, no scope, our callback, a state.
    assert done.at_lichess is not None
    asked = query_of(done.at_lichess)
    assert done.at_lichess.startswith(f"{fake.base_url}/oauth?")
    assert asked["response_type"] == "code" and asked["code_challenge_method"] == "S256"
    assert asked["redirect_uri"] == f"{SITE}/login/callback"
    assert asked["client_id"] == "acwc.test" and asked["username"] == "Alice"
    assert "scope" not in asked and len(asked["state"]) >= 32
    assert done.start.cookies[COOKIE].value == asked["state"]
    assert done.start.cookies[COOKIE]["httponly"] and done.start.cookies[COOKIE]["path"] == "/login"

    # The token was used and revoked at once.
    assert len(fake.oauth_tokens_issued) == 1
    assert fake.oauth_tokens_revoked == fake.oauth_tokens_issued
    assert fake.oauth_tokens_issued[0] not in fake.tokens
    assert [m for m, p, _q in fake.requests if p in ("/api/token", "/api/account")] == [
        "POST",
        "GET",
        "DELETE",
    ]

    # Bob proves the same kind of account with the profile code: the same registration.
    step = await service.start(discord_id=BOB, lichess_username="Bob", is_td=False)
    fake.set_profile("Bob", bio=f"hi {step.code}")
    by_code = await service.verify(discord_id=BOB, challenge_id=step.challenge_id)
    by_login = await service.status(discord_id=ALICE)
    assert by_login is not None and by_login.lichess_username == "Alice"
    for field in ("state", "problems", "seeding_rating", "rating_at_cutoff", "peak_rating"):
        assert getattr(by_login, field) == getattr(by_code, field), field
    assert by_login.state is RegistrationState.PENDING and by_login.seeding_rating == 1900
    async with sessions() as session:
        challenge = await session.scalar(
            select(OwnershipChallenge).where(OwnershipChallenge.discord_id == ALICE)
        )
        assert challenge is not None and challenge.verified_at == clock.now()
        row = await session.scalar(select(LoginLink))
        assert row is not None and row.outcome == "registered" and row.code_verifier is None

    # The TD's decision is asked for each, and Alice is told in Discord.
    messages = await outbox(sessions)
    to_td = [m for m in messages if m.target_id == TD_ID]
    assert len(to_td) == 2 and all(
        m.view and m.view["kind"] == "registration_decision" for m in to_td
    )
    to_alice = [m for m in messages if m.target_id == ALICE]
    assert [m.kind for m in to_alice] == [OutboxKind.DM]
    assert "login proved" in to_alice[0].content and "**Alice** is verified" in to_alice[0].content
    assert to_alice[0].embeds and to_alice[0].embeds[0]["title"] == "Your registration"

    # No secret of the login reached a log line.
    link_token = query_of(link)["t"]
    secrets = [done.code, fake.oauth_tokens_issued[0], link_token]
    bodies = [b for b in fake.bodies if "code_verifier=" in b]
    verifier = query_of("?" + bodies[0])["code_verifier"]
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "login: link" in logged  # the login does log, by the link's row id
    assert [s for s in [*secrets, verifier] if s in logged or s in caplog.text] == []


async def test_a_restart_between_the_click_and_the_answer_loses_nothing(
    sessions: async_sessionmaker[AsyncSession],
    web: Config,
    clock: FakeClock,
    fake: FakeLichess,
    lichess: LichessClient,
    service: RegistrationService,
) -> None:
    link = await alice_at_lichess(fake, service)
    async with site(sessions, web, clock, service) as before:
        done = await walk(before, link, to_callback=False)
    assert done.back is not None
    again = build_registration(sessions, web, clock, lichess)  # a new process
    async with site(sessions, web, clock, again) as after:
        state = query_of(done.back)["state"]
        page = await after.get(path_of(done.back), cookies={COOKIE: state})
        assert page.status == 200 and "You are registered" in await page.text()
    assert await count(sessions, Registration) == 1


async def refused(sessions: async_sessionmaker[AsyncSession], title: str, text: str) -> None:
    """The refusal's page, and nothing registered, nobody messaged."""
    assert title in text, text
    assert "Nothing was changed" in text or "nothing was changed" in text
    assert await nothing_registered(sessions)
    assert await outbox(sessions) == []


async def test_denied_consent(world: LoginWorld) -> None:
    sessions, web, clock, fake, service = world
    link = await alice_at_lichess(fake, service, consent="deny")
    async with site(sessions, web, clock, service) as client:
        done = await walk(client, link)
    assert done.back is not None and query_of(done.back)["error"] == "access_denied"
    assert done.page is not None and done.page.status == 200
    await refused(sessions, "Login cancelled", done.page_text)
    assert fake.oauth_tokens_issued == []


async def test_an_expired_link(world: LoginWorld) -> None:
    sessions, web, clock, fake, service = world
    link = await alice_at_lichess(fake, service)
    clock.advance(LINK_LIFETIME)
    async with site(sessions, web, clock, service) as client:
        done = await walk(client, link)
    assert done.start.status == 410 and done.at_lichess is None
    await refused(sessions, "This link has expired", done.start_text)


async def test_an_answer_from_lichess_that_comes_too_late(world: LoginWorld) -> None:
    sessions, web, clock, fake, service = world
    link = await alice_at_lichess(fake, service)
    async with site(sessions, web, clock, service) as client:
        done = await walk(client, link, to_callback=False)
        clock.advance(FLOW_LIFETIME)
        assert done.back is not None
        page = await client.get(path_of(done.back))
        text = await page.text()
    assert page.status == 410
    await refused(sessions, "This link has expired", text)
    assert fake.oauth_tokens_issued == []  # the code was never exchanged


async def test_a_link_used_twice(world: LoginWorld) -> None:
    """The second click is refused, and so is Lichess's answer replayed after it was taken."""
    sessions, web, clock, fake, service = world
    link = await alice_at_lichess(fake, service)
    async with site(sessions, web, clock, service) as client:
        first = await walk(client, link, to_callback=False)
        second = await walk(client, link)
        assert second.start.status == 410
        await refused(sessions, "This link was used already", second.start_text)
        assert first.back is not None
        taken = await client.get(path_of(first.back))
        assert taken.status == 200
        registered = await outbox_ids(sessions)
        replayed = await client.get(path_of(first.back))
        assert replayed.status == 410 and "used already" in await replayed.text()
    assert await count(sessions, Registration) == 1
    assert await outbox_ids(sessions) == registered
    assert len(fake.oauth_tokens_issued) == 1


async def test_a_wrong_state_is_ignored_and_the_real_answer_still_counts(world: LoginWorld) -> None:
    sessions, web, clock, fake, service = world
    link = await alice_at_lichess(fake, service)
    async with site(sessions, web, clock, service) as client:
        done = await walk(client, link, to_callback=False)
        assert done.back is not None
        answer = query_of(done.back)
        forged = await client.get("/login/callback", params={**answer, "state": "x" * 43})
        assert forged.status == 400
        await refused(sessions, "does not match", await forged.text())
        async with site(sessions, web, clock, service) as other_browser:
            elsewhere = await other_browser.get(path_of(done.back))  # no cookie there
            assert elsewhere.status == 400
            await refused(sessions, "does not match", await elsewhere.text())
        assert fake.oauth_tokens_issued == []
        page = await client.get(path_of(done.back))
        assert page.status == 200 and "You are registered" in await page.text()


async def test_an_account_already_registered(world: LoginWorld) -> None:
    """Alice runs /register, proves the account with the code, then clicks the link too."""
    sessions, web, clock, fake, service = world
    add_player(fake, "Alice")
    fake.oauth_login("Alice")
    step = await service.start(discord_id=ALICE, lichess_username="Alice", is_td=False)
    made = await service.login_link(challenge_id=step.challenge_id)
    assert made is not None
    fake.set_profile("Alice", bio=step.code)
    await service.verify(discord_id=ALICE, challenge_id=step.challenge_id)
    before = await outbox_ids(sessions)
    async with site(sessions, web, clock, service) as client:
        done = await walk(client, made[0])
    assert done.page is not None and done.page.status == 409
    text = done.page_text
    assert "Registration refused" in text and "already registered as Alice" in text
    assert await count(sessions, Registration) == 1
    assert await outbox_ids(sessions) == before
    assert fake.oauth_tokens_revoked == fake.oauth_tokens_issued


async def test_another_discord_users_link(world: LoginWorld) -> None:
    """Bob opens the link /register gave Alice and logs in at Lichess as himself: refused,
    and the link is spent, so Alice's own click afterwards is refused too."""
    sessions, web, clock, fake, service = world
    add_player(fake, "Alice")
    add_player(fake, "Bob")
    link = await link_for(service, ALICE, "Alice")
    fake.oauth_login("Bob")
    async with site(sessions, web, clock, service) as bobs_browser:
        done = await walk(bobs_browser, link)
    assert done.page is not None and done.page.status == 409
    text = done.page_text
    await refused(sessions, "This link is for another account", text)
    assert "logged in on Lichess as Bob" in text
    assert fake.oauth_tokens_revoked == fake.oauth_tokens_issued != []
    fake.oauth_login("Alice")
    async with site(sessions, web, clock, service) as alices_browser:
        again = await walk(alices_browser, link)
    assert again.start.status == 410
    await refused(sessions, "used already", again.start_text)


async def test_registration_closed_since_register_is_told_without_discord_markup(
    world: LoginWorld,
) -> None:
    """The entry checks' own refusal, worded for Discord (a TD mention, a timestamp), is
    shown on the page without Discord's ids or markup."""
    sessions, web, clock, fake, service = world
    link = await alice_at_lichess(fake, service)
    await service.set_window(td_id=TD_ID, open_=False)
    before = await outbox_ids(sessions)
    async with site(sessions, web, clock, service) as client:
        done = await walk(client, link)
    assert done.page is not None and done.page.status == 409
    text = done.page_text
    assert "Registration refused" in text and "closed" in text
    assert "&lt;@" not in text and str(TD_ID) not in text and "&lt;t:" not in text
    assert await nothing_registered(sessions) and await outbox_ids(sessions) == before


async def test_a_link_that_is_not_one(
    sessions: async_sessionmaker[AsyncSession],
    web: Config,
    clock: FakeClock,
    service: RegistrationService,
) -> None:
    async with site(sessions, web, clock, service) as client:
        for query in ("", "?t=", "?t=made-up-token-made-up-token-made-up-token"):
            page = await client.get(f"/login/start{query}", allow_redirects=False)
            assert page.status == 404
            await refused(sessions, "This link does not work", await page.text())
        callback = await client.get("/login/callback?code=liu_x&state=", allow_redirects=False)
        assert callback.status == 400
