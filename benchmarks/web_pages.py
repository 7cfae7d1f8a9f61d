"""How fast the public pages answer with 500 players (issue 33: every page under 100 ms p99).

The database holds a 2019 championship in its Qualification (the Swiss, the biggest stage:
the other stages have a handful of players): 500 approved players with their seeding
evidence, every round but the last finished (each match played game by game until the rules
end it), the last round published with a third of its matches finished, a third with an
agreed time and a third still negotiating. The simulator would take over ten minutes at
this size (docs/MEASUREMENTS.md: 213 s at 256 players), so the rows are written directly,
as the other benchmarks do.

The site is the one `acwc site` serves (`bot.features.web.routes.app_for`, read-only),
in this process, asked with aiohttp's client over localhost. Each page kind (home, each
stage, a sample of players and of matches, their JSON twins, the calendar feeds) is asked
`--requests` times in turn. Two figures per kind, p50 / p99 / worst in ms:
- served: one request after another, the database unchanged (the pages' read is kept while
  the database's fingerprint holds, as it does between two results);
- after a change: an audit entry is written before each request (outside the timing), so
  every request finds the database changed, as the first reader after a result does: it
  sets off a rebuild (the site's read and pre-drawing, a feed's build) in a worker thread
  and is answered from the read before while one runs (a page is at most one rebuild
  late), so this measures how long a request waits beside a running rebuild.

Run: .venv/bin/python benchmarks/web_pages.py [--requests 200] [--changes 10] [--players 500]
     [--database-url postgresql+asyncpg://user:pass@host/db]   (default: a temporary SQLite
     file; the database is migrated with db.migrate and must be empty; ACWC_TEST_DATABASE
     is used when set and no URL is given)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.swiss_fill import pair, play
from bot.clock import FakeClock
from bot.config import Config, load_config
from bot.features.web.deps import WebDeps
from bot.features.web.routes import app_for
from bot.rules.match import match_points
from bot.rules.swiss import number_of_rounds
from bot.wiring import WEB_PARTS
from db import migrate
from db.engine import make_engine, make_sessionmaker, transaction
from db.models import (
    AuditEntry,
    Game,
    Match,
    MatchState,
    Player,
    Registration,
    RegistrationState,
    Round,
    RoundState,
    Setting,
    Stage,
    StageKind,
    StageState,
)

TARGET_MS = 100.0
SAMPLE = 25  # players and matches asked for, each kind


def bench_config(url: str) -> Config:
    return load_config(None, environ={"DATABASE_URL": url})


def site_app(deps: WebDeps) -> web.Application:
    """The site as `acwc site` serves it: the web feature's parts and the calendar feeds."""
    return app_for(deps, WEB_PARTS)


async def seed(sessions: async_sessionmaker[AsyncSession], config: Config, size: int) -> datetime:
    """The championship above; returns the moment the pages are asked for (the last
    round's Thursday)."""
    rng = random.Random(2019)
    start = config.swiss.first_round_start
    rounds = number_of_rounds(size)
    swiss = next(s for s in config.format.stages if s.key == "swiss")
    async with transaction(sessions) as session:
        players = [
            Player(lichess_id=f"player{i:03d}", lichess_username=f"Player{i:03d}",
                   discord_id=10_000 + i, seeding_rating=2400.0 - i,
                   created_at=start - timedelta(days=30))
            for i in range(size)
        ]  # fmt: skip
        session.add_all(players)
        await session.flush()
        session.add_all(
            Registration(player_id=p.id, state=RegistrationState.APPROVED, problems=[],
                         evidence={}, seeding_rating=p.seeding_rating,
                         rating_at_cutoff=int(p.seeding_rating or 0) - 20,
                         rating_at_cutoff_game=f"https://lichess.org/c{p.id:07d}",
                         peak_rating=int(p.seeding_rating or 0) + 20,
                         peak_rating_game=f"https://lichess.org/p{p.id:07d}",
                         created_at=p.created_at, updated_at=p.created_at)
            for p in players
        )  # fmt: skip
        session.add(Setting(key="registration_override", value="closed", updated_at=start))
        stage = Stage(kind=StageKind.SWISS, key=swiss.key, name=swiss.name, position=0,
                      state=StageState.RUNNING, total_rounds=rounds,
                      seeding=[p.id for p in players], started_at=start)  # fmt: skip
        session.add(stage)
        await session.flush()
        session.add(AuditEntry(at=start, actor_type="job", actor_id=None,
                               action="stage_started", subject_type="stage",
                               subject_id=stage.id, details={}))  # fmt: skip
        points = {p.id: 0.0 for p in players}
        met: set[tuple[int, int]] = set()
        for number in range(1, rounds + 1):
            begins = start + timedelta(days=7 * (number - 1))
            last = number == rounds
            round_ = Round(stage_id=stage.id, number=number,
                           state=RoundState.PUBLISHED if last else RoundState.FINISHED,
                           starts_at=begins, deadline=begins + timedelta(days=7, seconds=-1),
                           published_at=begins)  # fmt: skip
            session.add(round_)
            await session.flush()
            order = sorted(players, key=lambda p: (-points[p.id], -(p.seeding_rating or 0)))
            await add_matches(session, rng, round_, pair(order, met), points, last)
    return start + timedelta(days=7 * (rounds - 1) + 3, hours=12)


