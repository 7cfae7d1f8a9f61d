"""The calendar feeds on the web: `/calendar.ics` and `/players/{name}/calendar.ics`, read
by a standard iCalendar parser as a calendar application would read them after a
subscription, while the championship's services move times and record results."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from typing import Any

import pytest
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient, TestServer
from icalendar import Calendar
from multidict import CIMultiDict
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config, WebConfig
from bot.features.schedule.feed_read import match_path
from bot.features.schedule.feeds import FEED_MAX_AGE, feed_links, routes
from bot.features.web.deps import WebDeps
from bot.features.web.server import build_app
from bot.wiring import Services
from db.engine import transaction
from db.models import (
    CheatReport,
    Match,
    Player,
    Registration,
    RegistrationState,
    ReportState,
    Stage,
)
from tests.conftest import TD_ID
from tests.factories import wired
from tests.features.schedule.test_cog import (
    CAROL,
    CHALLENGE,
    DAVE,
    EVE,
    FRI_18,
    ROUND1_TIME,
    WED_19,
    round_two_day,
    td_fixes_alice_eve,
    two_rounds,
)
from tests.running import ALICE, BOB

THREAD = 987654321012345678
SECRET = "the reporter thinks Alice used an engine"
TD_NOTE = "watch Alice's next games"
ALL_DISCORD_IDS = (ALICE, BOB, CAROL, DAVE, EVE, TD_ID, THREAD)


@pytest.fixture
def services(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> Services:
    return wired(sessions, config, clock)


async def fetch(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock, path: str
) -> tuple[int, CIMultiDict[str], bytes]:
    """One GET of the feeds' routes as the web server serves them: status, headers, body."""
    app = build_app(WebDeps(sessions, config, clock, read_only=True), [routes])
    async with TestClient(TestServer(app)) as client:
        answer = await client.get(path)
        return answer.status, CIMultiDict(answer.headers), await answer.read()


def events_of(body: bytes) -> dict[str, dict[str, object]]:
    """The feed's events by UID, decoded (it must parse, as a calendar application's would)."""
    calendar = Calendar.from_ical(body)
    assert str(calendar["version"]) == "2.0" and "ACWC 2019" in str(calendar["prodid"])
    assert "method" not in calendar  # a subscribed feed: DTSTAMP means "last revised"
    found: dict[str, dict[str, object]] = {}
    for event in calendar.walk("VEVENT"):
        uid = str(event["uid"])
        assert uid not in found, f"two events for {uid}"
        found[uid] = {
            "start": event.decoded("dtstart"),
            "end": event.decoded("dtend"),
            "stamp": event.decoded("dtstamp"),
            "modified": event.decoded("last-modified"),
            "sequence": int(event["sequence"]),
            "summary": str(event["summary"]),
            "description": str(event["description"]),
            "url": str(event["url"]),
        }
    return found


def uid(match_id: int) -> str:
    return f"match-{match_id}@acwc-2019.acwc"


async def after_rebuild(client: TestClient[Any, Any], etag: str) -> ClientResponse:
    """The feed once it changed from `etag`: a request while the feed is built again may get
    the one before (`Feeds`: at most one rebuild late, unless the build is quick, which on a
    loaded machine it may not be), as a calendar application's next poll would not."""
    for _ in range(200):
        answer = await client.get("/calendar.ics", headers={"If-None-Match": etag})
        if answer.status != 304:
            return answer
        await asyncio.sleep(0.02)
    raise AssertionError("the feed did not change")


