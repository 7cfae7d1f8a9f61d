"""Breaks between games (rule VI.A) and a player who left mid-match (rule VI.E)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import due
from bot.audit import Actor, record
from bot.clock import Clock
from bot.config import Config
from bot.due import DueKind, Handler
from bot.errors import WrongStage
from bot.events import EventBus
from bot.features.incidents import text as wording
from bot.features.incidents.core import (
    LEFT_CLAIM_VIEW,
    PLAYING,
    SUBJECT,
    IncidentBook,
    IncidentContext,
    context_of,
    db_games_since,
    dm,
    live_incident,
    my_match,
    post,
    refuse_if_played,
    tell,
)
from bot.features.incidents.types import IncidentResult
from bot.features.matches.context import place_of
from bot.lichess.client import LichessClient
from bot.rules import match_conduct as conduct
from bot.service import Service
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import (
    DueAction,
    IncidentKind,
    IncidentState,
    Match,
    MatchIncident,
    Player,
)


class Breaks(Service):
    """/break and /left: each a timer; /left counts as the absent player's break."""

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

    def due_handlers(self) -> dict[DueKind, Handler]:
        return {DueKind.BREAK_END: self.on_break_end, DueKind.LEFT_END: self.on_left_end}

    # --- /break (rule VI.A) -------------------------------------------------------------------

    async def _break_used(self, session: AsyncSession, match_id: int, player_id: int) -> bool:
        """A break taken, or a /left against the player (`match_conduct.break_used`)."""
        incidents = (
            await session.scalars(
                select(MatchIncident).where(
                    MatchIncident.match_id == match_id,
                    MatchIncident.kind.in_((IncidentKind.BREAK, IncidentKind.LEFT)),
                )
            )
        ).all()
        seen = [
            conduct.UsedBreak(i.kind.value, i.state.value, i.reporter_id, i.against_id)
            for i in incidents
        ]
        return conduct.break_used(seen, player_id)

    async def _require_started(
        self, session: AsyncSession, ctx: IncidentContext, refusal: str | None
    ) -> None:
        """Word a refusal of rules VI.A / VI.E: a decided match shows its board."""
        if refusal == "decided":
            await refuse_if_played(session, ctx)
        if refusal in ("decided", "not_started"):
            raise WrongStage(wording.match_not_started())

    async def take_break(self, *, discord_id: int) -> IncidentResult:
        """One break per player per match, between games, at most break_minutes (VI.A)."""
        now = self.clock.now()
        minutes = self.config.match_day.break_minutes
        async with transaction(self.sessions) as session:
            ctx = await my_match(session, discord_id)
            refusal = conduct.break_refusal(
                ctx.match.state.value,
                ctx.match.agreed_time,
                now,
                used=await self._break_used(session, ctx.match.id, ctx.me.id),
            )
            await self._require_started(session, ctx, refusal)
            if refusal == "used":
                raise WrongStage(wording.break_used())
            ends = conduct.break_end(now, minutes)
            incident = MatchIncident(
                match_id=ctx.match.id,
                kind=IncidentKind.BREAK,
                state=IncidentState.OPEN,
                reporter_id=ctx.me.id,
                against_id=None,
                created_at=now,
                ends_at=ends,
                details={},
            )
            session.add(incident)
            await session.flush()
            await due.schedule(
                session,
                kind=DueKind.BREAK_END,
                subject_type=SUBJECT,
                subject_id=incident.id,
                due_at=ends,
            )
            text = wording.break_post(ctx.me.lichess_username, ends, minutes)
            tell(session, ctx, [ctx.opponent], now, text)
            record(
                session,
                at=now,
                actor=Actor.player(discord_id),
                action="break_started",
                subject_type=SUBJECT,
                subject_id=incident.id,
                details={"match_id": ctx.match.id, "ends_at": ends.isoformat()},
            )
            return IncidentResult(incident.id, incident.state, wording.break_reply(ends))

    async def on_break_end(self, session: AsyncSession, action: DueAction, now: datetime) -> None:
        incident = await session.get(MatchIncident, action.subject_id)
        if incident is None or incident.state is not IncidentState.OPEN:
            return
        match = await session.get(Match, incident.match_id)
        me = await session.get(Player, incident.reporter_id)
        incident.state = IncidentState.RESOLVED
        incident.resolved_at = now
        record(
            session,
            at=now,
            actor=Actor.job(),
            action="break_ended",
            subject_type=SUBJECT,
            subject_id=incident.id,
        )
        if match is None or me is None or match.state not in PLAYING:
            return
        ctx = await context_of(session, match, me)
        text = wording.break_over(me.lichess_username)
        tell(session, ctx, [me, ctx.opponent], now, text)

    # --- /left (rule VI.E) --------------------------------------------------------------------

    async def left(self, *, discord_id: int) -> IncidentResult:
        """The opponent left mid-match: they get left_return_minutes, counted as their break."""
        now = self.clock.now()
        minutes = self.config.match_day.left_return_minutes
        async with transaction(self.sessions) as session:
            ctx = await my_match(session, discord_id)
            live = await live_incident(session, ctx.match.id, IncidentKind.LEFT)
            refusal = conduct.left_refusal(
                ctx.match.state.value, ctx.match.agreed_time, now, already_reported=live is not None
            )
            await self._require_started(session, ctx, refusal)
            if refusal == "already_reported":
                raise WrongStage(wording.left_open())
            break_used = await self._break_used(session, ctx.match.id, ctx.opponent.id)
            ends = conduct.left_return_end(now, minutes)
            incident = MatchIncident(
                match_id=ctx.match.id,
                kind=IncidentKind.LEFT,
                state=IncidentState.OPEN,
                reporter_id=ctx.me.id,
                against_id=ctx.opponent.id,
                created_at=now,
                ends_at=ends,
                details={"break_already_used": break_used},
            )
            session.add(incident)
            await session.flush()
            await due.schedule(
                session,
                kind=DueKind.LEFT_END,
                subject_type=SUBJECT,
                subject_id=incident.id,
                due_at=ends,
            )
            post(session, ctx, now, wording.left_post(ctx.opponent.lichess_username, ends, minutes))
            dm(session, ctx, ctx.opponent, now, wording.left_dm(ctx.me.lichess_username, ends))
            if break_used:
                notify_td(
                    session,
                    self.config,
                    now=now,
                    content=wording.left_break_used_td(
                        await place_of(session, self.config.format, ctx.match),
                        ctx.opponent.lichess_username,
                        ctx.me.lichess_username,
                    ),
                )
            record(
                session,
                at=now,
                actor=Actor.player(discord_id),
                action="left_reported",
                subject_type=SUBJECT,
                subject_id=incident.id,
                details={
                    "match_id": ctx.match.id,
                    "against_id": ctx.opponent.id,
                    "break_already_used": break_used,
                },
            )
            return IncidentResult(
                incident.id, incident.state, wording.left_reply(ctx.opponent.lichess_username, ends)
            )

    async def on_left_end(self, session: AsyncSession, action: DueAction, now: datetime) -> None:
        """The return period is over: offer the claimant the Claim the win button, unless
        the player came back (a game of the match was played since the report, rule VI.E:
        "if they don't come back in time")."""
        incident = await session.get(MatchIncident, action.subject_id)
        if (
            incident is not None
            and incident.state is IncidentState.OPEN
            and conduct.left_came_back(
                await db_games_since(session, incident.match_id, incident.created_at)
            )
        ):
            await self.book.cancel(session, incident, now, wording.CAME_BACK, Actor.job())
            return
        await self.book.ask_claimant(
            session,
            action.subject_id,
            now,
            match_states=PLAYING,
            confirm=True,
            message=wording.left_claim_dm,
            view_kind=LEFT_CLAIM_VIEW,
            audit_action="left_claim_offered",
        )