async def add_matches(
    session: AsyncSession,
    rng: random.Random,
    round_: Round,
    pairs: list[tuple[Player, Player]],
    points: dict[int, float],
    last: bool,
) -> None:
    """The round's matches: all finished, or in the last round a third each finished,
    agreed and negotiating."""
    games, audit = [], []
    for board, (a, b) in enumerate(pairs, start=1):
        match = Match(round_id=round_.id, player_a_id=a.id, player_b_id=b.id, board=board,
                      state=MatchState.NEGOTIATING, td_assigns=False, score_a=0.0,
                      score_b=0.0)  # fmt: skip
        session.add(match)
        await session.flush()
        agreed = round_.starts_at + timedelta(days=2, hours=18 + board % 5)
        if last and board % 3 == 1:
            continue
        match.state, match.agreed_time = MatchState.SCHEDULED, agreed
        if last and board % 3 == 2:
            continue
        results = play(rng, a, b)
        for number, result in enumerate(results, start=1):
            white, black = (a, b) if number % 2 else (b, a)
            games.append({"match_id": match.id, "lichess_id": f"g{match.id:05d}{number:02d}",
                          "number": number, "white_player_id": white.id,
                          "black_player_id": black.id, "status": "variantEnd",
                          "winner": None if result == 0.5 else "white", "result_a": result,
                          "counted": True, "flagged": False,
                          "created_at": agreed + timedelta(minutes=10 * number),
                          "ended_at": agreed + timedelta(minutes=10 * number + 8)})  # fmt: skip
            audit.append({"at": agreed + timedelta(minutes=10 * number + 8),
                          "actor_type": "job", "actor_id": None, "action": "game_recorded",
                          "subject_type": "match", "subject_id": match.id,
                          "details": {}})  # fmt: skip
        match.score_a, match.score_b = sum(results), sum(1 - r for r in results)
        match.points_a, match.points_b = match_points(match.score_a, match.score_b)
        match.state, match.finished_at = MatchState.FINISHED, agreed + timedelta(hours=2)
        points[a.id] += match.points_a
        points[b.id] += match.points_b
    await session.flush()
    if games:
        await session.execute(insert(Game), games)
        await session.execute(insert(AuditEntry), audit)


