"""The public pages and their JSON twins (issue 33) over a 2024 championship played to its
end by the services (tests/features/rounds/test_format_flow.py's way): the Swiss, two
Candidates pools, the Semifinals, the Grand Final and the Third Place Playoff.

Every page answers with what a reader needs (standings with the chain's columns and a
legend, crosstables, the bracket, the Grand Final game by game, each player's seeding
evidence and matches), its JSON twin carries the same facts, an unknown stage, player or
match is a 404, and nothing private is served (a cheat report's text, a TD's note on a
registration, a Discord id)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor, record
from bot.clock import FakeClock
from bot.config import Config
from bot.features.web.deps import WebDeps
from bot.features.web.routes import app_for
from bot.wiring import WEB_PARTS
from db.engine import transaction
from db.models import (
    CheatReport,
    Game,
    Match,
    Player,
    Registration,
    RegistrationState,
    ReportState,
    Round,
    RoundState,
    Stage,
)
from tests.conftest import TD_ID
from tests.features.rounds.test_format_flow import (
    NOW,
    SWISS_10,
    decide_final,
    open_matches,
    play_pool,
    swiss_2024_played,
)

SECRET_REPORT = "SECRET-REPORT-TEXT p01 used an engine"
SECRET_NOTE = "TD-ONLY-NOTE about p01"
DISCORD_ID = 987654321012345678
CUTOFF_GAME = "https://lichess.org/cutoff01"
PEAK_GAME = "https://lichess.org/peakgm01"


@dataclass
class Played:
    config: Config
    grand_final: int
    champion: str


async def _play_2024(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> Played:
    """The 2024 format from the Swiss to the champion: seed order wins everywhere but the
    Semifinal 1 and the Grand Final, whose games are stored."""
    config, services = await swiss_2024_played(sessions, config, clock)
    async with sessions() as session:
        pools = {
            s.pool: s for s in await session.scalars(select(Stage).where(Stage.key == "candidates"))
        }
        names = {p.id: p.lichess_username for p in await session.scalars(select(Player))}
    for pool, row in pools.items():
        await play_pool(services, sessions, "candidates", pool, [names[i] for i in row.seeding])
    semis = await open_matches(sessions, "semifinals")
    await services.rounds.set_score(
        td_id=TD_ID, match_id=semis[0][0], score_a=4.0, score_b=6.0, reason=None
    )
    await services.rounds.set_score(
        td_id=TD_ID, match_id=semis[1][0], score_a=6.0, score_b=4.0, reason=None
    )
    ((grand, _, b),) = await open_matches(sessions, "grand_final")
    ((third, _, _),) = await open_matches(sessions, "third_place")
    async with transaction(sessions) as session:
        match = await session.get(Match, grand)
        assert match is not None
        for number in range(1, 13):  # b wins the odd games, the even ones are drawn
            white, black = (match.player_a_id, match.player_b_id) if number % 2 else (
                match.player_b_id, match.player_a_id
            )  # fmt: skip
            assert white is not None and black is not None
            session.add(
                Game(
                    match_id=grand,
                    lichess_id=f"gfgame{number:02}",
                    number=number,
                    white_player_id=white,
                    black_player_id=black,
                    status="mate" if number % 2 else "draw",
                    winner="black" if number % 2 else None,
                    result_a=0.0 if number % 2 else 0.5,
                    created_at=NOW,
                    ended_at=NOW,
                )
            )
        match.agreed_time = NOW + timedelta(days=1)
        p01 = await session.scalar(select(Player).where(Player.lichess_id == "p01"))
        assert p01 is not None
        p01.discord_id = DISCORD_ID
        registration = await session.scalar(
            select(Registration).where(Registration.player_id == p01.id)
        )
        assert registration is not None
        registration.rating_at_cutoff, registration.rating_at_cutoff_game = 1990, CUTOFF_GAME
        registration.peak_rating, registration.peak_rating_game = 2010, PEAK_GAME
        registration.td_comment = SECRET_NOTE
        session.add(
            CheatReport(
                reporter_discord_id=DISCORD_ID,
                accused_player_id=p01.id,
                game_links="https://lichess.org/gfgame01",
                description=SECRET_REPORT,
                state=ReportState.OPEN,
                td_note=SECRET_NOTE,
                created_at=NOW,
                updated_at=NOW,
            )
        )
    await decide_final(services, sessions, third, 7.0, 5.0)
    await decide_final(services, sessions, grand, 3.0, 9.0)
    return Played(config, grand, b)


@pytest.fixture
async def played(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> Played:
    return await _play_2024(sessions, config, clock)


@pytest.fixture
async def client(
    played: Played, sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> AsyncIterator[TestClient[Any, Any]]:
    app = app_for(WebDeps(sessions, played.config, clock, read_only=True), WEB_PARTS)
    async with TestClient(TestServer(app)) as test_client:
        yield test_client


async def _page(client: TestClient[Any, Any], path: str) -> tuple[str, dict[str, Any]]:
    """The page's HTML and its JSON twin (`.json` added; the home page's is /index.json)."""
    html = await client.get(path)
    assert html.status == 200, path
    assert html.headers["Content-Type"].startswith("text/html")
    assert html.headers["Cache-Control"] == "public, max-age=30"
    twin = await client.get("/index.json" if path == "/" else path + ".json")
    assert twin.status == 200, path
    return await html.text(), await twin.json()


def _visible(html: str) -> str:
    """The page's text as read (tags dropped), for facts split by links."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


