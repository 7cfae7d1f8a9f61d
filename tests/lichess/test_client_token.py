"""The client and the Lichess token: its scopes, the typed refusal, Lichess's own words."""

from __future__ import annotations

import logging

import pytest

from bot.lichess.errors import LichessAuthError, LichessError
from tests.lichess.test_client import T0, setup


async def test_token_scopes_of_a_good_a_narrow_and_a_revoked_token() -> None:
    async with setup(token="lip_good") as (fake, client):
        fake.add_token("lip_good", scopes=("challenge:write", "email:read"))
        assert await client.token_scopes() == {"challenge:write", "email:read"}
        fake.revoke_token("lip_good")
        assert await client.token_scopes() is None  # invalid: no exception, a clear None
    async with setup() as (_fake, client):
        with pytest.raises(ValueError):
            await client.token_scopes()


async def test_a_refused_token_is_a_typed_error_with_the_fix() -> None:
    async with setup(token="lip_narrow") as (fake, client):
        fake.add_token("lip_narrow", scopes=())
        for name in ("Alice", "Bob"):
            fake.add_user(name, created_at=T0)
        with pytest.raises(LichessAuthError) as refused:
            await client.create_open_challenge(
                users=("alice", "bob"), variant="antichess", clock_limit=120, clock_increment=5
            )
        assert refused.value.status_code == 403 and "challenge:write" in refused.value.fix
        fake.revoke_token("lip_narrow")
        with pytest.raises(LichessAuthError) as invalid:
            await client.get_user("alice")
        assert invalid.value.status_code == 401


async def test_lichess_error_body_is_logged_and_kept(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="bot.lichess.client")
    async with setup() as (fake, client):
        for name in ("Alice", "Bob"):
            fake.add_user(name, created_at=T0)
        with pytest.raises(LichessError) as bad:
            await client.create_open_challenge(
                users=("alice", "bob"), variant="antichess", clock_limit=100, clock_increment=5
            )
        assert bad.value.status_code == 400 and "not an allowed clock" in str(bad.value)
    assert "clock.limit: 100 is not an allowed clock" in caplog.text
