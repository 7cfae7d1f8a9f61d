""" "Log in with Lichess" (issue 33, point 4): the web server's side of registration.

/register gives the player a link button (`RegistrationService.login_link`) to
`/login/start?t=<token>`. The start page spends the link (`login_links`) and sends the
browser to Lichess's `/oauth` (PKCE S256, no scope, a random `state`, also set as a cookie
for `/login` only, so the answer must come back to the browser that clicked). Lichess sends
it back to `/login/callback`, which takes the answer once, exchanges the code, reads the
account, revokes the token (`login_oauth`) and hands the account to `register_verified`:
the profile code's own registration (the same entry checks, the same TD decision), the
player told in a DM.

Who may use a link: the web cannot see who is at the browser, so the link itself is the
proof that /register was run. It is bound to the Discord user who ran /register and to the
Lichess account they named there; whatever happens, only that Discord user can be
registered by it, and only with that account. "Another Discord user's link" is therefore
caught twice: a link is spent by its first click (a second click, by anyone, gets "used
already"), and someone else who clicks it first logs in at Lichess as themselves, which is
not the account named ("this link is for another account"). Either way nothing changes.
Each refusal is a page of its own (`login_text`) and never writes a registration or a
message; the link row records how it ended.

No redirect goes anywhere but Lichess's `/oauth` (from `lichess.base_url`) or back to this
site's callback (from `web.base_url`): nothing the request carries chooses a destination.
Both pages are rate-limited per client address (`login_limit`). No code, verifier, state or
token is logged, and the server runs without an access log (the callback's query has the
code).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from aiohttp import web

from bot.errors import UserFacingError
from bot.features.registration import login_text as wording
from bot.features.registration.login_limit import RateLimit, client_address
from bot.features.registration.login_links import FLOW_LIFETIME, LoginLinks, Outcome, Refusal
from bot.features.registration.login_oauth import (
    CALLBACK_PATH,
    START_PATH,
    LichessLogin,
    OAuthFailed,
    authorize_url,
)
from bot.web_page import page

if TYPE_CHECKING:
    from bot.features.web.deps import WebDeps

log = logging.getLogger(__name__)

#: The cookie that ties Lichess's answer to the browser that clicked: the `state`.
COOKIE = "acwc_login"
#: Link tokens and states are 43 characters; anything much longer is not one.
MAX_SECRET = 100

REFUSAL_PAGES = {
    Refusal.UNKNOWN: wording.UNKNOWN,
    Refusal.USED: wording.USED,
    Refusal.EXPIRED: wording.EXPIRED,
    Refusal.STATE: wording.STATE,
}


def routes(
    deps: WebDeps,
    *,
    limit: RateLimit | None = None,
    lichess: LichessLogin | None = None,
) -> list[web.AbstractRouteDef]:
    """The login's two pages, for the web application (the wiring passes this maker in the
    web's `others`)."""
    login = Login(deps, limit or RateLimit(), lichess or LichessLogin(deps.config))
    return [web.get(START_PATH, login.start), web.get(CALLBACK_PATH, login.callback)]


class Login:
    """The start page and the callback."""

    def __init__(self, deps: WebDeps, limit: RateLimit, lichess: LichessLogin) -> None:
        self.deps = deps
        self.limit = limit
        self.lichess = lichess
        self.links = LoginLinks(deps.sessions, deps.clock)

    def _page(self, shown: wording.Page) -> web.Response:
        response = page(
            "message.html",
            status=shown.status,
            cache=False,
            title=shown.title,
            site=self.deps.config.tournament.short_name,
            message=shown.message,
            link="",
            link_text="",
        )
        if shown.status == 429:
            response.headers["Retry-After"] = str(self.limit.retry_after())
        return response

    def _refused_early(self, request: web.Request) -> web.Response | None:
        if not self.limit.allow(client_address(request)):
            return self._page(wording.TOO_MANY)
        if self.deps.read_only or self.deps.register_verified is None:
            return self._page(wording.LOGIN_OFF)
        return None

    async def start(self, request: web.Request) -> web.StreamResponse:
        """The link's click: spend it, then off to Lichess."""
        early = self._refused_early(request)
        if early is not None:
            return early
        token = request.query.get("t", "")
        if not token or len(token) > MAX_SECRET:
            return self._page(wording.UNKNOWN)
        begun = await self.links.begin(token)
        if isinstance(begun, Refusal):
            log.info("login: a link was refused (%s)", begun.value)
            return self._page(REFUSAL_PAGES[begun])
        location = authorize_url(
            self.deps.config,
            state=begun.state,
            verifier=begun.verifier,
            username=begun.lichess_username,
        )
        response = web.Response(
            status=303, headers={"Location": location, "Cache-Control": "no-store"}
        )
        response.set_cookie(
            COOKIE,
            begun.state,
            path="/login",
            max_age=int(FLOW_LIFETIME.total_seconds()),
            httponly=True,
            samesite="Lax",  # sent on Lichess's redirect back (a top-level GET)
            secure=self.deps.config.web.public_url().startswith("https://"),
        )
        return response

    async def callback(self, request: web.Request) -> web.StreamResponse:
        """Lichess's answer: taken once, for the browser that clicked, then registered."""
        early = self._refused_early(request)
        if early is not None:
            return early
        query = request.query
        state = query.get("state", "")
        if not state or len(state) > MAX_SECRET or request.cookies.get(COOKIE) != state:
            log.info("login: an answer from Lichess did not match its browser's state")
            return self._page(wording.STATE)
        pending = await self.links.finish(state)
        if isinstance(pending, Refusal):
            log.info("login: an answer from Lichess was refused (%s)", pending.value)
            return self._page(REFUSAL_PAGES[pending])
        if "error" in query or not query.get("code"):
            denied = query.get("error") == "access_denied"
            await self._ended(pending.link_id, Outcome.DENIED if denied else Outcome.LICHESS_FAILED)
            return self._page(wording.DENIED if denied else wording.LICHESS_FAILED)
        try:
            account = await self.lichess.account_of(query["code"], pending.verifier)
        except OAuthFailed:
            await self._ended(pending.link_id, Outcome.LICHESS_FAILED)
            return self._page(wording.LICHESS_FAILED)
        if account.id != pending.lichess_id:
            await self._ended(pending.link_id, Outcome.OTHER_ACCOUNT)
            return self._page(wording.other_account(account.username, pending.lichess_username))
        register = self.deps.register_verified
        assert register is not None  # checked by `_refused_early`
        try:
            message = await register(pending.discord_id, account.username)
        except UserFacingError as refusal:
            await self._ended(pending.link_id, Outcome.REFUSED)
            return self._page(wording.refused(refusal.message))
        await self._ended(pending.link_id, Outcome.REGISTERED)
        return self._page(wording.Page(wording.REGISTERED_TITLE, message))

    async def _ended(self, link_id: int, outcome: Outcome) -> None:
        await self.links.close(link_id, outcome)
        log.info("login: link %s ended (%s)", link_id, outcome.value)
