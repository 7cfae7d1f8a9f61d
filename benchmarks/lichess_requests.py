"""How many Lichess requests one simulated Swiss round of 32 matches costs.

64 players, 32 matches with agreed times spread over the round (one every 90 minutes);
each match is played as 2+5 games of about eight minutes until the rules engine ends it
(5.5 points, or 10 games). The results job runs every `jobs.results_poll_seconds` on a
fake clock against the fake Lichess server (real HTTP on 127.0.0.1); a game appears on
Lichess once it has ended. Prints the requests by endpoint and per match.

Run: .venv/bin/python benchmarks/lichess_requests.py
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.clock import FakeClock
from bot.config import DiscordConfig, load_config
from bot.lichess.client import LichessClient
from bot.wiring import build_services
from db import migrate
from db.engine import make_engine, make_sessionmaker
from db.models import Match, MatchState
from tests.factories import ROUND_START, seed_round
from tests.fakes.lichess import fake_lichess
from tests.results_helpers import schedule

MATCHES = 32
FIRST_GAME = ROUND_START + timedelta(days=1, hours=10)


async def open_matches(sessions: async_sessionmaker[AsyncSession]) -> int:
    async with sessions() as session:
        query = select(func.count(Match.id)).where(Match.state != MatchState.FINISHED)
        return int(await session.scalar(query) or 0)


def plan(rng: random.Random, a: str, b: str, start: datetime) -> list[dict[str, Any]]:
    """The games of one match until it is over (Swiss: 5.5 points or 10 games)."""
    games: list[dict[str, Any]] = []
    score_a = score_b = 0.0
    created = start + timedelta(minutes=rng.randint(0, 8))
    while len(games) < 10 and score_a < 5.5 and score_b < 5.5:
        white, black = (a, b) if len(games) % 2 == 0 else (b, a)
        roll = rng.random()
        winner = None if roll < 0.15 else ("white" if roll < 0.6 else "black")
        a_points = 0.5 if winner is None else float((winner == "white") == (white == a))
        score_a, score_b = score_a + a_points, score_b + 1 - a_points
        ended = created + timedelta(minutes=rng.randint(4, 12))
        games.append(
            {
                "white": white,
                "black": black,
                "created_at": created,
                "last_move_at": ended,
                "winner": winner,
                "status": "draw" if winner is None else "variantEnd",
            }
        )
        created = ended + timedelta(minutes=1)
    return games


async def main() -> None:
    rng = random.Random(2019)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite3'}"
        await migrate.upgrade(url)
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        async with fake_lichess() as fake:
            config = load_config(None, environ={"LICHESS_BASE_URL": fake.base_url})
            # one round only: no next round is paired when it ends
            config = config.model_copy(
                update={
                    "swiss": config.swiss.model_copy(update={"confirm_before_publish": True}),
                    "discord": DiscordConfig(td_user_ids=(1,)),
                }
            )
            names = [(1000 + i, f"player{i:02d}") for i in range(2 * MATCHES)]
            seeded = await seed_round(sessions, config, names)
            for _, name in names:
                fake.add_user(name, created_at=datetime(2017, 1, 1, tzinfo=UTC))
            pending: list[dict[str, Any]] = []
            for index, match_id in enumerate(seeded.match_ids):
                agreed = FIRST_GAME + timedelta(minutes=90 * index)
                await schedule(sessions, match_id, agreed)
                a, b = names[2 * index][1], names[2 * index + 1][1]
                pending.extend(plan(rng, a, b, agreed))
            pending.sort(key=lambda g: g["last_move_at"])
            clock = FakeClock(FIRST_GAME - timedelta(minutes=10))
            client = LichessClient(base_url=fake.base_url, timeout=10.0, rate_limit_pause=0.05)
            service = build_services(sessions, config, clock, client).results
            step = timedelta(seconds=config.jobs.results_poll_seconds)
            runs = 0
            began = time.perf_counter()
            while True:
                while pending and pending[0]["last_move_at"] <= clock.now():
                    fake.add_game(**pending.pop(0))
                await service.run_once()
                runs += 1
                if not pending and await open_matches(sessions) == 0:
                    break
                clock.advance(step)
            elapsed = time.perf_counter() - began
            await client.aclose()
            by_endpoint = Counter(
                "GET /api/games/user/{name}" if p.startswith("/api/games/user/") else f"{m} {p}"
                for m, p, _ in fake.requests
            )
        await engine.dispose()
    total = len(fake.requests)
    games = len(fake.games)
    print(
        f"{MATCHES} matches, {games} games, results job run {runs} times "
        f"(every {step.total_seconds():.0f} s of simulated time), {elapsed:.1f} s wall time"
    )
    for endpoint, count in sorted(by_endpoint.items()):
        print(f"  {endpoint:<32} {count:>6}")
    print(f"  {'total':<32} {total:>6}  ({total / MATCHES:.1f} per match)")


if __name__ == "__main__":
    asyncio.run(main())
