"""The calendar feeds on the web (issue 33): `/calendar.ics`, every match of the
championship, and `/players/{lichess name}/calendar.ics`, one player's (the name in any
case). A calendar application subscribed to one reads it again by itself, so a time agreed,
moved or a result recorded reaches it without a new import.

Each match with an agreed time is one event, built by the same code as /schedule's file
(`ics.py`): the same UID for good, a SEQUENCE and a LAST-MODIFIED/DTSTAMP read from the
audit log (`feed_read.py`), so the same database gives the same bytes and a restart changes
nothing; DTSTART in UTC and DTEND `negotiation.finish_margin_minutes` later (the time the
bot gives a match to finish, rule V.B's margin before the deadline). The answer is cached
briefly by browsers and proxies and carries an ETag, so a client polling it gets a 304 while
nothing changed. Nothing private is in a feed: names, places, times, scores and Lichess
links, as the public pages show them.

The web feature imports no other feature: the wiring passes `routes` to `app_for`.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING
from urllib.parse import quote

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.config import Config
from bot.features.schedule import feed_text as wording
from bot.features.schedule.feed_read import FeedMatch, audit_mark, feed_matches, player_named
from bot.features.schedule.ics import CalendarEvent, CalendarHead, calendar_bytes
from bot.rebuild import QUICK, off_the_loop
from bot.web_page import page

if TYPE_CHECKING:
    from bot.features.web.deps import WebDeps

CHAMPIONSHIP_FEED = "/calendar.ics"
PLAYER_FEED = "/players/{name}/calendar.ics"
CONTENT_TYPE = "text/calendar"
#: Seconds a feed may be kept by a client or a proxy: calendar applications read a feed
#: every few hours at most, so this only spares the database a crowd of them at once.
FEED_MAX_AGE = 300


def player_feed_path(name: str) -> str:
    return PLAYER_FEED.format(name=quote(name, safe=""))


def feed_links(config: Config, player: str) -> tuple[str, str] | None:
    """The player's feed (`player`: their Lichess id, as the player's page is addressed)
    and the championship's, as people can reach them: only when the pages are served
    (`web.enabled`) at a known public address (`web.base_url`)."""
    if not config.web.enabled or not config.web.base_url:
        return None
    base = config.web.base_url
    return f"{base}{player_feed_path(player)}", f"{base}{CHAMPIONSHIP_FEED}"


def match_page(config: Config, match: FeedMatch) -> str:
    """The match's page on the site (the pages' `/matches/<row>/<round>/<board>`)."""
    return f"{config.web.public_url()}{match.page}"


def events(
    config: Config, matches: Sequence[FeedMatch], *, player: str | None = None
) -> list[CalendarEvent]:
    short_name = config.tournament.short_name
    return [
        CalendarEvent(
            match_id=m.match_id,
            start=m.start,
            sequence=m.sequence,
            summary=wording.summary(short_name, m, first=player),
            description=wording.description(m, match_page(config, m)),
            url=match_page(config, m),
            modified=m.modified,
        )
        for m in matches
    ]


def _answer(request: web.Request, body: bytes) -> web.StreamResponse:
    """The calendar, or 304 when the client's copy (its ETag) is the same."""
    tag = hashlib.sha256(body).hexdigest()[:32]
    headers = {"Cache-Control": f"public, max-age={FEED_MAX_AGE}", "ETag": f'"{tag}"'}
    if any(etag.value == tag for etag in request.if_none_match or ()):
        return web.Response(status=304, headers=headers)
    return web.Response(body=body, content_type=CONTENT_TYPE, charset="utf-8", headers=headers)


#: A feed built is served again for this long, and only while the audit log has no new row
#: (a time set, a game recorded, a result: nearly every change writes one), so a change shows
#: at once and one without an audit row within this. A whole championship's feed takes a few
#: hundred milliseconds to read at 500 players; served again, a millisecond.
KEEP_SECONDS = 30.0
KEPT_FEEDS = 1024  # feeds kept at most (the oldest goes first)

#: Seconds: a feed whose last build took less is built again on the loop (one player's:
#: a thread and a connection of its own would cost more than the build); well under
#: `QUICK`, so a build near it (which a busy moment may make several times slower) is not.
HERE = 0.01

Build = Callable[[AsyncSession], Awaitable[bytes | None]]


