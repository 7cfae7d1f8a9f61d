"""What the round and stage classes read and keep between transactions: players in seeding
order, a stage by kind or by key, a new stage row named from the format, a round's open
matches, what a finished stage decided, and the announcement channel. Plain functions over
the caller's session: each class of the rounds feature needs some of them, and none of them
decides anything.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import stage_kinds
from bot.config import Config
from bot.errors import WrongStage
from bot.features.rounds import text as wording
from bot.format.model import Format, RoundRobinStage
from bot.rules.advancement import StageOutcome
from bot.rules.knockout import Pairing, Seat
from bot.rules.stages import TieState
from bot.td_alerts import notify_td
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
FORMAT_KIND = stage_kinds.FORMAT_KIND  # the format's stage kind each engine kind runs
# The engine kind of a row of each format stage kind.
ENGINE_KIND = {
    "swiss": StageKind.SWISS,
    "round_robin": StageKind.CANDIDATES,
    "knockout": StageKind.KNOCKOUT,
    "final_match": StageKind.FINAL,
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
    if stage_kinds.is_own_row(kind):
        return StageName(stage.key + TIEBREAK_SUFFIX, wording.TIEBREAK_STAGE_NAME, position)
    pool = stage.pools[0].key if isinstance(stage, RoundRobinStage) else NO_POOL
    return StageName(stage.key, stage.name, position, pool)


def stage_named(fmt: Format, key: str, pool: str = NO_POOL) -> StageName:
    """The row of format stage `key` (and of its `pool`): a pool's row is named after the
    pool ("Upper pool"; 2019's one pool is "Candidates")."""
    stage = fmt.stage(key)
    position = fmt.keys().index(key)
    if isinstance(stage, RoundRobinStage):
        spec = next((p for p in stage.pools if p.key == pool), stage.pools[0])
        return StageName(key, spec.name, position, spec.key)
    return StageName(key, stage.name, position, NO_POOL)


def new_stage(
    config: Config,
    kind: StageKind,
    *,
    started_at: datetime,
    seeding: list[int],
    total_rounds: int,
    key: str | None = None,
    pool: str | None = None,
) -> Stage:
    """A running stage of `kind`, named from the format: the format stage `key` (and its
    `pool`), or without a key the first of its kind (`format_stage`, the 2019 shape)."""
    if key is None:
        named = format_stage(config, kind)
    else:
        named = stage_named(config.format, key, pool or NO_POOL)
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


async def live_matches(session: AsyncSession, stage: Stage) -> dict[int, Match]:
    """The row's match on each board, the latest by board: a knock-out's or a final match's
    match voided when a player left is replaced on its board in a later round
    (`bot.features.rounds.leaving`)."""
    rounds = select(Round.id).where(Round.stage_id == stage.id)
    found = await session.scalars(
        select(Match).where(Match.round_id.in_(rounds)).order_by(Match.id)
    )
    return {m.board: m for m in found}


async def open_in_stage(session: AsyncSession, stage: Stage) -> int:
    """How many matches of any round of the row are still without a result."""
    rounds = select(Round.id).where(Round.stage_id == stage.id)
    found = await session.scalars(
        select(Match.id).where(Match.round_id.in_(rounds), Match.state.not_in(DONE_STATES))
    )
    return len(found.all())


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


async def stage_outcome(session: AsyncSession, key: str) -> dict[str, Any]:
    """What is saved of format stage `key` (`stage_outcome:<key>`, a JSON object: see
    `save_stage_outcome`); a 2019 database's list of player ids reads as ``{"ids": ...}``."""
    row = await session.get(Setting, RESULTS_KEY + key)
    if row is None:
        return {}
    value = json.loads(row.value)
    return {"ids": value} if isinstance(value, list) else dict(value)


async def save_stage_outcome(
    session: AsyncSession, key: str, now: datetime, **fields: object
) -> None:
    """Add `fields` to what format stage `key` decided: ``ranking`` (lichess ids, best
    first), ``pools`` (each pool's ranking), ``pairings`` (``[name, first, second, first
    seat, second seat, source]``) and ``winners`` (by pairing name); ``ids`` the 2019
    engine's player ids (the Swiss's sure qualifiers, the Challenger and runner-up)."""
    value = {**await stage_outcome(session, key), **fields}
    await set_setting(session, RESULTS_KEY + key, json.dumps(value), now)


def finished(value: dict[str, Any]) -> bool:
    """Whether a saved outcome is a finished stage's (the ids alone are the Swiss's sure
    qualifiers while its tiebreak matches run)."""
    return any(k in value for k in ("ranking", "pools", "winners"))


def _seat(raw: object) -> Seat:
    return (str(raw[0]), int(raw[1])) if isinstance(raw, list) else int(str(raw))


def as_outcome(value: dict[str, Any]) -> StageOutcome:
    """A saved outcome as `bot.rules.advancement` reads it."""
    pairings = tuple(
        Pairing(str(p[0]), str(p[1]), str(p[2]), _seat(p[3]), _seat(p[4]), str(p[5]))
        if len(p) >= 6
        else Pairing(str(p[0]), str(p[1]), str(p[2]), 1, 2)
        for p in value.get("pairings", [])
    )
    return StageOutcome(
        tuple(value.get("ranking", [])),
        {pool: tuple(order) for pool, order in value.get("pools", {}).items()},
        pairings,
        dict(value.get("winners", {})),
    )


def pairing_json(pairing: Pairing) -> list[object]:
    def seat(s: Seat) -> object:
        return list(s) if isinstance(s, tuple) else s

    return [
        pairing.name,
        pairing.first,
        pairing.second,
        seat(pairing.first_seat),
        seat(pairing.second_seat),
        pairing.source,
    ]


async def save_outcome(
    session: AsyncSession, stage: Stage, player_ids: list[int], now: datetime
) -> None:
    """What a finished stage decided, best first: the Swiss's sure qualifiers, the
    Candidates' Challenger and runner-up (player ids, the 2019 engine's)."""
    await save_stage_outcome(session, stage.key, now, ids=player_ids)


async def outcome(session: AsyncSession, stage: Stage) -> list[int]:
    value = await stage_outcome(session, stage.key)
    if "ids" not in value and stage.key != stage.kind.value:
        value = await stage_outcome(session, stage.kind.value)  # before stage keys
    return [int(i) for i in value.get("ids", [])]


async def ask_td_to_break(
    session: AsyncSession,
    config: Config,
    stage: Stage,
    tie: TieState,
    now: datetime,
    question: Callable[[dict[str, Player]], Awaitable[str]],
) -> None:
    """One DM to the TD with a button per tied player (rules III.E.5, III.F.3; a pool's tie
    on a place that moves on): the tie is kept (`PENDING_TIE`) for the answer, and
    `question` words it from the stage's players by Lichess id."""
    by_name = {p.lichess_id: p for p in await players(session, stage.seeding)}
    pending = {"stage_id": stage.id, "decided": tie.decided, "tied": tie.tied, "places": tie.places}
    await set_setting(session, PENDING_TIE, json.dumps(pending), now)
    buttons = [[by_name[n].id, by_name[n].lichess_username] for n in tie.tied]
    content = await question(by_name)
    notify_td(session, config, now=now, content=content, view=(TIE_VIEW, {"players": buttons}))