async def test_home_names_the_stages_and_the_champion(
    client: TestClient[Any, Any], played: Played
) -> None:
    html, data = await _page(client, "/")
    assert "<h1>Antichess World Championship 2024</h1>" in html
    keys = [s["key"] for s in data["stages"]]
    assert keys == [s.key for s in played.config.format.stages]
    assert {s["state"] for s in data["stages"]} == {"finished"}
    for stage in data["stages"]:
        assert f'<a href="/stages/{stage["key"]}">{stage["name"]}</a>' in html
    assert data["champion"]["player"]["name"] == played.champion
    assert f'<a href="/champion">{played.champion}</a> is the champion' in html
    assert data["registration"]["open"] is False


async def test_the_swiss_has_every_tiebreak_column_and_a_legend(
    client: TestClient[Any, Any], played: Played
) -> None:
    html, data = await _page(client, "/stages/swiss")
    (section,) = data["sections"]
    heads = [c["head"] for c in section["standings"]["columns"]]
    # the 2024 chain: Median-Buchholz, cumulative, Kashdan, seed (the format's, in order)
    chain = played.config.format.stage("swiss").tiebreaks  # type: ignore[union-attr]
    assert len(heads) == 3 + len(chain)
    assert heads[:3] == ["No", "Player", "Pts"]
    assert "MBH" in heads and "Seed" in heads
    for head in heads[2:]:
        assert f'<th class="num">{head}</th>' in html
    assert "Median-Buchholz" in html and "<dt>MBH</dt>" in html
    rows = section["standings"]["rows"]
    assert [r["player"]["name"] for r in rows[:5]] == ["P01", "P03", "P05", "P07", "P09"]
    assert rows[0]["values"][0] == 1.0
    assert section["latest_round"]["number"] == 1
    assert len(section["latest_round"]["matches"]) == 5
    assert "Swiss round 1, board 1" in html


async def test_a_pooled_round_robin_has_a_crosstable_per_pool(
    client: TestClient[Any, Any],
) -> None:
    html, data = await _page(client, "/stages/candidates")
    assert [s["name"] for s in data["sections"]] == ["Upper pool", "Lower pool"]
    for section in data["sections"]:
        table = section["crosstable"]
        size = len(table["players"])
        assert size == 6 and all(len(row) == size for row in table["cells"])
        # every pair met once: a cell each way, a blank on the diagonal
        assert sum(cell is not None for row in table["cells"] for cell in row) == size * (size - 1)
        assert [c["head"] for c in section["standings"]["columns"]][2:] == ["MP", "GP", "M"]
        assert len(section["rounds"]) == 5
    assert "<h2>Upper pool</h2>" in html and "<h2>Lower pool</h2>" in html
    assert 'href="/matches/candidates-upper/1/1"' in html
    assert 'href="/stages/candidates/rounds/5"' in html


async def test_the_knockout_and_finals_are_one_bracket(
    client: TestClient[Any, Any], played: Played
) -> None:
    html, data = await _page(client, "/stages/semifinals")
    bracket = data["bracket"]
    assert [s["key"] for s in bracket["stages"]] == ["semifinals", "grand_final", "third_place"]
    first, second = bracket["columns"]
    assert [m["name"] for m in first["matches"]] == ["Semifinal 1", "Semifinal 2"]
    assert [m["name"] for m in second["matches"]] == ["Grand Final", "Third Place Playoff"]
    final = second["matches"][0]
    assert [s["player"]["name"] for s in final["slots"]] == ["P05", "P01"]
    assert [s["won"] for s in final["slots"]] == [False, True]
    assert 'class="slot won"' in html and "Semifinal 1" in html


