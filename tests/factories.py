"""Test data straight into the DB: players, a running Swiss stage, a published round, matches."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.config import Config
from bot.features.negotiation.service import schedule_match_deadlines
from bot.features.rounds.records import format_stage
from bot.lichess.client import LichessClient
from bot.wiring import Services, build_services
from db.engine import transaction
from db.models import Match, MatchState, Player, Round, RoundState, Stage, StageKind, StageState

ROUND_START = datetime(2019, 9, 30, tzinfo=UTC)  # a Monday
ROUND_DEADLINE = datetime(2019, 10, 6, 23, 59, 59, tzinfo=UTC)  # the Sunday after
ROUND_THREAD = 4000


def stage_row(kind: StageKind, **fields: Any) -> Stage:
    """A stage row of `kind`, named as the default (2019) format names that kind's stage."""
    named = format_stage(Config(), kind)
    return Stage(
        kind=kind,
        key=named.key,
        name=named.name,
        position=named.position,
        pool=named.pool,
        **fields,
    )


@dataclass(frozen=True)
class SeededRound:
    stage_id: int
    round_id: int
    player_ids: dict[str, int]  # lichess username -> player id
    match_ids: list[int]  # by board; a bye last


async def open_stage(
    session: AsyncSession,
    kind: StageKind,
    seeding: list[int],
    *,
    total_rounds: int = 1,
    starts_at: datetime = ROUND_START,
    deadline: datetime = ROUND_DEADLINE,
    round_state: RoundState = RoundState.PUBLISHED,
    thread_id: int | None = None,
    published_at: datetime | None = None,
) -> Round:
    """A running stage of `kind` and its first round, flushed so their ids are known."""
    stage = stage_row(
        kind,
        state=StageState.RUNNING,
        total_rounds=total_rounds,
        seeding=seeding,
        started_at=starts_at,
    )
    session.add(stage)
    await session.flush()
    round_ = Round(
        stage_id=stage.id,
        number=1,
        state=round_state,
        starts_at=starts_at,
        deadline=deadline,
        published_at=published_at,
        thread_id=thread_id,
    )
    session.add(round_)
    await session.flush()
    return round_


async def seed_round(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    players: Sequence[tuple[int | None, str]],
    *,
    thread_id: int | None = ROUND_THREAD,
    starts_at: datetime = ROUND_START,
    deadline: datetime = ROUND_DEADLINE,
) -> SeededRound:
    """Players (discord id, lichess name) paired in order: 1-2, 3-4, ...; an odd one has a bye.

    The round is published, its matches negotiating, and their deadlines scheduled.
    """
    async with transaction(sessions) as session:
        rows = [
            Player(
                lichess_id=name.lower(),
                lichess_username=name,
                discord_id=discord_id,
                seeding_rating=2000.0 - index,
                created_at=starts_at,
            )
            for index, (discord_id, name) in enumerate(players)
        ]
        session.add_all(rows)
        await session.flush()
        round_ = await open_stage(
            session,
            StageKind.SWISS,
            [p.id for p in rows],
            total_rounds=5,
            starts_at=starts_at,
            deadline=deadline,
            published_at=starts_at,
            thread_id=thread_id,
        )
        matches: list[Match] = []
        for board, first in enumerate(range(0, len(rows), 2), start=1):
            pair = rows[first : first + 2]
            bye = len(pair) == 1
            matches.append(
                Match(
                    round_id=round_.id,
                    player_a_id=pair[0].id,
                    player_b_id=None if bye else pair[1].id,
                    board=board,
                    state=MatchState.BYE if bye else MatchState.NEGOTIATING,
                    td_assigns=False,
                    score_a=0.0,
                    score_b=0.0,
                )
            )
        session.add_all(matches)
        await session.flush()
        for match in matches:
            await schedule_match_deadlines(session, match, round_, config)
        return SeededRound(
            stage_id=round_.stage_id,
            round_id=round_.id,
            player_ids={p.lichess_username: p.id for p in rows},
            match_ids=[m.id for m in matches],
        )


def wired(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: Clock,
    lichess: LichessClient | None = None,
) -> Services:
    """Every service on one event bus, as the bot wires them (events reach the other
    features, e.g. a finished match closes its round)."""
    return build_services(sessions, config, clock, lichess)
