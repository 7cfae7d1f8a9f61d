"""The generic transition between stages: once a format stage's outcome is saved (every
row of it finished), the stages the format says may follow (`bot.format.flow.ready`) start
through `bot.features.rounds.starters.STARTERS`, each from the outcomes of the stages before
it (`bot.format.flow.start`). Stages that become ready together (the Grand Final and the
Third Place Playoff) start together. Each start is in the audit log (`stage_started`, with
the rule that moved each entrant on: the export and the simulator read it).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.audit import Actor, record
from bot.config import Config
from bot.features.rounds import records
from bot.features.rounds.records import TIEBREAK_SUFFIX, last_round
from bot.features.rounds.starters import STARTERS, StartKit
from bot.format import flow
from bot.format.flow import StageStart
from bot.rules import advancement as adv
from db.models import Player, Stage


class StageAdvance:
    """Starting what follows finished stages, in the caller's transaction."""

    def __init__(self, config: Config, kit: StartKit) -> None:
        self.config = config
        self.kit = kit

    async def outcomes(self, session: AsyncSession) -> tuple[adv.Outcomes, set[str]]:
        """Every saved outcome, the pre-seeded players present by role, who left; and the
        keys of the finished stages."""
        stages: dict[str, adv.StageOutcome] = {}
        done: set[str] = set()
        for key in self.config.format.keys():
            value = await records.stage_outcome(session, key)
            if records.finished(value):
                stages[key] = records.as_outcome(value)
                done.add(key)
        players = (await session.scalars(select(Player))).all()
        by_name = {p.lichess_id.lower(): p for p in players}
        seeded: dict[adv.PreSeededRole, str | None] = {}
        for entry in self.config.players.pre_seeded:
            if entry.role is None:
                continue
            player = by_name.get(entry.lichess.lower())
            present = player is not None and player.pre_seeded_stage is not None
            seeded[adv.PreSeededRole(entry.role)] = (
                player.lichess_id if player and present else None
            )
        left = frozenset(p.lichess_id for p in players if p.withdrawn_at or p.disqualified_at)
        return adv.Outcomes(stages, seeded, left), done

    async def run(self, session: AsyncSession, actor: Actor, now: datetime) -> list[Stage]:
        """Start every stage that may start now; the rows made."""
        fmt = self.config.format
        outcomes, done = await self.outcomes(session)
        started = set((await session.scalars(select(Stage.key))).all())
        made: list[Stage] = []
        for key in flow.ready(fmt, done, started):
            stage = fmt.stage(key)
            try:
                start: StageStart | None = flow.start(fmt, key, outcomes)
            except ValueError:
                start = None
            after = await self._after(session, flow.sources(stage), now)
            rows = await STARTERS[stage.kind](self.kit, session, stage, start, after, actor, now)
            if rows and start is not None:
                _record_start(session, rows[0], start, actor, now)
            made.extend(rows)
        return made

    async def _after(self, session: AsyncSession, keys: frozenset[str], now: datetime) -> datetime:
        """The last deadline of the rows of the source stages (with the Swiss's tiebreak
        matches)."""
        wanted = set(keys) | {key + TIEBREAK_SUFFIX for key in keys}
        rows = (await session.scalars(select(Stage).where(Stage.key.in_(wanted)))).all()
        deadlines = [last.deadline for row in rows if (last := await last_round(session, row))]
        return max(deadlines, default=now)


def _record_start(
    session: AsyncSession, row: Stage, start: StageStart, actor: Actor, now: datetime
) -> None:
    entries = [
        {
            "player": e.player,
            "rule": e.rule.value,
            "source": e.source,
            "place": e.place,
            "pool": e.pool,
            "moved_up": e.moved_up,
        }
        for e in start.entries
    ]
    record(
        session,
        at=now,
        actor=actor,
        action="stage_started",
        subject_type="stage",
        subject_id=row.id,
        details={"key": start.key, "entries": entries},
    )
