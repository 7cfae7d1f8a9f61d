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

import hashlib
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING
from urllib.parse import quote

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.config import Config
from bot.features.schedule import feed_text as wording
from bot.features.schedule.feed_read import FeedMatch, feed_matches, player_named
from bot.features.schedule.ics import CalendarEvent, CalendarHead, calendar_bytes
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
    """The player's feed and the championship's, as people can reach them: only when the
    pages are served (`web.enabled`) at a known public address (`web.base_url`)."""
    if not config.web.enabled or not config.web.base_url:
        return None
    base = config.web.base_url
    return f"{base}{player_feed_path(player)}", f"{base}{CHAMPIONSHIP_FEED}"


def match_page(config: Config, match: FeedMatch) -> str:
    """The match's page. The pages' addresses are not settled yet, so every event links
    the site's home page for now."""
    return f"{config.web.public_url()}/"


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


class Feeds:
    """The two feeds' handlers, reading the database in one short session each."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], config: Config) -> None:
        self.sessions = sessions
        self.config = config

    def _head(self, name: str) -> CalendarHead:
        duration = timedelta(minutes=self.config.negotiation.finish_margin_minutes)
        return CalendarHead(name, self.config.tournament.short_name, duration, feed=True)

    def _calendar(self, found: Sequence[CalendarEvent], name: str) -> bytes:
        """No `now`: every event of a feed carries its own LAST-MODIFIED."""
        return calendar_bytes(found, self._head(name))

    async def championship(self, request: web.Request) -> web.StreamResponse:
        async with self.sessions() as session:
            matches = await feed_matches(session, self.config)
        name = wording.championship_name(self.config.tournament.name)
        return _answer(request, self._calendar(events(self.config, matches), name))

    async def player(self, request: web.Request) -> web.StreamResponse:
        asked = request.match_info["name"]
        async with self.sessions() as session:
            player = await player_named(session, asked)
            matches = (
                [] if player is None else await feed_matches(session, self.config, player=player)
            )
        short_name = self.config.tournament.short_name
        if player is None:
            return page(
                "message.html",
                status=404,
                title=wording.unknown_player_title(),
                site=short_name,
                message=wording.unknown_player(asked, short_name),
                link="/",
                link_text=wording.HOME_LINK,
            )
        me = player.lichess_username
        found = events(self.config, matches, player=me)
        name = wording.player_calendar_name(short_name, me)
        return _answer(request, self._calendar(found, name))


def routes(deps: WebDeps) -> list[web.AbstractRouteDef]:
    """The feeds' routes, for the wiring to give the web feature (`app_for(deps, others)`)."""
    feeds = Feeds(deps.sessions, deps.config)
    return [web.get(CHAMPIONSHIP_FEED, feeds.championship), web.get(PLAYER_FEED, feeds.player)]
