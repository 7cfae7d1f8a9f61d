"""Every part of the web feature, by the routes it adds: the one place to wire a new part."""

from __future__ import annotations

from aiohttp import web

from bot.features.web.deps import WebDeps
from bot.features.web.server import RouteMaker, build_app

#: The parts, in the order their routes are added.
PARTS: list[RouteMaker] = []


def app_for(deps: WebDeps) -> web.Application:
    """The whole site for `deps`."""
    return build_app(deps, PARTS)