async def test_the_championship_feed_follows_a_time_change_and_a_result(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    services: Services,
) -> None:
    ids = await round_two_day(sessions, config, clock)
    agreed_at = clock.now()
    await td_fixes_alice_eve(services.rulings, ids)
    # One server throughout, as a subscriber's calendar polls it: what it keeps between
    # requests must not hide a change.
    app = build_app(WebDeps(sessions, config, clock, read_only=True), [routes])
    async with TestClient(TestServer(app)) as client:
        answer = await client.get("/calendar.ics")
        status, headers, body = answer.status, answer.headers, await answer.read()
        assert status == 200
        assert headers["Content-Type"] == "text/calendar; charset=utf-8"
        assert headers["Cache-Control"] == f"public, max-age={FEED_MAX_AGE}"
        lines = body.split(b"\r\n")
        assert b"\n" not in b"".join(lines)  # CRLF line endings only (RFC 5545 3.1)
        assert max(len(line) for line in lines) <= 75  # folded at 75 octets
        assert b"REFRESH-INTERVAL;VALUE=DURATION:PT1H" in lines
        assert b"X-PUBLISHED-TTL:PT1H" in lines
        assert b"DTSTART:20191009T190000Z" in body  # UTC, no VTIMEZONE needed
        assert b"VTIMEZONE" not in body
        assert b"X-WR-CALNAME:Antichess World Championship 2019" in lines
        events = events_of(body)
        # One event per match with an agreed time: not the forfeit without one, not
        # Bob-Carol (still negotiating), not the byes.
        assert set(events) == {uid(ids["alice_bob"]), uid(ids["alice_eve"])}
        wed = events[uid(ids["alice_eve"])]
        assert wed["start"] == WED_19
        assert wed["end"] == WED_19 + timedelta(minutes=config.negotiation.finish_margin_minutes)
        assert wed["sequence"] == 0 and wed["modified"] == wed["stamp"] == agreed_at
        assert wed["summary"] == "ACWC 2019 Swiss round 2, board 1: Alice vs Eve"
        assert "Result" not in str(wed["description"])
        assert "The game link is posted at the agreed time." in str(wed["description"])
        assert wed["url"] == f"{config.web.public_url()}/matches/swiss/2/1"  # the match's page
        assert f"More: {wed['url']}" in str(wed["description"])

        # Nothing changed: the same bytes (no "now" in a feed), and 304 for the same ETag.
        same = await client.get("/calendar.ics", headers={"If-None-Match": headers["ETag"]})
        assert same.status == 304 and await same.read() == b""
        assert await (await client.get("/calendar.ics")).read() == body

        # The TD moves the match: the same event (same UID), a new start, a higher SEQUENCE.
        clock.advance(timedelta(hours=2))
        moved_at = clock.now()
        await services.rulings.assign_time(
            td_id=TD_ID, match_id=ids["alice_eve"], text="2019-10-11 18:00"
        )
        changed = await after_rebuild(client, headers["ETag"])
        assert changed.status == 200 and changed.headers["ETag"] != headers["ETag"]
        moved = events_of(await changed.read())
        assert set(moved) == set(events)
        fri = moved[uid(ids["alice_eve"])]
        assert fri["start"] == FRI_18 and fri["sequence"] == 1
        assert fri["modified"] == fri["stamp"] == moved_at
        assert moved[uid(ids["alice_bob"])] == events[uid(ids["alice_bob"])]  # untouched

        # The match ends (the TD records the score): the event gives the result, one
        # version on.
        clock.set(FRI_18 + timedelta(hours=1))
        await services.rounds.set_score(
            td_id=TD_ID, match_id=ids["alice_eve"], score_a=6, score_b=4, reason=None
        )
        done = events_of(await (await after_rebuild(client, changed.headers["ETag"])).read())
    ended = done[uid(ids["alice_eve"])]
    assert ended["start"] == FRI_18 and ended["sequence"] == 2
    assert ended["modified"] == clock.now()
    assert "Result: Alice 6–4 Eve (Alice won)." in str(ended["description"])
    assert "game link is posted" not in str(ended["description"])


