"""Migration 0009: a 2019 database (one stage row per kind) upgraded to generic stage rows
(key, name, position, pool), and a bot that goes on running it; the new unique (key, pool)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError

from bot.clock import FakeClock
from bot.config import Config
from db import migrate
from db.engine import make_engine, make_sessionmaker, transaction
from db.models import NO_POOL, OutboxMessage, Stage, StageKind, StageState
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.factories import stage_row, wired

T = "2019-10-01 12:00:00.000000"  # every timestamp of the old rows: they only need one
# (id, lichess name, pre-seeded stage): the Swiss four, the pre-seeded Candidate and champion
PLAYERS = [
    (1, "Ann", None),
    (2, "Bea", None),
    (3, "Cid", None),
    (4, "Dan", None),
    (5, "Ogul1", "candidates"),
    (6, "arimakat", "final"),
]
# (id, kind, state, total rounds, seeding): a finished Swiss, running Candidates, no Final
STAGES = [
    (1, "swiss", "finished", 1, "[1, 2, 3, 4]"),
    (2, "candidates", "running", 3, "[1, 2, 3, 5]"),
]
# (id, stage, number, state, deadline)
ROUNDS = [
    (1, 1, 1, "finished", "2019-10-06 23:59:59.000000"),
    (2, 2, 1, "finished", "2019-10-13 23:59:59.000000"),
    (3, 2, 2, "finished", "2019-10-20 23:59:59.000000"),
    (4, 2, 3, "published", "2019-10-27 23:59:59.000000"),
]
# (id, round, board, a, b, state, score a, score b, match points a, b)
MATCHES = [
    (1, 1, 1, 1, 4, "finished", 6.0, 0.0, 1.0, 0.0),
    (2, 1, 2, 2, 3, "finished", 6.0, 2.0, 1.0, 0.0),
    (3, 2, 1, 1, 5, "finished", 7.0, 3.0, 1.0, 0.0),
    (4, 2, 2, 2, 3, "finished", 5.0, 5.0, 0.5, 0.5),
    (5, 3, 1, 5, 3, "finished", 5.0, 5.0, 0.5, 0.5),
    (6, 3, 2, 1, 2, "finished", 6.0, 4.0, 1.0, 0.0),
    (7, 4, 1, 3, 1, "negotiating", 0.0, 0.0, None, None),
    (8, 4, 2, 2, 5, "negotiating", 0.0, 0.0, None, None),
]


def _sql(value: object) -> str:
    """A literal of the rows above (constants of this test, never user input)."""
    if value is None:
        return "NULL"
    return str(value) if isinstance(value, int | float) else f"'{value}'"


def _insert(table: str, columns: str, rows: list[tuple[object, ...]]) -> str:
    values = ", ".join("(" + ", ".join(_sql(v) for v in row) + ")" for row in rows)
    return f"INSERT INTO {table} ({columns}) VALUES {values}"


async def _old_championship(db_url: str) -> None:
    """The 2019 championship as revision 0008 stored it, written with plain SQL."""
    await migrate.upgrade(db_url, "0008")
    engine = make_engine(db_url)
    try:
        async with engine.begin() as conn:
            players = [(i, n.lower(), n, s, T) for i, n, s in PLAYERS]
            columns = "id, lichess_id, lichess_username, pre_seeded_stage, created_at"
            await conn.execute(text(_insert("players", columns, players)))
            stages = [(i, k, s, n, T, seeding) for i, k, s, n, seeding in STAGES]
            columns = "id, kind, state, total_rounds, started_at, seeding"
            await conn.execute(text(_insert("stages", columns, stages)))
            rounds = [(i, s, n, st, T, d) for i, s, n, st, d in ROUNDS]
            columns = "id, stage_id, number, state, starts_at, deadline"
            await conn.execute(text(_insert("rounds", columns, rounds)))
            columns = (
                "id, round_id, board, player_a_id, player_b_id, state, score_a, score_b, "
                "points_a, points_b"
            )
            await conn.execute(text(_insert("matches", columns, list(MATCHES))))
            if conn.dialect.name == "postgresql":  # ids given: move on the sequences as the
                for table in ("players", "stages", "rounds", "matches"):  # bot's writes did
                    await conn.execute(
                        text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), 100)")
                    )
    finally:
        await engine.dispose()


async def test_a_2019_database_gets_stage_keys_and_the_bot_goes_on(
    db_url: str, config: Config, clock: FakeClock
) -> None:
    await _old_championship(db_url)
    await migrate.upgrade(db_url)
    assert await migrate.drift(db_url) == []

    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                text('SELECT id, kind, "key", name, position, pool FROM stages ORDER BY id')
            )
            assert [tuple(r) for r in rows] == [
                (1, "swiss", "swiss", "Qualification", 0, ""),
                (2, "candidates", "candidates", "Candidates", 1, "candidates"),
            ]
            owners = await conn.execute(
                text(
                    'SELECT m.id, s."key", r.number FROM matches m JOIN rounds r '
                    "ON r.id = m.round_id JOIN stages s ON s.id = r.stage_id ORDER BY m.id"
                )
            )
            assert [tuple(r) for r in owners] == [
                (1, "swiss", 1),
                (2, "swiss", 1),
                (3, "candidates", 1),
                (4, "candidates", 1),
                (5, "candidates", 2),
                (6, "candidates", 2),
                (7, "candidates", 3),
                (8, "candidates", 3),
            ]

        # The bot goes on: the last Candidates results finish the stage and start the Final.
        clock.set(datetime(2019, 10, 25, 12, 0, tzinfo=UTC))
        svc = wired(sessions, config, clock)
        await svc.rounds.set_score(td_id=TD_ID, match_id=7, score_a=4, score_b=6, reason=None)
        await svc.rounds.set_score(td_id=TD_ID, match_id=8, score_a=6, score_b=4, reason=None)
        async with sessions() as session:
            stages = {s.key: s for s in await session.scalars(select(Stage))}
            posts = await session.scalars(
                select(OutboxMessage.content).where(OutboxMessage.target_id == ANNOUNCE_CHANNEL)
            )
            announced = list(posts)
        assert stages["candidates"].state is StageState.FINISHED
        final = stages["final"]
        assert (final.kind, final.name, final.position, final.pool) == (
            StageKind.FINAL,
            "Final",
            2,
            NO_POOL,
        )
        assert final.seeding == [6, 1]  # the champion against the Challenger
        assert any("**Ann** wins the Candidates" in p for p in announced), announced
        assert any("**The Final**" in p and "arimakat" in p for p in announced), announced
    finally:
        await engine.dispose()


async def test_two_stages_of_one_kind_fit_but_not_one_key_and_pool_twice(db_url: str) -> None:
    """A format may have two final matches (Grand Final, Third Place Playoff) and a pool row
    per pool; one (key, pool) is one row, also without a pool (stored as "")."""
    await migrate.upgrade(db_url)
    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    now = datetime(2019, 10, 1, tzinfo=UTC)
    rows = [  # (kind, key, name, position, pool)
        (StageKind.FINAL, "grand_final", "Grand Final", 3, NO_POOL),
        (StageKind.FINAL, "third_place", "Third Place Playoff", 4, NO_POOL),
        (StageKind.CANDIDATES, "pools", "Candidates", 1, "upper"),
        (StageKind.CANDIDATES, "pools", "Candidates", 1, "lower"),
    ]

    def row(kind: StageKind, key: str, name: str, position: int, pool: str) -> Stage:
        return Stage(
            kind=kind,
            key=key,
            name=name,
            position=position,
            pool=pool,
            state=StageState.RUNNING,
            started_at=now,
        )

    try:
        async with transaction(sessions) as session:
            session.add_all([row(*r) for r in rows])
            session.add(stage_row(StageKind.CANDIDATES, state=StageState.RUNNING))
        async with sessions() as session:
            stored = [(s.key, s.pool) for s in await session.scalars(select(Stage))]
        assert sorted(stored) == sorted(
            [(r[1], r[4]) for r in rows] + [("candidates", "candidates")]
        )
        for twice in (rows[1], rows[2]):
            with pytest.raises(IntegrityError):
                async with transaction(sessions) as session:
                    session.add(row(twice[0], twice[1], "Again", twice[3], twice[4]))
    finally:
        await engine.dispose()
