"""The stage rows the engine writes carry the format's stage: its key, the name readers see,
its place in `config.format.stages` and its pool (`records.new_stage`); the tiebreak matches
are the Swiss stage's, under a key and name of their own."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.config import Config
from bot.features.rounds.records import format_stage, stage_by_key
from bot.features.rounds.service import RoundService
from db.models import NO_POOL, Stage, StageKind
from tests.features.rounds.test_stages import (
    game,
    one_round_swiss,
    play,
    rounds,  # noqa: F401 (the fixture: a running bot's round service)
)

NAMES = {"swiss": "Open Qualifier", "candidates": "Candidates Tournament", "final": "Title Match"}


@pytest.fixture
def config(config: Config) -> Config:
    """The 2019 format with the names an organiser might give its stages."""
    stages = tuple(s.model_copy(update={"name": NAMES[s.key]}) for s in config.format.stages)
    return config.model_copy(update={"format": config.format.model_copy(update={"stages": stages})})


def test_each_engine_stage_is_the_format_stage_of_its_kind(config: Config) -> None:
    # The 2019 format has no knock-out stage (StageKind.KNOCKOUT runs a later edition's).
    named = {kind: format_stage(config, kind) for kind in StageKind if kind != StageKind.KNOCKOUT}
    assert [(n.key, n.name, n.position, n.pool) for n in named.values()] == [
        ("swiss", "Open Qualifier", 0, NO_POOL),
        ("swiss_tiebreak", "Tiebreak matches", 0, NO_POOL),
        ("candidates", "Candidates Tournament", 1, "candidates"),
        ("final", "Title Match", 2, NO_POOL),
    ]


async def test_new_stage_rows_carry_the_formats_key_and_name(
    rounds: RoundService,  # noqa: F811
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
) -> None:
    await one_round_swiss(sessions, config)
    results = {**game("Ann", "Bea", 6, 0), **game("Cid", "Dan", 6, 0), **game("Eve", "Fay", 5, 5)}
    await play(rounds, sessions, StageKind.SWISS, results)
    await play(rounds, sessions, StageKind.TIEBREAK, game("Eve", "Fay", 2, 6))
    for scores in (
        {**game("Ann", "Ogul1", 6, 4), **game("Cid", "Fay", 7, 3)},
        {**game("Ogul1", "Fay", 5, 5), **game("Ann", "Cid", 6, 4)},
        {**game("Cid", "Ogul1", 6, 4), **game("Fay", "Ann", 2, 8)},
    ):
        await play(rounds, sessions, StageKind.CANDIDATES, scores)

    async with sessions() as session:
        made = (
            await session.scalars(
                select(Stage).where(Stage.kind != StageKind.SWISS).order_by(Stage.id)
            )
        ).all()
        candidates = await stage_by_key(session, "candidates", "candidates")
        assert await stage_by_key(session, "candidates") is None  # the pool is part of the key
    assert [(s.kind, s.key, s.name, s.position, s.pool) for s in made] == [
        (StageKind.TIEBREAK, "swiss_tiebreak", "Tiebreak matches", 0, NO_POOL),
        (StageKind.CANDIDATES, "candidates", "Candidates Tournament", 1, "candidates"),
        (StageKind.FINAL, "final", "Title Match", 2, NO_POOL),
    ]
    assert candidates is not None and candidates.kind is StageKind.CANDIDATES