async def test_a_finished_match_says_its_result_and_its_counted_games(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    ids = await two_rounds(sessions, config)
    events = events_of((await fetch(sessions, config, clock, "/calendar.ics"))[2])
    played = events[uid(ids["alice_bob"])]
    assert played["start"] == ROUND1_TIME
    assert played["summary"] == "ACWC 2019 Swiss round 1, board 1: Alice vs Bob"
    description = str(played["description"])
    assert "Result: Alice 0.5–2.5 Bob (Bob won)." in description
    counted = [f"https://lichess.org/{g}" for g in ("game0001", "game0002", "game0004")]
    assert f"Games: 1. {counted[0]} 2. {counted[1]} 3. {counted[2]}" in description
    assert "void0003" not in description and CHALLENGE not in description
    # Decided with no audit row of its own (set straight in the database): one version.
    assert played["sequence"] == 1


async def test_a_players_feed_has_only_their_matches_whatever_the_case_of_the_name(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    services: Services,
) -> None:
    ids = await round_two_day(sessions, config, clock)
    await services.rulings.assign_time(td_id=TD_ID, match_id=ids["bob_carol"], text="wed 19:00")

    status, headers, body = await fetch(sessions, config, clock, "/players/aLiCe/calendar.ics")
    assert status == 200 and headers["Content-Type"] == "text/calendar; charset=utf-8"
    assert b"X-WR-CALNAME:ACWC 2019: Alice's matches" in body
    assert set(events_of(body)) == {uid(ids["alice_bob"])}

    carol = events_of((await fetch(sessions, config, clock, "/players/carol/calendar.ics"))[2])
    assert set(carol) == {uid(ids["bob_carol"])}
    # The player whose calendar it is comes first; the championship's keeps the pairing.
    assert carol[uid(ids["bob_carol"])]["summary"] == (
        "ACWC 2019 Swiss round 2, board 2: Carol vs Bob"
    )
    everyone = events_of((await fetch(sessions, config, clock, "/calendar.ics"))[2])
    assert everyone[uid(ids["bob_carol"])]["summary"] == (
        "ACWC 2019 Swiss round 2, board 2: Bob vs Carol"
    )
    # Same UID and version in both feeds: the same match, the same event.
    assert carol[uid(ids["bob_carol"])]["sequence"] == everyone[uid(ids["bob_carol"])]["sequence"]

    # Dave (a forfeit without a time, then a bye) has a valid calendar with no event.
    status, _, empty = await fetch(sessions, config, clock, "/players/Dave/calendar.ics")
    assert status == 200 and events_of(empty) == {}


async def test_an_unknown_or_unannounced_player_is_a_404_page(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    await two_rounds(sessions, config)
    async with transaction(sessions) as session:
        pending = Player(lichess_id="waiting", lichess_username="Waiting", created_at=clock.now())
        session.add(pending)
        await session.flush()
        session.add(
            Registration(
                player_id=pending.id,
                state=RegistrationState.PENDING,
                created_at=clock.now(),
                updated_at=clock.now(),
            )
        )
    status, _, body = await fetch(sessions, config, clock, "/players/%3Cb%3Ex/calendar.ics")
    assert status == 404 and "no player named &lt;b&gt;x," in body.decode()
    for name in ("nobody", "Waiting"):
        status, headers, body = await fetch(
            sessions, config, clock, f"/players/{name}/calendar.ics"
        )
        assert status == 404 and headers["Content-Type"].startswith("text/html")
        page = body.decode()
        assert f"ACWC 2019 has no player named {name}, so there is no calendar" in page
        assert "BEGIN:VCALENDAR" not in page


async def test_no_private_data_and_no_discord_id_in_any_feed(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    services: Services,
) -> None:
    ids = await round_two_day(sessions, config, clock)
    await td_fixes_alice_eve(services.rulings, ids)
    async with transaction(sessions) as session:
        match = await session.get(Match, ids["alice_eve"])
        assert match is not None
        match.thread_id, match.message_id = THREAD, THREAD + 1
        session.add(
            CheatReport(
                reporter_discord_id=BOB,
                accused_player_id=match.player_a_id,
                game_links="https://lichess.org/game0001",
                description=SECRET,
                state=ReportState.OPEN,
                td_note=TD_NOTE,
                created_at=clock.now(),
                updated_at=clock.now(),
            )
        )
    paths = ["/calendar.ics", *(f"/players/{n}/calendar.ics" for n in ("Alice", "Bob", "Eve"))]
    for path in paths:
        status, _, body = await fetch(sessions, config, clock, path)
        assert status == 200
        # Unfolded, so a word cut by a line fold is found too.
        text = body.decode().replace("\r\n ", "").replace("\\n", "\n")
        assert events_of(body), path
        assert SECRET not in text and TD_NOTE not in text and "engine" not in text
        for discord_id in ALL_DISCORD_IDS:
            assert not re.search(rf"(?<!\d){discord_id}(?!\d)", text), (path, discord_id)
        # No database id in the words people read (issue 32): matches go by place.
        assert not re.search(r"[Mm]atch #?\d", text), path


def test_the_feeds_are_public_urls_only_when_the_site_has_an_address(config: Config) -> None:
    assert feed_links(config, "Alice") is None  # web off
    served = config.model_copy(update={"web": WebConfig(enabled=True)})
    assert feed_links(served, "Alice") is None  # on, but nobody outside knows its address
    public = config.model_copy(
        update={"web": WebConfig(enabled=True, base_url="https://acwc.example.org/")}
    )
    assert feed_links(public, "alice") == (
        "https://acwc.example.org/players/alice/calendar.ics",
        "https://acwc.example.org/calendar.ics",
    )


def test_a_match_links_its_page_by_stage_row_round_and_board() -> None:
    """The pages' addresses (bot/features/web/model.py): a pool's row is `<key>-<pool>`."""
    swiss = Stage(key="swiss", pool="")
    pool = Stage(key="candidates", pool="upper")
    assert match_path(swiss, 3, 2) == "/matches/swiss/3/2"
    assert match_path(pool, 1, 2) == "/matches/candidates-upper/1/2"
