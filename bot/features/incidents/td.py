"""The TD's incident ruling: overrule a no-show or left claim, taking back its forfeit."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor, record, record_td_decision
from bot.clock import Clock
from bot.config import Config
from bot.errors import InvalidInput, WrongStage
from bot.events import EventBus
from bot.features.discipline import service as discipline
from bot.features.incidents import text as wording
from bot.features.incidents.core import (
    LIVE,
    SUBJECT,
    IncidentBook,
    IncidentContext,
    context_of,
    tell,
)
from bot.features.incidents.types import IncidentResult
from bot.features.matches.context import match_label
from bot.features.matches.round_post import queue_round_post_update
from bot.features.matches.text import incident_called
from bot.lichess.client import LichessClient
from bot.message_text import quote
from bot.service import Service
from db.engine import transaction
from db.models import (
    IncidentKind,
    IncidentState,
    Match,
    MatchIncident,
    MatchState,
    Player,
    RoundState,
)


class Overrules(Service):
    """/td incident overrule."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        book: IncidentBook,
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        super().__init__(sessions, config, clock, lichess=lichess, events=events)
        self.book = book

    # --- the TD ---------------------------------------------------------------------------------

    async def overrule(self, *, td_id: int, incident_id: int, reason: str) -> IncidentResult:
        """The TD overrules a claim: an open one is cancelled, a forfeit is taken back."""
        now = self.clock.now()
        reason = reason.strip()
        if not reason:
            raise InvalidInput(wording.overrule_needs_reason())
        actor = Actor.td(td_id)
        async with transaction(self.sessions) as session:
            incident = await session.get(MatchIncident, incident_id)
            if incident is None:
                raise InvalidInput(wording.no_such_incident(incident_id))
            if incident.kind not in (IncidentKind.NO_SHOW, IncidentKind.LEFT):
                raise WrongStage(wording.only_claims_overruled())
            match = await session.get(Match, incident.match_id)
            me = await session.get(Player, incident.reporter_id)
            assert match is not None and me is not None
            ctx = await context_of(session, match, me)
            if incident.state is IncidentState.CLAIMED:
                await self._undo_forfeit(session, incident, ctx, actor, now)
            elif incident.state not in LIVE:
                raise WrongStage(wording.incident_closed())
            await self.book.cancel(
                session, incident, now, wording.OVERRULED, actor, reason=quote(reason)
            )
            record_td_decision(
                session,
                at=now,
                td_id=td_id,
                kind="overrule",
                subject_type=SUBJECT,
                subject_id=incident.id,
                decision="overruled",
                reason=reason,
            )
            claim = incident_called(
                incident.kind.value, ctx.me.lichess_username, ctx.opponent.lichess_username
            )
            text = wording.overruled_post(claim, reason)
            # the claimant hears it here; the accused by the DM withdrawing the claim (_cancel)
            tell(session, ctx, [ctx.me], now, text)
            return IncidentResult(incident.id, incident.state, wording.overrule_reply(claim))

    async def _undo_forfeit(
        self,
        session: AsyncSession,
        incident: MatchIncident,
        ctx: IncidentContext,
        actor: Actor,
        now: datetime,
    ) -> None:
        """Take a claimed forfeit back: the match reopens for negotiation in its round."""
        match = ctx.match
        if match.state is not MatchState.FORFEITED or match.forfeit_winner_id != ctx.me.id:
            label = await match_label(session, self.config.format, match)
            raise WrongStage(wording.forfeit_no_longer_stands(label))
        if ctx.round_.state is not RoundState.PUBLISHED:
            label = await match_label(session, self.config.format, match)
            raise WrongStage(wording.round_closed_for_overrule(ctx.round_.number, label))
        if incident.details.get("disqualified") and ctx.opponent.disqualified_at is not None:
            await discipline.reinstate(
                session, self.config, player_id=ctx.opponent.id, actor=actor, now=now
            )
        match.state = MatchState.NEGOTIATING
        match.agreed_time = None
        match.challenge_url = None
        match.forfeit_winner_id = None
        match.points_a = match.points_b = None
        match.finished_at = None
        record(
            session,
            at=now,
            actor=actor,
            action="forfeit_overruled",
            subject_type="match",
            subject_id=match.id,
            details={"incident_id": incident.id},
        )
        await queue_round_post_update(session, ctx.round_.id, now=now, board=match.board)
