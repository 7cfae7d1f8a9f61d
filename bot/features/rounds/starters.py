"""How each kind of format stage starts once `bot.format.flow.ready` says it may: one
starter per format kind in `STARTERS` (`round_robin`, `knockout`, `final_match`), given
the stage's `StageStart` (entrants, pools, pairings from the pure rules).

* round robin: one CANDIDATES row per pool, each with its Berger schedule, round 1 of each
  published at once (2019's one pool keeps its own start: `start_candidates_2019`);
* knock-out: one KNOCKOUT row, one round, a match per pairing (`board` = pairing number);
* final match: one FINAL row, one round of one match, side a the first entrant (2019's
  Final, with the champion and the Challenger of rule III.C and VIII.C, keeps
  `FinalStage.start`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import stage_kinds
from bot.audit import Actor, record
from bot.config import Config
from bot.features.matches.context import announce
from bot.features.matches.text import match_format_text
from bot.features.rounds import records, weeks
from bot.features.rounds import stage_text as words
from bot.features.rounds import text as wording
from bot.features.rounds.final import FinalStage
from bot.features.rounds.progress import RoundProgress
from bot.features.rounds.records import new_stage, pairing_json
from bot.features.rounds.robin import RobinRounds
from bot.features.rounds.types import PairingLine, RoundPreview
from bot.format.flow import StageStart
from bot.format.model import (
    FinalMatchStage,
    Format,
    PreSeeded,
    RoundRobinStage,
)
from bot.format.model import Stage as FormatStage
from bot.rules import candidates as berger
from bot.rules import stages as stage_rules
from bot.rules.stages import final_window
from bot.td_alerts import notify_td
from db.models import Player, Stage, StageKind

__all__ = [
    "STARTERS",
    "StartKit",
    "Starter",
    "is_2019_final",
    "replacement_window",
    "start_candidates_2019",
]


@dataclass(frozen=True)
class StartKit:
    """What the starters write through: the round life cycle, round robin rounds, the
    2019 Final."""

    config: Config
    progress: RoundProgress
    robin: RobinRounds
    final: FinalStage


#: A starter: (kit, session, the format stage, its start or None when the pure rules
#: could not start it, the last deadline of its sources, actor, now) -> the rows it made.
Starter = Callable[
    [StartKit, AsyncSession, FormatStage, StageStart | None, datetime, Actor, datetime],
    Awaitable[list[Stage]],
]


async def _players(session: AsyncSession, names: list[str]) -> list[Player]:
    rows = await session.scalars(select(Player).where(Player.lichess_id.in_(names)))
    by_name = {p.lichess_id: p for p in rows}
    return [by_name[n] for n in names if n in by_name]


def _cannot_start(kit: StartKit, session: AsyncSession, stage: FormatStage, now: datetime) -> None:
    content = words.stage_cannot_start(stage.name)
    notify_td(session, kit.config, now=now, content=content)


async def start_candidates_2019(
    kit: StartKit,
    session: AsyncSession,
    qualified: list[Player],
    after: datetime,
    actor: Actor,
    now: datetime,
) -> Stage:
    """2019's one pool (rule III.D): the Swiss qualifiers (best first) and the pre-seeded
    Candidates, as ever."""
    pre_seeded = (
        await session.scalars(
            select(Player).where(
                Player.pre_seeded_stage == StageKind.CANDIDATES,
                Player.withdrawn_at.is_(None),
                Player.disqualified_at.is_(None),
            )
        )
    ).all()
    by_name = {p.lichess_id: p for p in [*qualified, *pre_seeded]}
    field = [
        by_name[n]
        for n in stage_rules.candidates_field(
            [p.lichess_id for p in qualified], [p.lichess_id for p in pre_seeded]
        )
    ]
    stage = new_stage(
        kit.config,
        StageKind.CANDIDATES,
        started_at=weeks.stage_start(kit.config, after, "round_robin"),
        seeding=[p.id for p in field],
        total_rounds=len(berger.schedule([p.lichess_id for p in field])),
    )
    session.add(stage)
    await session.flush()
    record(
        session,
        at=now,
        actor=actor,
        action="candidates_started",
        subject_type="stage",
        subject_id=stage.id,
        details={"players": [p.lichess_id for p in field]},
    )
    seeded = [p.lichess_username for p in field if p in pre_seeded]
    text = wording.candidates_start(len(field) - len(seeded), seeded)
    announce(session, kit.config, now, text)
    if stage.total_rounds:
        await kit.robin.publish_round(session, stage, 1, actor, now)
    return stage


async def start_round_robin(
    kit: StartKit,
    session: AsyncSession,
    stage: FormatStage,
    start: StageStart | None,
    after: datetime,
    actor: Actor,
    now: datetime,
) -> list[Stage]:
    """One CANDIDATES row per pool, rounds of all pools in the same weeks."""
    assert isinstance(stage, RoundRobinStage)
    if start is None:
        _cannot_start(kit, session, stage, now)
        return []
    if stage.placement == "single":
        qualified = await _players(session, [e.player for e in start.entries if e.role is None])
        return [await start_candidates_2019(kit, session, qualified, after, actor, now)]
    starts_at = weeks.stage_start(kit.config, after, None, key=stage.key)
    rows: list[Stage] = []
    lines: list[tuple[str, list[str]]] = []
    for pool in stage.pools:
        field = await _players(session, list(start.pools.get(pool.key, ())))
        row = new_stage(
            kit.config,
            StageKind.CANDIDATES,
            started_at=starts_at,
            seeding=[p.id for p in field],
            total_rounds=len(berger.schedule([p.lichess_id for p in field])) if field else 0,
            key=stage.key,
            pool=pool.key,
        )
        session.add(row)
        await session.flush()
        rows.append(row)
        lines.append((pool.name, [p.lichess_username for p in field]))
    announce(session, kit.config, now, words.pools_start(stage.name, lines))
    for row in rows:
        if row.total_rounds:
            await kit.robin.publish_round(session, row, 1, actor, now)
    return rows


async def start_knockout(
    kit: StartKit,
    session: AsyncSession,
    stage: FormatStage,
    start: StageStart | None,
    after: datetime,
    actor: Actor,
    now: datetime,
) -> list[Stage]:
    """One KNOCKOUT row and its one round: board N is pairing N."""
    if start is None or not start.pairings:
        _cannot_start(kit, session, stage, now)
        return []
    names = [n for p in start.pairings for n in p.players]
    by_name = {p.lichess_id: p for p in await _players(session, names)}
    starts_at = weeks.stage_start(kit.config, after, None, key=stage.key)
    row = new_stage(
        kit.config,
        StageKind.KNOCKOUT,
        started_at=starts_at,
        seeding=[by_name[n].id for n in names],
        total_rounds=1,
        key=stage.key,
    )
    session.add(row)
    await session.flush()
    await records.save_stage_outcome(
        session, stage.key, now, pairings=[pairing_json(p) for p in start.pairings]
    )
    _, deadline = weeks.round_times(kit.config, starts_at, 1)
    lines = [
        PairingLine(
            board,
            by_name[p.first].lichess_username,
            2 * board - 1,
            by_name[p.second].lichess_username,
            2 * board,
        )
        for board, p in enumerate(start.pairings, start=1)
    ]
    preview = RoundPreview(1, 1, len(names), starts_at, deadline, lines)
    matches = [
        (p.name, line.player_a, line.player_b or "")
        for p, line in zip(start.pairings, lines, strict=True)
    ]
    how = _how(kit.config, stage.key)
    announce(session, kit.config, now, words.knockout_start(stage.name, matches, how))
    await kit.progress.publish(session, row, preview, actor, now)
    return [row]


def _how(config: Config, key: str) -> str:
    """How each match of the stage `key` is played, told when it starts."""
    return match_format_text(
        config.match_format(key),
        equal_bids=config.format.equal_bids,
        black_seconds=config.match_armageddon_black_seconds(key),
    )


def match_name(fmt: Format, key: str, board: int) -> str | None:
    """The name of a knock-out's match on `board` (board N is pairing N: "Semifinal 1");
    None for a row of any other kind."""
    return stage_kinds.knockout_match_name(fmt, key, board)


def replacement_window(
    config: Config, stage: FormatStage, after: datetime
) -> tuple[datetime, datetime]:
    """When a match that replaces one voided because a player left is played
    (`bot.features.rounds.leaving`): a final match's days from `after` (rule IV.C, as its
    start), a knock-out's match the week at or after `after` (rule IV.A: the week under way
    has begun without the new pair, so theirs is the next)."""
    if isinstance(stage, FinalMatchStage):
        return final_window(after, stage.days)
    return weeks.round_times(config, after, 1)


def is_2019_final(stage: FormatStage) -> bool:
    """The 2019 Final: the previous champion's seat (rule III.C), with rule VIII.C."""
    return any(isinstance(rule, PreSeeded) for rule in stage.entry)


