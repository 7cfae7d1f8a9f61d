"""The TD's discipline use cases: disqualify a player, reinstate one (rules VI.F, VIII)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.audit import Actor, record_td_decision
from bot.errors import InvalidInput
from bot.events import PlayerReinstated
from bot.features.discipline import service as discipline
from bot.features.discipline import text as wording
from bot.service import Service
from db.engine import transaction
from db.models import Player


class DisciplineService(Service):
    """Each TD ruling is one transaction: the effects of rule VIII and its audit entry."""

    async def _player_named(self, session: AsyncSession, name: str) -> Player:
        player = await session.scalar(
            select(Player).where(Player.lichess_id == name.strip().lower())
        )
        if player is None:
            raise InvalidInput(wording.no_player_called(name))
        return player

    async def td_disqualify(
        self,
        *,
        td_id: int,
        player_name: str,
        reason: str,
        engine: bool,
        also: str | None = None,
    ) -> str:
        """Disqualify a player; with `also`, the other account of the same person too, in
        the same transaction (rule II.C.4: one person, two accounts, both out)."""
        now = self.clock.now()
        reason = reason.strip()
        if not reason:
            raise InvalidInput(wording.reason_needed())
        async with transaction(self.sessions) as session:
            players = [await self._player_named(session, player_name)]
            if also is not None and also.strip():
                other = await self._player_named(session, also)
                if other.id == players[0].id:
                    raise InvalidInput(wording.other_account_needed())
                players.append(other)
            linked = len(players) == 2
            for player in players:
                why = wording.two_accounts_reason(reason) if linked else reason
                await discipline.disqualify(
                    session,
                    self.config,
                    self.events,
                    player_id=player.id,
                    reason=why,
                    engine_mark=engine,
                    actor=Actor.td(td_id),
                    now=now,
                )
                record_td_decision(
                    session,
                    at=now,
                    td_id=td_id,
                    kind="disqualify",
                    subject_type="player",
                    subject_id=player.id,
                    decision="engine" if engine else "dq",
                    reason=why,
                    details={"linked": [p.id for p in players if p.id != player.id]}
                    if linked
                    else None,
                )
            return " and ".join(p.lichess_username for p in players)

    async def td_reinstate(self, *, td_id: int, player_name: str) -> str:
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            player = await self._player_named(session, player_name)
            await discipline.reinstate(
                session, self.config, player_id=player.id, actor=Actor.td(td_id), now=now
            )
            record_td_decision(
                session,
                at=now,
                td_id=td_id,
                kind="reinstate",
                subject_type="player",
                subject_id=player.id,
                decision="reinstated",
                reason=None,
            )
            await self.events.publish(session, PlayerReinstated(Actor.td(td_id), player.id), now)
            return player.lichess_username