async def test_the_grand_final_game_by_game(client: TestClient[Any, Any], played: Played) -> None:
    html, data = await _page(client, "/stages/grand_final")
    board = data["sections"][0]["scoreboard"]
    assert board["name"] == "Grand Final" and board["score"] == [3.0, 9.0]
    assert len(board["games"]) == 12
    assert board["games"][0]["url"] == "https://lichess.org/gfgame01"
    assert board["games"][-1]["score_text"] == "3–9"
    assert 'href="https://lichess.org/gfgame12"' in html


async def test_a_match_page_has_its_games_score_and_time(
    client: TestClient[Any, Any], played: Played
) -> None:
    html, data = await _page(client, "/matches/grand_final/1/1")
    match = data["match"]
    assert data["title"] == "Grand Final"
    assert (match["a"]["name"], match["b"]["name"]) == ("P05", "P01")
    assert match["score_text"] == "3–9" and match["winner"]["name"] == "P01"
    assert match["agreed_time"] == (NOW + timedelta(days=1)).isoformat()
    assert f'<time datetime="{match["agreed_time"]}">Thu 21 Nov 2024, 12:00 UTC</time>' in html
    assert [g["result"] for g in match["games"][:2]] == ["0–1", "½–½"]
    assert 'href="https://lichess.org/gfgame07"' in html
    assert "P05 3–9 P01" in _visible(html)


async def test_a_round_page_lists_the_pairings(client: TestClient[Any, Any]) -> None:
    html, data = await _page(client, "/stages/swiss/rounds/1")
    (section,) = data["sections"]
    assert [m["board"] for m in section["matches"]] == [1, 2, 3, 4, 5]
    assert section["matches"][0]["name"] == "Swiss round 1, board 1"
    assert section["matches"][0]["score_text"] == "6–0"
    assert "P01 vs P02" in _visible(html)


async def test_a_player_page_has_the_seeding_evidence_and_every_match(
    client: TestClient[Any, Any], played: Played
) -> None:
    html, data = await _page(client, "/players/p01")
    assert data["name"] == "P01" and data["seed"] == 1
    assert data["rating_at_cutoff"] == {"rating": 1990, "game": CUTOFF_GAME}
    assert data["peak_rating"] == {"rating": 2010, "game": PEAK_GAME}
    assert f'<a href="{CUTOFF_GAME}">1990</a>' in html and f'<a href="{PEAK_GAME}">2010</a>' in html
    names = [m["name"] for m in data["matches"]]
    assert names[0] == "Swiss round 1, board 1" and names[-1] == "Grand Final"
    assert "Semifinal 2" in names
    assert data["matches"][-1]["result"] == "won"
    entered = [(s["key"], s["rule"]) for s in data["stages"]]
    assert entered == [
        ("swiss", "registered"), ("candidates", "top"), ("semifinals", "pool_places"),
        ("grand_final", "winners"),
    ]  # fmt: skip
    for name in names:
        assert name in html


async def test_the_field_and_the_champion(client: TestClient[Any, Any], played: Played) -> None:
    html, data = await _page(client, "/field")
    assert [e["player"]["name"] for e in data["entries"]] == SWISS_10
    assert data["entries"][0]["rating_at_cutoff_game"] == CUTOFF_GAME
    assert {p["role"] for p in data["pre_seeded"]} == {"champion", "runner_up"}
    assert "P10" in html and "previous champion" in html
    html, data = await _page(client, "/champion")
    assert data["champion"]["name"] == played.champion == "P01"
    assert [(p["place"], p["player"]["name"]) for p in data["places"]] == [
        (1, "P01"), (2, "P05"), (3, "P03"), (4, "P07"),
    ]  # fmt: skip
    assert "is the Antichess World Championship 2024 champion" in html