@dataclass
class _Kept:
    at: float  # time.monotonic() of the read
    mark: int | None  # the audit log's last row then
    body: bytes
    took: float  # seconds the build took


class Feeds:
    """The two feeds' handlers. A feed is built again when the audit log has a new row, in
    a worker thread with its own connection (`bot.rebuild`: at 500 players the championship's
    takes a few hundred milliseconds, which on the event loop every request would wait
    behind); meanwhile a request for it is answered with the feed built before (at most one
    rebuild late: a calendar application polls again by itself), unless that build was
    quick (`QUICK`), which it then waits for, so a small championship's feed shows a change
    at once. One build per feed at a time."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], config: Config) -> None:
        self.sessions = sessions
        self.config = config
        self._kept: dict[str, _Kept] = {}
        self._building: dict[str, asyncio.Task[bytes | None]] = {}

    def _head(self, name: str) -> CalendarHead:
        duration = timedelta(minutes=self.config.negotiation.finish_margin_minutes)
        return CalendarHead(name, self.config.tournament.short_name, duration, feed=True)

    def _calendar(self, found: Sequence[CalendarEvent], name: str) -> bytes:
        """No `now`: every event of a feed carries its own LAST-MODIFIED."""
        return calendar_bytes(found, self._head(name))

    async def _feed(self, key: str, build: Build) -> bytes | None:
        """The feed under `key` (None: no such feed): the one kept while the audit log is
        unchanged, else the one before while it is built again."""
        async with self.sessions() as session:
            mark = await audit_mark(session)
        now = time.monotonic()
        kept = self._kept.get(key)
        if kept is not None and kept.mark == mark and now - kept.at < KEEP_SECONDS:
            return kept.body
        quick = kept is not None and kept.took < QUICK
        task = self._building.get(key)
        if task is None or task.done():
            here = kept is not None and kept.took < HERE
            task = asyncio.create_task(self._renew(key, build, mark, now, here=here))
            self._building[key] = task
        if kept is None or quick:  # nothing to answer with, or soon
            return await asyncio.shield(task)
        return kept.body

    async def _renew(
        self, key: str, build: Build, mark: int | None, now: float, *, here: bool
    ) -> bytes | None:
        """Build the feed again: `here`, on the loop (`HERE`), else in a worker thread."""
        began = time.perf_counter()

        async def read(sessions: async_sessionmaker[AsyncSession]) -> bytes | None:
            async with sessions() as session:
                return await build(session)

        try:
            body = await (read(self.sessions) if here else off_the_loop(self.sessions, read))
        finally:
            self._building.pop(key, None)
        if body is not None:
            self._kept.pop(key, None)
            if len(self._kept) >= KEPT_FEEDS:
                self._kept.pop(next(iter(self._kept)))
            self._kept[key] = _Kept(now, mark, body, time.perf_counter() - began)
        return body

    async def _championship(self, session: AsyncSession) -> bytes:
        matches = await feed_matches(session, self.config)
        name = wording.championship_name(self.config.tournament.name)
        return self._calendar(events(self.config, matches), name)

    async def championship(self, request: web.Request) -> web.StreamResponse:
        body = await self._feed("", self._championship)
        assert body is not None
        return _answer(request, body)

    async def player(self, request: web.Request) -> web.StreamResponse:
        asked = request.match_info["name"]

        async def build(session: AsyncSession) -> bytes | None:
            player = await player_named(session, asked)
            if player is None:
                return None
            me = player.lichess_username
            matches = await feed_matches(session, self.config, player=player)
            found = events(self.config, matches, player=me)
            return self._calendar(found, wording.player_calendar_name(short_name, me))

        short_name = self.config.tournament.short_name
        body = await self._feed(f"player:{asked.strip().lower()}", build)
        if body is None:
            return page(
                "message.html",
                status=404,
                title=wording.unknown_player_title(),
                site=short_name,
                message=wording.unknown_player(asked, short_name),
                link="/",
                link_text=wording.HOME_LINK,
            )
        return _answer(request, body)


def routes(deps: WebDeps) -> list[web.AbstractRouteDef]:
    """The feeds' routes, for the wiring to give the web feature (`app_for(deps, others)`)."""
    feeds = Feeds(deps.sessions, deps.config)
    return [web.get(CHAMPIONSHIP_FEED, feeds.championship), web.get(PLAYER_FEED, feeds.player)]