async def start_final_match(
    kit: StartKit,
    session: AsyncSession,
    stage: FormatStage,
    start: StageStart | None,
    after: datetime,
    actor: Actor,
    now: datetime,
) -> list[Stage]:
    """One FINAL row, one round of one match: the first entrant is side a."""
    assert isinstance(stage, FinalMatchStage)
    if is_2019_final(stage):
        return await _start_final_2019(kit, session, after, actor, now)
    if start is None or not start.pairings:
        _cannot_start(kit, session, stage, now)
        return []
    pairing = start.pairings[0]
    a, b = await _players(session, [pairing.first, pairing.second])
    starts_at = weeks.stage_start(kit.config, after, None, key=stage.key)
    row = new_stage(
        kit.config,
        StageKind.FINAL,
        started_at=starts_at,
        seeding=[a.id, b.id],
        total_rounds=1,
        key=stage.key,
    )
    session.add(row)
    await session.flush()
    await records.save_stage_outcome(session, stage.key, now, pairings=[pairing_json(pairing)])
    _, deadline = final_window(starts_at, stage.days)
    line = PairingLine(1, a.lichess_username, 1, b.lichess_username, 2)
    await kit.progress.publish(
        session, row, RoundPreview(1, 1, 2, starts_at, deadline, [line]), actor, now
    )
    content = words.final_match_start(
        stage.name, a.lichess_username, b.lichess_username, how=_how(kit.config, stage.key)
    )
    announce(session, kit.config, now, content)
    return [row]


async def _start_final_2019(
    kit: StartKit, session: AsyncSession, after: datetime, actor: Actor, now: datetime
) -> list[Stage]:
    """The Candidates' Challenger and runner-up (their saved ids) to `FinalStage.start`."""
    candidates = await session.scalar(select(Stage).where(Stage.kind == StageKind.CANDIDATES))
    ids = await records.outcome(session, candidates) if candidates else []
    found = await records.players(session, ids)
    if not found:
        return []
    runner_up = found[1] if len(found) > 1 else None
    await kit.final.start(session, found[0], runner_up, after, actor, now)
    final = await session.scalar(select(Stage).where(Stage.kind == StageKind.FINAL))
    return [final] if final is not None else []


STARTERS: dict[str, Starter] = {
    "round_robin": start_round_robin,
    "knockout": start_knockout,
    "final_match": start_final_match,
}