async def page_kinds(
    client: TestClient[web.Request, web.Application], rng: random.Random
) -> dict[str, list[str]]:
    """The addresses of each kind of page, found from the home page's and the stages' links
    as a reader finds them (players and matches: a sample of `SAMPLE`)."""
    import re

    def links(html: str, prefix: str) -> list[str]:
        return sorted({h for h in re.findall(r'href="([^"#?]+)"', html) if h.startswith(prefix)})

    home = await (await client.get("/")).text()
    stages = [s for s in links(home, "/stages/") if s.count("/") == 2]
    found: dict[str, set[str]] = {"players": set(), "matches": set(), "rounds": set()}
    for stage in stages:
        html = await (await client.get(stage)).text()
        found["players"] |= set(links(html, "/players/"))
        found["matches"] |= set(links(html, "/matches/"))
        found["rounds"] |= set(links(html, stage + "/rounds/"))
    kinds = {"home": ["/"], "field": ["/field"], "champion": ["/champion"]}
    kinds |= {f"stage {s.rsplit('/', 1)[1]}": [s] for s in stages}
    for kind in ("rounds", "players", "matches"):
        pages = sorted(p for p in found[kind] if not p.endswith(".ics"))
        kinds[kind] = rng.sample(pages, min(SAMPLE, len(pages)))
    kinds["calendar (all)"] = ["/calendar.ics"]
    kinds["calendar (player)"] = [p.rstrip("/") + "/calendar.ics" for p in kinds["players"]]
    for kind in ("home", "players", "matches"):
        kinds[f"{kind} json"] = [("/index" if p == "/" else p) + ".json" for p in kinds[kind]]
    for kind, urls in list(kinds.items()):
        if (await client.get(urls[0])).status == 404:
            print(f"{kind}: {urls[0]} is not served by this build, left out")
            del kinds[kind]
    return kinds


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98]


async def timed(
    client: TestClient[web.Request, web.Application],
    kinds: dict[str, list[str]],
    requests: int,
    before: Callable[[], Awaitable[None]] | None = None,
) -> dict[str, list[float]]:
    """`requests` answers per page kind, its addresses in turn; ms each."""
    found: dict[str, list[float]] = {}
    for kind, urls in kinds.items():
        found[kind] = []
        for index in range(requests):
            if before is not None:
                await before()
            began = time.perf_counter()
            answer = await client.get(urls[index % len(urls)])
            await answer.read()
            found[kind].append((time.perf_counter() - began) * 1000)
            if answer.status != 200:
                raise SystemExit(f"{urls[index % len(urls)]} answered {answer.status}")
    return found


def report(title: str, found: dict[str, list[float]]) -> list[str]:
    print(f"{title}: ms p50 / p99 / worst")
    missed = []
    for kind, values in found.items():
        late = p99(values)
        mark = "" if late < TARGET_MS else "   <-- over 100 ms"
        print(f"  {kind:<20} {statistics.median(values):7.1f} {late:7.1f} {max(values):7.1f}{mark}")
        if late >= TARGET_MS:
            missed.append(f"{title}: {kind} p99 {late:.0f} ms")
    return missed


async def main(url: str | None, requests: int, changes: int, size: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        url = url or f"sqlite+aiosqlite:///{Path(folder) / 'web.sqlite3'}"
        await migrate.upgrade(url)
        config = bench_config(url)
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        began = time.perf_counter()
        now = await seed(sessions, config, size)
        print(f"seeded {size} players and {number_of_rounds(size)} rounds in "
              f"{time.perf_counter() - began:.0f} s ({url.split(':')[0]})")  # fmt: skip
        deps = WebDeps(sessions, config, FakeClock(now), read_only=True)
        async with TestClient(TestServer(site_app(deps))) as client:
            kinds = await page_kinds(client, random.Random(33))
            print("pages:", ", ".join(f"{k} ({len(v)})" for k, v in kinds.items()))
            await timed(client, kinds, 3)  # warm up: imports, templates, the first read

            async def change() -> None:
                async with transaction(sessions) as session:
                    last = await session.scalar(select(AuditEntry.at).order_by(
                        AuditEntry.id.desc()).limit(1))  # fmt: skip
                    session.add(AuditEntry(at=last or now, actor_type="job", actor_id=None,
                                           action="benchmark_change", subject_type="match",
                                           subject_id=None, details={}))  # fmt: skip

            missed = report(
                f"served, {requests} requests each", await timed(client, kinds, requests)
            )
            changed = await timed(client, kinds, changes, change)
            missed += report("after a change (the whole read again)", changed)
        await engine.dispose()
    print("p99 under 100 ms:", "met" if not missed else "MISSED: " + "; ".join(missed))
    return 0 if not missed else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Latency of the public pages.")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("ACWC_TEST_DATABASE"),
        help="default: ACWC_TEST_DATABASE, else a temporary SQLite file",
    )
    parser.add_argument("--requests", type=int, default=200, help="requests per page kind")
    parser.add_argument(
        "--changes", type=int, default=10, help="requests per page kind after a change"
    )
    parser.add_argument("--players", type=int, default=500)
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.database_url, args.requests, args.changes, args.players)))
