"""The fake Lichess's OAuth endpoints, as the API reference (`doc/specs/tags/oauth/`) and
lila (`AuthorizationApi`, `Protocol`, the OAuth controller) have them: the authorization
code flow with PKCE for public clients, any `client_id`, no scope needed to read the
account.

* ``GET /oauth``: a missing or unparsable ``redirect_uri`` is a **400** page (lila cannot
  send anything back). Real Lichess then shows a consent prompt to the logged-in user; the
  fake decides at once as the test set it (:meth:`OAuthEndpoints.oauth_login` names the
  user logged in, ``oauth_consent`` approves or denies). Denied: a **303** to
  ``redirect_uri`` with ``error=access_denied``, ``error_description`` and ``state``.
  Approved, the request is checked in lila's order (``client_id`` required, the scope,
  ``code_challenge`` required, ``response_type`` ``code`` only, ``code_challenge_method``
  ``S256`` only) and a refusal goes back the same way (``invalid_request``,
  ``invalid_scope``, ``unsupported_response_type``, ``unauthorized_client``); otherwise a
  303 with ``code`` (``liu_``..., valid **120 seconds** of ``time_source()``) and ``state``.
  The redirect's query replaces any query ``redirect_uri`` had, as lila's does.
* ``POST /api/token`` (form): the fields are checked first (``grant_type`` required and
  ``authorization_code`` only, ``code``, ``code_verifier`` of at least 43 characters,
  ``redirect_uri``, ``client_id``), then the code is **consumed** whatever follows (lila
  removes it before it checks the rest): unknown or used, expired, another
  ``redirect_uri`` (exact string match), another ``client_id``, or a verifier whose
  ``BASE64URL(SHA256(...))`` is not the challenge are each ``invalid_grant`` with lila's
  description. Refusals are **400** ``{"error", "error_description"}``; success is
  ``{"token_type": "Bearer", "access_token": "lio_...", "expires_in": ...}``.
* ``DELETE /api/token`` revokes the bearer token: **204**; the token then gets 401
  everywhere (:mod:`acwc_sim.lichess_access`).
* ``GET /api/account``: the bearer token's user as ``/api/user/{name}`` shows them; without a
  token **401**.

Observations for tests: ``oauth_tokens_issued`` (every access token handed out, in order),
``oauth_tokens_revoked``.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlencode, urlsplit, urlunsplit

from aiohttp import web

#: lila: `nowInstant.plusSeconds(120)` when the code is made.
CODE_LIFETIME_SECONDS = 120
#: lila's OAuth tokens last a year (`expires_in` in seconds).
TOKEN_LIFETIME_SECONDS = 365 * 24 * 3600
MIN_VERIFIER_LENGTH = 43
#: The scopes lila knows (`OAuthScope`); an unknown one is `invalid_scope`.
KNOWN_SCOPES = frozenset(
    {
        "preference:read",
        "preference:write",
        "email:read",
        "engine:read",
        "engine:write",
        "challenge:read",
        "challenge:write",
        "challenge:bulk",
        "study:read",
        "study:write",
        "tournament:write",
        "racer:write",
        "puzzle:read",
        "puzzle:write",
        "team:read",
        "team:write",
        "team:lead",
        "follow:read",
        "follow:write",
        "msg:write",
        "board:play",
        "bot:play",
        "web:mod",
    }
)

# lila's error descriptions (`Protocol.Error`).
CODE_INVALID = "authorization code invalid, expired or consumed"
CODE_EXPIRED = "authorization code expired"
OTHER_REDIRECT = "authorization code was issued for a different redirect_uri"
OTHER_CLIENT = "authorization code was issued for a different client_Id"
WRONG_VERIFIER = "hash of code_verifier does not match code_challenge"


@dataclass(frozen=True)
class Pending:
    """An authorization code waiting for its exchange (lila's `PendingAuthorization`)."""

    client_id: str
    user_id: str
    redirect_uri: str
    challenge: str
    expires: float


def s256(verifier: str) -> str:
    """`BASE64URL(SHA256(code_verifier))` without padding: the only method Lichess takes."""
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _hashed(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def _oauth_error(error: str, description: str, status: int = 400) -> web.Response:
    return web.json_response({"error": error, "error_description": description}, status=status)


def _with_query(uri: str, fields: dict[str, str]) -> str:
    parts = urlsplit(uri)
    return urlunsplit(parts._replace(query=urlencode(fields)))


class OAuthEndpoints:
    """The OAuth state of the fake: codes waiting for their exchange, the consent rule."""

    users: dict[str, dict[str, Any]]
    tokens: dict[str, tuple[str, frozenset[str]]]
    time_source: Callable[[], float]

    if TYPE_CHECKING:

        def user_json(self, uid: str) -> dict[str, Any]: ...  # the fake's own

        def _bearer(self, request: web.Request) -> str | None: ...  # lichess_access's

    def _init_oauth(self) -> None:
        self._pending: dict[str, Pending] = {}  # by hashed code, as lila stores them
        #: who is logged in at the fake's /oauth (None: nobody, the prompt cannot be answered)
        self.oauth_user: str | None = None
        #: what that user answers at the consent prompt
        self.oauth_consent: Literal["approve", "deny"] = "approve"
        self.oauth_tokens_issued: list[str] = []
        self.oauth_tokens_revoked: list[str] = []

    # ----------------------------------------------------------------- setup API

    def oauth_login(
        self, username: str, *, consent: Literal["approve", "deny"] = "approve"
    ) -> None:
        """`username` is logged in at Lichess and will `consent` at the prompt."""
        self.oauth_user = username.lower()
        self.oauth_consent = consent

    def oauth_routes(self) -> list[web.RouteDef]:
        return [
            web.get("/oauth", self._authorize),
            web.post("/api/token", self._token),
            web.delete("/api/token", self._revoke),
            web.get("/api/account", self._account),
        ]

    # ----------------------------------------------------------------- handlers

    async def _authorize(self, request: web.Request) -> web.StreamResponse:
        q = request.query
        redirect_uri = q.get("redirect_uri")
        if not redirect_uri:
            return web.Response(text="Bad authorization request: redirect_uri required", status=400)
        parts = urlsplit(redirect_uri)
        if not parts.scheme or not parts.netloc:
            return web.Response(text="Bad authorization request: redirect_uri invalid", status=400)
        state = q.get("state", "")
        if self.oauth_user is None or self.oauth_user not in self.users:
            return web.Response(text="Log in to Lichess first (nobody is logged in)", status=401)

        def back(fields: dict[str, str]) -> web.StreamResponse:
            location = _with_query(redirect_uri, {**fields, "state": state})
            return web.Response(status=303, headers={"Location": location})

        if self.oauth_consent == "deny":
            return back(
                {"error": "access_denied", "error_description": "user cancelled authorization"}
            )
        refusal = self._authorize_refusal(q)
        if refusal is not None:
            return back({"error": refusal[0], "error_description": refusal[1]})
        code = f"liu_{secrets.token_urlsafe(24)}"
        self._pending[_hashed(code)] = Pending(
            client_id=q["client_id"],
            user_id=self.oauth_user,
            redirect_uri=redirect_uri,
            challenge=q["code_challenge"],
            expires=self.time_source() + CODE_LIFETIME_SECONDS,
        )
        return back({"code": code})

    @staticmethod
    def _authorize_refusal(q: Any) -> tuple[str, str] | None:
        """lila's checks of an approved request, in its order."""
        if not q.get("client_id"):
            return "invalid_request", "client_id required (choose any)"
        unknown = [s for s in q.get("scope", "").split() if s not in KNOWN_SCOPES]
        if unknown:
            return "invalid_scope", f"invalid scope: {unknown[0]}"
        if not q.get("code_challenge"):
            return "invalid_request", "code_challenge required"
        if not q.get("response_type"):
            return "invalid_request", "response_type required"
        if q["response_type"] != "code":
            return "unsupported_response_type", "supports only response_type 'code'"
        if not q.get("code_challenge_method"):
            return "invalid_request", "code_challenge_method required"
        if q["code_challenge_method"] != "S256":
            return "unauthorized_client", "supports only code_challenge_method 'S256'"
        return None

    async def _token(self, request: web.Request) -> web.StreamResponse:
        form = {k: str(v) for k, v in (await request.post()).items()}
        grant_type = form.get("grant_type")
        if grant_type is None:
            return _oauth_error("invalid_request", "grant_type required")
        if grant_type != "authorization_code":
            return _oauth_error(
                "unsupported_grant_type", "supports only grant_type 'authorization_code'"
            )
        for field in ("code", "code_verifier"):
            if field not in form:
                return _oauth_error("invalid_request", f"{field} required")
        if len(form["code_verifier"]) < MIN_VERIFIER_LENGTH:
            return _oauth_error("invalid_request", "code_verifier too short")
        if "redirect_uri" not in form:
            return _oauth_error("invalid_request", "redirect_uri required")
        if "client_id" not in form:
            return _oauth_error("invalid_request", "client_id required (choose any)")
        # Consumed first, whatever the checks below say (lila's findAndModify with remove).
        pending = self._pending.pop(_hashed(form["code"]), None)
        if pending is None:
            return _oauth_error("invalid_grant", CODE_INVALID)
        if self.time_source() >= pending.expires:
            return _oauth_error("invalid_grant", CODE_EXPIRED)
        if pending.redirect_uri != form["redirect_uri"]:
            return _oauth_error("invalid_grant", OTHER_REDIRECT)
        if pending.client_id != form["client_id"]:
            return _oauth_error("invalid_grant", OTHER_CLIENT)
        if s256(form["code_verifier"]) != pending.challenge:
            return _oauth_error("invalid_grant", WRONG_VERIFIER)
        token = f"lio_{secrets.token_urlsafe(24)}"
        self.tokens[token] = (pending.user_id, frozenset())
        self.oauth_tokens_issued.append(token)
        return web.json_response(
            {"token_type": "Bearer", "access_token": token, "expires_in": TOKEN_LIFETIME_SECONDS}
        )

    async def _revoke(self, request: web.Request) -> web.StreamResponse:
        token = self._bearer(request)  # an unknown one was answered 401 by the middleware
        if token is None:
            return web.json_response({"error": "Missing authorization header"}, status=401)
        self.tokens.pop(token, None)
        self.oauth_tokens_revoked.append(token)
        return web.Response(status=204)

    async def _account(self, request: web.Request) -> web.StreamResponse:
        token = self._bearer(request)
        if token is None:
            return web.json_response({"error": "Missing authorization header"}, status=401)
        uid = self.tokens[token][0]
        if uid not in self.users:
            return web.json_response({"error": "No such user"}, status=401)
        return web.json_response(self.user_json(uid))
