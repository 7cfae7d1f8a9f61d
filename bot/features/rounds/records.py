"""What the round and stage classes read and keep between transactions: players in seeding
order, a stage by kind or by key, a new stage row named from the format, a round's open
matches, what a finished stage decided, and the announcement channel. Plain functions over
the caller's session: each class of the rounds feature needs some of them, and none of them
decides anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import Config
from bot.errors import WrongStage
from bot.features.rounds import text as wording
from bot.format.model import RoundRobinStage
from bot.outbox import enqueue_channel
from db.models import (
    NO_POOL,
    Match,
    MatchState,
    Player,
    Round,
    Setting,
    Stage,
    StageKind,
    StageState,
)

DONE_STATES = (MatchState.FINISHED, MatchState.FORFEITED, MatchState.BYE)
TIE_VIEW = "stage_tie"
PENDING_TIE = "pending_tie"  # Setting key: the tie the TD is asked to break
RESULTS_KEY = "stage_outcome:"  # Setting key prefix: a finished stage's ordered outcome
ROBIN_STAGES = (StageKind.TIEBREAK, StageKind.CANDIDATES)
# The format's stage kind each engine kind runs (the tiebreak matches belong to the Swiss).
FORMAT_KIND = {
    StageKind.SWISS: "swiss",
    StageKind.TIEBREAK: "swiss",
    StageKind.CANDIDATES: "round_robin",
    StageKind.FINAL: "final_match",
}
TIEBREAK_SUFFIX = "_tiebreak"


@dataclass(frozen=True)
class StageName:
    """What a stage row says of the format stage it runs (see `db.models.Stage`)."""

    key: str
    name: str
    position: int  # the index in `config.format.stages`
    pool: str = NO_POOL


def format_stage(config: Config, kind: StageKind) -> StageName:
    """The format stage an engine stage of `kind` runs: the first of its kind in
    `config.format.stages` (the engine runs the 2019 shape, one stage of each), its key,
    name and index; the Candidates are its first pool (2019: its only one). The tiebreak
    matches (rule III.E.5) are the Swiss stage's, under a key and name of their own."""
    stage = config.format.of_kind(FORMAT_KIND[kind])[0]
    position = config.format.keys().index(stage.key)
    if kind is StageKind.TIEBREAK:
        return StageName(stage.key + TIEBREAK_SUFFIX, wording.TIEBREAK_STAGE_NAME, position)
    pool = stage.pools[0].key if isinstance(stage, RoundRobinStage) else NO_POOL
    return StageName(stage.key, stage.name, position, pool)


def new_stage(
    config: Config,
    kind: StageKind,
    *,
    started_at: datetime,
    seeding: list[int],
    total_rounds: int,
) -> Stage:
    """A running stage of `kind`, named from the format (`format_stage`)."""
    named = format_stage(config, kind)
    return Stage(
        kind=kind,
        key=named.key,
        name=named.name,
        position=named.position,
        pool=named.pool,
        state=StageState.RUNNING,
        started_at=started_at,
        seeding=seeding,
        total_rounds=total_rounds,
    )


async def players(session: AsyncSession, ids: list[int]) -> list[Player]:
    """The players of `ids`, in that order (a stage's seeding)."""
    rows = {p.id: p for p in await session.scalars(select(Player).where(Player.id.in_(ids)))}
    return [rows[i] for i in ids if i in rows]


async def stage_of(session: AsyncSession, kind: StageKind) -> Stage:
    stage = await session.scalar(select(Stage).where(Stage.kind == kind))
    if stage is None:
        raise WrongStage(wording.no_stage_yet(kind.value))
    return stage


async def stage_by_key(session: AsyncSession, key: str, pool: str = NO_POOL) -> Stage | None:
    """The stage row of the format stage `key` (and `pool`), or None before it started."""
    return await session.scalar(select(Stage).where(Stage.key == key, Stage.pool == pool))


async def swiss_of(session: AsyncSession, tiebreak: Stage) -> Stage:
    """The Swiss stage whose tie across the qualifying places the tiebreak matches break
    (rule III.E.5): the row whose key the tiebreak's key extends."""
    swiss = await stage_by_key(session, tiebreak.key.removesuffix(TIEBREAK_SUFFIX))
    if swiss is None:
        raise WrongStage(wording.no_stage_yet(StageKind.SWISS.value))
    return swiss


async def open_matches(session: AsyncSession, round_id: int) -> list[Match]:
    """The round's matches still without a result."""
    return list(
        (
            await session.scalars(
                select(Match).where(Match.round_id == round_id, Match.state.not_in(DONE_STATES))
            )
        ).all()
    )


async def last_round(session: AsyncSession, stage: Stage) -> Round | None:
    return await session.scalar(
        select(Round).where(Round.stage_id == stage.id).order_by(Round.number.desc()).limit(1)
    )


async def set_setting(session: AsyncSession, key: str, value: str, now: datetime) -> None:
    row = await session.get(Setting, key)
    if row is None:
        session.add(Setting(key=key, value=value, updated_at=now))
    else:
        row.value, row.updated_at = value, now


async def save_outcome(
    session: AsyncSession, stage: Stage, player_ids: list[int], now: datetime
) -> None:
    """What a finished stage decided, best first: the Swiss's sure qualifiers, the
    Candidates' Challenger and runner-up."""
    await set_setting(session, RESULTS_KEY + stage.kind.value, json.dumps(player_ids), now)


async def outcome(session: AsyncSession, stage: Stage) -> list[int]:
    row = await session.get(Setting, RESULTS_KEY + stage.kind.value)
    return [int(i) for i in json.loads(row.value)] if row else []


def announce(session: AsyncSession, config: Config, now: datetime, content: str) -> None:
    """Stage news for everyone, in the announcement channel (when one is set)."""
    channel = config.discord.announcement_channel_id
    if channel:
        enqueue_channel(session, channel_id=channel, now=now, content=content)
