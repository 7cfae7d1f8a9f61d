"""The web server: one aiohttp application whose routes each part of the feature adds
(`ROUTE_MAKERS`), behind middlewares that every answer passes: security headers (a strict
Content-Security-Policy, no framing, no sniffing, no referrer to other sites) and caching
headers (public pages may be cached briefly; the login's answers never). The parts are
listed in `bot.features.web.routes`."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable

from aiohttp import web

from bot.features.web.deps import WebDeps

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
RouteMaker = Callable[[WebDeps], Iterable[web.AbstractRouteDef]]

DEPS_KEY = web.AppKey("deps", WebDeps)
#: Seconds a public page or feed may be cached by a browser or a proxy: a result shows
#: within this long, and a crowd following a Final costs one render per page per period.
PUBLIC_MAX_AGE = 30

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}


@web.middleware
async def _headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every answer carries the security headers; one without its own Cache-Control gets
    the public pages' (a handler that must not be cached sets `no-store` itself)."""
    try:
        response = await handler(request)
    except web.HTTPException as error:
        response = error
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    response.headers.setdefault("Cache-Control", f"public, max-age={PUBLIC_MAX_AGE}")
    if isinstance(response, web.HTTPException) and response.status >= 400:
        raise response
    return response


def build_app(deps: WebDeps, makers: Iterable[RouteMaker]) -> web.Application:
    """The application: the middlewares and every part's routes (`bot.features.web.routes`
    lists the parts)."""
    app = web.Application(middlewares=[_headers])
    app[DEPS_KEY] = deps
    for make in makers:
        app.add_routes(list(make(deps)))
    return app


class WebServer:
    """The application served on `web.host`:`web.port` until stopped."""

    def __init__(self, app: web.Application, host: str, port: int) -> None:
        self.app = app
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, self.host, self.port).start()
        log.info("web pages served on http://%s:%s", self.host, self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
