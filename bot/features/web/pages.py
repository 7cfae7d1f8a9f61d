"""The public pages' routes: each page as HTML and, at the same path with `.json` added
(`/index.json` for the home page) or with `?format=json`, as its JSON twin, the very value
the HTML is drawn from (`views`).

URL scheme (readable keys, no database ids; docs/TD-GUIDE.md "The public site"):

    /                                   home          /index.json
    /field                              the field     /field.json
    /champion                           the champion  /champion.json
    /stages/<key>                       a stage       /stages/<key>.json
    /stages/<key>/rounds/<n>            a round       /stages/<key>/rounds/<n>.json
    /matches/<row>/<round>/<board>      a match       /matches/<row>/<round>/<board>.json
    /players/<lichess id>               a player      /players/<lichess id>.json

`<row>` is the stage key, or `<key>-<pool>` for a pool ("candidates-upper"). Each answer
carries an ETag of the database state it shows (a browser's `If-None-Match` gets a 304);
the caching and security headers are the server's (`server.py`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import partial
from typing import Any

from aiohttp import web

from bot.features.web import text as wording
from bot.features.web import views
from bot.features.web.deps import WebDeps
from bot.features.web.model import Site
from bot.features.web.public import PublicRead, SiteCache
from bot.web_page import environment, render

JSON_SUFFIX = ".json"
Maker = Callable[[Site], dict[str, Any] | None]


def _utc_text(value: str | None) -> str:
    from datetime import datetime

    return wording.utc(datetime.fromisoformat(value)) if value else ""


environment().filters.setdefault("utc", _utc_text)
environment().filters.setdefault("points", wording.score)


def _split(name: str) -> tuple[str, bool]:
    """A path part and whether it asked for the JSON twin (`x.json`)."""
    if name.endswith(JSON_SUFFIX):
        return name[: -len(JSON_SUFFIX)], True
    return name, False


def _number(text: str) -> int | None:
    return int(text) if text.isdigit() and len(text) < 6 else None


class Pages:
    """The pages of one site: one cache of the public read, shared by every page."""

    def __init__(self, deps: WebDeps) -> None:
        self.deps = deps
        self._last: Site | None = None  # the site built last (only the rebuild sets it)

        def build(read: PublicRead) -> Site:
            site = Site.build(read, deps.config)
            self.predraw(site)
            return site

        self.cache = SiteCache(deps.sessions, deps.config, deps.clock, build)

    async def answer(self, request: web.Request, make: Maker, as_json: bool) -> web.StreamResponse:
        site: Site = await self.cache.get()
        as_json = as_json or request.query.get("format") == "json"
        tag = hashlib.sha1(
            f"{site.read.etag}{request.path}{as_json}".encode(), usedforsecurity=False
        ).hexdigest()[:24]
        etag = f'"{tag}"'
        if request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers={"ETag": etag})
        body = self._drawn(site, request.path.removesuffix(JSON_SUFFIX), make, as_json)
        if body is None:
            return self.not_found(as_json)
        kind = "application/json" if as_json else "text/html"
        response = web.Response(text=body, content_type=kind)
        response.headers["ETag"] = etag
        return response

    def _drawn(self, site: Site, path: str, make: Maker, as_json: bool) -> str | None:
        """The page at `path` drawn from `site`'s read: each page is drawn once per read
        (None, not kept: no such page; unknown paths are many)."""
        body = site.drawn.get((path, as_json))
        if body is None:
            body = self._draw(make(site), as_json)
            if body is not None:
                site.drawn[(path, as_json)] = body
        return body

    def predraw(self, site: Site) -> None:
        """Draw the pages most readers ask for (home, the field, the champion, each stage
        and each of its rounds) with the rebuild, in its thread: a new read then arrives
        with them drawn, and the first reader after a change does not wait for the drawing
        (a 500-player stage's standings and round take tens of milliseconds each), with
        their JSON twins. A page whose value (its JSON twin) is the same as in the read
        before, a finished round's, is not drawn again: its HTML is the one drawn then."""
        now = site.read.read_at
        hot: list[tuple[str, Maker]] = [
            ("/", lambda s: views.home(s, now)),
            ("/field", views.field),
            ("/champion", views.champion),
        ]
        for key, rows in site.rows.items():
            hot.append((f"/stages/{key}", partial(views.stage, key=key)))
            numbers = {r.number for row in rows for r in site.rounds.get(row.id, [])}
            hot += [
                (f"/stages/{key}/rounds/{n}", partial(views.round_page, key=key, number=n))
                for n in sorted(numbers)
            ]
        before, self._last = self._last, site
        for path, make in hot:
            value = make(site)
            if value is None:
                continue
            twin = _dumps(value)  # the JSON twin: the whole value, as text
            site.drawn[(path, True)] = twin
            kept = before.drawn if before is not None else {}
            same = kept.get((path, True)) == twin and (path, False) in kept
            site.drawn[(path, False)] = kept[(path, False)] if same else self._html(value)
        site.forget_views()

    def _draw(self, value: dict[str, Any] | None, as_json: bool) -> str | None:
        if value is None:
            return None
        return _dumps(value) if as_json else self._html(value)

    def _html(self, value: dict[str, Any]) -> str:
        site_name = self.deps.config.tournament.short_name
        return render(f"{value['page']}.html", title=value["title"], site=site_name, v=value)

    def not_found(self, as_json: bool) -> web.Response:
        if as_json:
            return web.json_response({"error": "not_found"}, status=404)
        html = render(
            "not_found.html",
            title=wording.NOT_FOUND,
            site=self.deps.config.tournament.short_name,
            message=wording.NOT_FOUND_TEXT,
        )
        return web.Response(text=html, status=404, content_type="text/html")

    # ------------------------------------------------------------------ handlers

    async def home(self, request: web.Request) -> web.StreamResponse:
        now = self.deps.clock.now()
        return await self.answer(request, lambda s: views.home(s, now), request.path != "/")

    async def field(self, request: web.Request) -> web.StreamResponse:
        return await self.answer(request, views.field, request.path.endswith(JSON_SUFFIX))

    async def champion(self, request: web.Request) -> web.StreamResponse:
        return await self.answer(request, views.champion, request.path.endswith(JSON_SUFFIX))

    async def stage(self, request: web.Request) -> web.StreamResponse:
        key, as_json = _split(request.match_info["key"])
        return await self.answer(request, lambda s: views.stage(s, key), as_json)

    async def round(self, request: web.Request) -> web.StreamResponse:
        text, as_json = _split(request.match_info["number"])
        number = _number(text)
        key = request.match_info["key"]
        if number is None:
            return self.not_found(as_json)
        return await self.answer(request, lambda s: views.round_page(s, key, number), as_json)

    async def match(self, request: web.Request) -> web.StreamResponse:
        text, as_json = _split(request.match_info["board"])
        board, number = _number(text), _number(request.match_info["round"])
        slug = request.match_info["row"]
        if board is None or number is None:
            return self.not_found(as_json)
        return await self.answer(
            request, lambda s: views.match_page(s, slug, number, board), as_json
        )

    async def player(self, request: web.Request) -> web.StreamResponse:
        name, as_json = _split(request.match_info["name"])
        return await self.answer(request, lambda s: views.player(s, name), as_json)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def routes(deps: WebDeps) -> list[web.AbstractRouteDef]:
    """The public pages and their JSON twins (read-only: GET and HEAD only)."""
    pages = Pages(deps)
    return [
        web.get("/", pages.home),
        web.get("/index.json", pages.home),
        web.get("/field", pages.field),
        web.get("/field.json", pages.field),
        web.get("/champion", pages.champion),
        web.get("/champion.json", pages.champion),
        web.get("/stages/{key}", pages.stage),
        web.get("/stages/{key}/rounds/{number}", pages.round),
        web.get("/matches/{row}/{round}/{board}", pages.match),
        web.get("/players/{name}", pages.player),
    ]