@pytest.mark.parametrize(
    "path",
    [
        "/stages/no_such_stage",
        "/players/nobody",
        "/matches/swiss/9/1",
        "/matches/swiss/x/1",
        "/stages/swiss/rounds/7",
    ],
)
async def test_an_unknown_page_is_a_404(client: TestClient[Any, Any], path: str) -> None:
    html = await client.get(path)
    assert html.status == 404
    assert "There is no such page" in await html.text()
    twin = await client.get(path + ".json")
    assert twin.status == 404 and (await twin.json()) == {"error": "not_found"}


async def test_nothing_private_is_served(client: TestClient[Any, Any]) -> None:
    """Every page and twin linked from the home page, two levels deep: no cheat report, no
    TD note, no Discord id."""
    seen: set[str] = set()
    todo = ["/"]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        twin = "/index.json" if path == "/" else path + ".json"
        for variant in (path,) if path.endswith(".ics") else (path, twin):  # a feed: no twin
            answer = await client.get(variant)
            assert answer.status == 200, variant
            body = await answer.text()
            for secret in (SECRET_REPORT, SECRET_NOTE, "TD-ONLY", str(DISCORD_ID), "engine"):
                assert secret not in body, (variant, secret)
        html = await (await client.get(path)).text()
        todo += [
            link
            for link in re.findall(r'href="(/[^"]*)"', html)
            if not link.startswith("/static") and not link.endswith(".json")
        ]
    assert "/players/p01" in seen and "/matches/grand_final/1/1" in seen
    assert len(seen) > 40


async def test_an_etag_answers_304(client: TestClient[Any, Any]) -> None:
    first = await client.get("/stages/swiss")
    tag = first.headers["ETag"]
    again = await client.get("/stages/swiss", headers={"If-None-Match": tag})
    assert again.status == 304
    twin = await client.get("/stages/swiss.json")
    assert twin.headers["ETag"] != tag  # the twin is another representation


async def test_while_registration_is_open_nothing_of_the_entries_shows(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    """The field is public at the close (issue 22): before it, no entry has a page."""
    async with transaction(sessions) as session:
        player = Player(lichess_id="early", lichess_username="Early", created_at=clock.now())
        session.add(player)
        await session.flush()
        session.add(
            Registration(
                player_id=player.id,
                state=RegistrationState.APPROVED,
                problems=[],
                evidence={},
                created_at=clock.now(),
                updated_at=clock.now(),
            )
        )
    app = app_for(WebDeps(sessions, config, clock, read_only=True), WEB_PARTS)
    async with TestClient(TestServer(app)) as client:
        html, data = await _page(client, "/")
        assert data["registration"]["open"] is True
        assert data["next"][0]["text"].startswith("Registration is open until")
        assert "Registration is open until" in html
        html, data = await _page(client, "/field")
        assert data["open"] is True and data["entries"] == []
        assert "Early" not in html
        assert (await client.get("/players/early")).status == 404


async def test_a_draft_round_is_not_shown(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    """A round the TD previews (a draft) is not public until it is published."""
    played = await _play_2024(sessions, config, clock)
    async with transaction(sessions) as session:
        match = await session.get(Match, played.grand_final)
        assert match is not None
        row = await session.get(Round, match.round_id)
        assert row is not None
        row.state = RoundState.DRAFT
    app = app_for(WebDeps(sessions, played.config, clock, read_only=True), WEB_PARTS)
    async with TestClient(TestServer(app)) as client:
        assert (await client.get("/matches/grand_final/1/1")).status == 404
        _, data = await _page(client, "/stages/grand_final")
        assert data["sections"][0]["scoreboard"] is None


async def test_a_change_shows_once_the_site_is_read_again(
    client: TestClient[Any, Any], played: Played, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """Every state change is audited: a new audit entry makes the next request read the
    database again (a request waits for that read only briefly, then the page before)."""
    before = await (await client.get("/matches/grand_final/1/1.json")).json()
    later = NOW + timedelta(days=2)
    async with transaction(sessions) as session:
        match = await session.get(Match, played.grand_final)
        assert match is not None
        match.agreed_time = later
        record(
            session,
            at=NOW,
            actor=Actor.td(TD_ID),
            action="match_time_set",
            subject_type="match",
            subject_id=match.id,
        )
    assert before["match"]["agreed_time"] != later.isoformat()
    for _ in range(100):
        answer = await (await client.get("/matches/grand_final/1/1.json")).json()
        if answer["match"]["agreed_time"] == later.isoformat():
            break
        await asyncio.sleep(0.02)
    assert answer["match"]["agreed_time"] == later.isoformat()
