"""Lichess's side of "Log in with Lichess": the OAuth2 authorization code flow with PKCE
for a public client, as Lichess documents it (`lichess-org/api`, `doc/specs/tags/oauth/`):
any `client_id`, `code_challenge_method` S256 only, no scope (reading the account needs
none), the code valid 120 seconds and exchanged with the exact `redirect_uri` it was asked
with. The token is used once, to read `/api/account`, and revoked at once.

The calls go to `lichess.base_url` with aiohttp (the bot's Lichess client is a synchronous
library's, for the bot's own token; these carry the player's). Nothing here logs a code, a
verifier or a token: a failure is logged by its Lichess error name only.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import aiohttp

from bot.config import Config

log = logging.getLogger(__name__)

START_PATH = "/login/start"
CALLBACK_PATH = "/login/callback"


class OAuthFailed(Exception):
    """Lichess did not give the account: `reason` is its OAuth error name (`invalid_grant`,
    ...) or `unavailable` when it could not be reached or answered something else."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Account:
    """The account the player logged in with: Lichess's id (lower case) and spelling."""

    id: str
    username: str


def new_secret() -> str:
    """43 URL-safe characters from 32 random bytes: a `code_verifier` (RFC 7636 asks 43 to
    128 characters), a `state`, a link token."""
    return secrets.token_urlsafe(32)


def s256(verifier: str) -> str:
    """The `code_challenge`: `BASE64URL(SHA256(code_verifier))`, unpadded."""
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def client_id(config: Config) -> str:
    """`web.login_client_id`, else the public address's host (Lichess takes any name)."""
    return config.web.login_client_id or urlsplit(config.web.public_url()).hostname or "acwc"


def start_url(config: Config, token: str) -> str:
    """The link /register's button opens: the site's own start page with the link token."""
    return f"{config.web.public_url()}{START_PATH}?{urlencode({'t': token})}"


def redirect_uri(config: Config) -> str:
    """Built from the configuration only, never from a request: the one place Lichess
    sends the player back to."""
    return f"{config.web.public_url()}{CALLBACK_PATH}"


def authorize_url(config: Config, *, state: str, verifier: str, username: str) -> str:
    """Lichess's `/oauth` for this login; `username` is the documented hint of the account
    expected (the one /register named)."""
    query = {
        "response_type": "code",
        "client_id": client_id(config),
        "redirect_uri": redirect_uri(config),
        "code_challenge_method": "S256",
        "code_challenge": s256(verifier),
        "state": state,
        "username": username,
    }
    return f"{config.lichess.base_url}/oauth?{urlencode(query)}"


class LichessLogin:
    """The three calls after the redirect: exchange the code, read the account, revoke."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.base = config.lichess.base_url
        self.timeout = aiohttp.ClientTimeout(total=config.lichess.timeout_seconds)

    async def account_of(self, code: str, verifier: str) -> Account:
        """The account behind `code`; the token is revoked before this returns, whatever
        happened after it was given."""
        async with aiohttp.ClientSession(timeout=self.timeout) as http:
            token = await self._exchange(http, code, verifier)
            try:
                return await self._account(http, token)
            finally:
                await self._revoke(http, token)

    async def _exchange(self, http: aiohttp.ClientSession, code: str, verifier: str) -> str:
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "code_verifier": verifier,
            "redirect_uri": redirect_uri(self.config),
            "client_id": client_id(self.config),
        }
        body = await self._call(http, "POST", "/api/token", data=form)
        token = body.get("access_token")
        if not isinstance(token, str) or not token:
            log.warning("login: Lichess's token answer had no access_token")
            raise OAuthFailed("unavailable")
        return token

    async def _account(self, http: aiohttp.ClientSession, token: str) -> Account:
        body = await self._call(http, "GET", "/api/account", token=token)
        uid, name = body.get("id"), body.get("username")
        if not isinstance(uid, str) or not isinstance(name, str):
            log.warning("login: Lichess's account answer had no id or username")
            raise OAuthFailed("unavailable")
        return Account(uid.lower(), name)

    async def _revoke(self, http: aiohttp.ClientSession, token: str) -> None:
        try:
            async with http.delete(f"{self.base}/api/token", headers=_bearer(token)) as answer:
                if answer.status != 204:
                    log.warning(
                        "login: Lichess answered %s to the token's revocation", answer.status
                    )
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning("login: the token's revocation failed (%s)", type(exc).__name__)

    async def _call(
        self,
        http: aiohttp.ClientSession,
        method: str,
        path: str,
        *,
        data: dict[str, str] | None = None,
        token: str | None = None,
    ) -> dict[str, Any]:
        headers = {"Accept": "application/json", **(_bearer(token) if token else {})}
        try:
            async with http.request(
                method, f"{self.base}{path}", data=data, headers=headers
            ) as answer:
                body = await answer.json(content_type=None)
                status = answer.status
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            log.warning("login: %s %s failed (%s)", method, path, type(exc).__name__)
            raise OAuthFailed("unavailable") from None
        if status == 200 and isinstance(body, dict):
            return body
        error = body.get("error") if isinstance(body, dict) else None
        reason = error if isinstance(error, str) and status == 400 else "unavailable"
        log.warning("login: %s %s answered %s (%s)", method, path, status, reason)
        raise OAuthFailed(reason)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
