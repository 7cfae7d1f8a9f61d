"""Every part of the site, by the routes it adds: the one place to wire a new part."""

from __future__ import annotations

from aiohttp import web

from bot.features.web import pages
from bot.features.web.deps import WebDeps
from bot.features.web.server import RouteMaker, build_app
from bot.web_page import static_routes

#: The web feature's own parts, in the order their routes are added.
PARTS: list[RouteMaker] = [lambda deps: static_routes(), pages.routes]


def app_for(deps: WebDeps, others: list[RouteMaker] | None = None) -> web.Application:
    """The whole site for `deps`: the web feature's parts, then `others`, the parts other
    features own (the calendar feeds, the Lichess login), given by the wiring so the web
    imports no other feature."""
    return build_app(deps, [*PARTS, *(others or [])])
