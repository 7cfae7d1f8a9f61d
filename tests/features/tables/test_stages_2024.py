"""The 2024 format's stages as readers see them: a crosstable per pool titled by the pool,
the Semifinals as their named matches, each final's scoreboard under its own name."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.errors import InvalidInput
from bot.features.tables.render import render_text
from bot.format.model import Format
from bot.format.presets import preset_config
from db.engine import transaction
from db.models import Match, MatchState, Player, Round, RoundState, Stage, StageKind, StageState
from tests.factories import ROUND_DEADLINE, ROUND_START, wired

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]


@pytest.fixture
def config_2024(config: Config) -> Config:
    fmt = Format.model_validate(preset_config("acwc-2024")["format"])
    return config.model_copy(update={"format": fmt})


async def _row(session: AsyncSession, kind: StageKind, key: str, name: str, position: int,
               seeding: list[int], pairs: list[tuple[int, int, float, float]],
               pool: str = "") -> None:  # fmt: skip
    stage = Stage(kind=kind, key=key, name=name, position=position, pool=pool,
                  state=StageState.FINISHED, total_rounds=1, seeding=seeding)  # fmt: skip
    session.add(stage)
    await session.flush()
    round_ = Round(stage_id=stage.id, number=1, state=RoundState.FINISHED,
                   starts_at=ROUND_START, deadline=ROUND_DEADLINE)  # fmt: skip
    session.add(round_)
    await session.flush()
    for board, (a, b, sa, sb) in enumerate(pairs, start=1):
        session.add(Match(round_id=round_.id, board=board, player_a_id=a, player_b_id=b,
                          state=MatchState.FINISHED, score_a=sa, score_b=sb,
                          points_a=float(sa > sb), points_b=float(sb > sa),
                          td_assigns=False))  # fmt: skip


async def test_pools_semifinals_and_both_finals(
    sessions: async_sessionmaker[AsyncSession], config_2024: Config, clock: FakeClock
) -> None:
    clock.set(datetime(2025, 5, 1, tzinfo=UTC))
    services = wired(sessions, config_2024, clock)
    async with transaction(sessions) as session:
        players = [Player(lichess_id=n.lower(), lichess_username=n, created_at=ROUND_START)
                   for n in NAMES]  # fmt: skip
        session.add_all(players)
        await session.flush()
        i = [p.id for p in players]
        await _row(session, StageKind.CANDIDATES, "candidates", "Upper pool", 1, i[:4],
                   [(i[0], i[1], 6, 4), (i[2], i[3], 5.5, 4.5)], "upper")  # fmt: skip
        await _row(session, StageKind.CANDIDATES, "candidates", "Lower pool", 1, i[4:],
                   [(i[4], i[5], 7, 3), (i[6], i[7], 6, 4)], "lower")  # fmt: skip
        await _row(session, StageKind.KNOCKOUT, "semifinals", "Semifinals", 2, i[:4],
                   [(i[0], i[4], 5.5, 2), (i[6], i[2], 3, 5.5)])  # fmt: skip
        await _row(session, StageKind.FINAL, "grand_final", "Grand Final", 3, [i[0], i[2]],
                   [(i[0], i[2], 0, 0)])  # fmt: skip
        await _row(session, StageKind.FINAL, "third_place", "Third Place Playoff", 4,
                   [i[4], i[6]], [(i[4], i[6], 0, 0)])  # fmt: skip

    pools = await services.tables.standings_tables("candidates")
    assert [t.title for t in pools] == [
        "Upper pool crosstable · ACWC 2019, after round 1 of 1",
        "Lower pool crosstable · ACWC 2019, after round 1 of 1",
    ]
    assert "Ann" in render_text(pools[0]) and "Eve" in render_text(pools[1])
    assert "in the top 2" in pools[0].highlight_label  # each pool's top two go on

    (semis,) = await services.tables.standings_tables("semifinals")
    text = render_text(semis)
    assert semis.title.startswith("Semifinals · ")
    assert semis.rows == (
        ("Semifinal 1", "Ann", "Eve", "5.5–2", "Ann"),
        ("Semifinal 2", "Gus", "Cat", "3–5.5", "Cat"),
    )
    assert len(text) <= 2000

    grand = await services.tables.standings("grand_final")
    third = await services.tables.standings("third_place")
    assert grand.title.startswith("Grand Final · ") and "Ann vs Cat" in grand.title
    assert third.title.startswith("Third Place Playoff · ") and "Eve vs Gus" in third.title
    # the pool is a stage of its own for /standings and /pairings
    assert (await services.tables.standings("upper")).title == pools[0].title
    with pytest.raises(InvalidInput, match="semifinals"):
        await services.tables.standings("quarterfinals")
