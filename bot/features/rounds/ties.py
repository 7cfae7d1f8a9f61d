"""The ties the rules leave to the TD (rules III.E.5, III.F.3): the TD presses one of the
tied players in the DM the stage flow sent, and once the places are filled the stage goes
on by itself (`bot.features.rounds.stages.StageFlow`).
"""

from __future__ import annotations

import json

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import stage_kinds
from bot.audit import Actor, record_td_decision
from bot.clock import Clock
from bot.config import Config
from bot.errors import InvalidInput, WrongStage
from bot.events import EventBus
from bot.features.rounds import text as wording
from bot.features.rounds.records import PENDING_TIE, outcome, players, swiss_of
from bot.features.rounds.stage_ends import is_pool_row
from bot.features.rounds.stages import StageFlow
from bot.features.rounds.types import TieChoice
from bot.lichess.client import LichessClient
from bot.rules.stages import TieState, break_tie
from bot.service import Service
from db.engine import transaction
from db.models import Player, Setting, Stage


class StageTies(Service):
    """The TD's tie buttons (`bot.svc.ties`); the stage flow goes on after the last one."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        flow: StageFlow,
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        super().__init__(sessions, config, clock, lichess=lichess, events=events)
        self.flow = flow

    async def decide_tie(self, *, td_id: int, player_id: int) -> TieChoice:
        """The TD picks one of the tied players; the stage goes on once the places are full."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            raw = await session.get(Setting, PENDING_TIE)
            if raw is None:
                raise WrongStage(wording.no_tie_waiting())
            pending = json.loads(raw.value)
            stage = await session.get(Stage, int(pending["stage_id"]))
            player = await session.get(Player, player_id)
            if stage is None or player is None:
                raise InvalidInput(wording.not_in_tie())
            state = TieState(
                list(pending["decided"]), list(pending["tied"]), int(pending["places"])
            )
            try:
                after = break_tie(
                    state,
                    player.lichess_id,
                    candidates=stage_kinds.is_robin(self.config.format, stage)
                    and not is_pool_row(self.config, stage),
                )
            except ValueError:
                raise InvalidInput(wording.not_in_tie()) from None
            record_td_decision(
                session,
                at=now,
                td_id=td_id,
                kind="stage_tie",
                subject_type="stage",
                subject_id=stage.id,
                decision=player.lichess_id,
                reason=None,
            )
            actor = Actor.td(td_id)
            if not after.done:
                pending.update(decided=after.decided, tied=after.tied, places=after.places)
                raw.value, raw.updated_at = json.dumps(pending), now
                return TieChoice(player.lichess_username, done=False)
            await session.delete(raw)
            await session.flush()
            if stage_kinds.is_qualification(self.config.format, stage):
                sure = await outcome(session, await swiss_of(session, stage))
                await self.flow.qualify_after_tiebreak(
                    session, stage, sure, after.decided, actor, now
                )
            elif is_pool_row(self.config, stage):
                await self.flow.ends.pool_finished(session, stage, actor, now, after.decided)
            else:
                ranked = await self.flow.robin.ranking(
                    session, stage, await players(session, stage.seeding)
                )
                order = after.decided + [n for n, _ in ranked if n not in after.decided]
                await self.flow.crown_challenger(session, stage, order, actor, now)
            return TieChoice(player.lichess_username, done=True)
