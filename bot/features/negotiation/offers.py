"""The players' side of rule V: see the match, offer times, reschedule, choose.

Each method is one use case: it reads and validates first, then writes the change, its
audit row, its due actions and its messages in one short transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import due, stage_kinds
from bot.audit import Actor, record
from bot.clock import Clock
from bot.config import Config
from bot.due import DueKind
from bot.errors import InvalidInput, NotAllowed, WrongStage
from bot.events import EventBus
from bot.features.matches.context import (
    MatchContext,
    current_match,
    load_context,
    match_progress,
    player_by_discord,
)
from bot.features.negotiation import text as wording
from bot.features.negotiation.agreement import (
    MATCH_SUBJECT,
    OFFER_SUBJECT,
    Agreements,
    offer_info,
    offer_numbers,
    offers_of,
    require_open_match,
)
from bot.features.negotiation.common import (
    TimeChecks,
    counted_offer_times,
    counted_offers,
    new_offer,
    offers_due_at,
    saved_zone,
)
from bot.features.negotiation.types import (
    Agreement,
    MatchView,
    OfferResult,
    RescheduleResult,
)
from bot.lichess.client import LichessClient
from bot.outbox import enqueue_channel
from bot.rules.final import final_session_over
from bot.rules.negotiation import (
    counted_offer_problems,
)
from bot.service import Service
from db.engine import transaction
from db.models import (
    MatchState,
    OfferKind,
    OfferState,
    Stage,
    TimeOffer,
)


class PlayerOffers(Service):
    """The players' use cases: /match, /offer, /reschedule, /choose (/accept is
    `agreement.Agreements.accept`)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        agreements: Agreements,
        times: TimeChecks,
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        super().__init__(sessions, config, clock, lichess=lichess, events=events)
        self.agreements = agreements
        self.times = times

    # --- /match -----------------------------------------------------------------------------

    async def match_view(self, *, discord_id: int) -> MatchView:
        now = self.clock.now()
        async with self.sessions() as session:
            player = await player_by_discord(session, discord_id)
            ctx = await load_context(session, await current_match(session, player))
            offers = await offers_of(session, ctx.match.id)
            progress = await match_progress(session, ctx) if ctx.b is not None else None
        due_at = offers_due_at(ctx.round_, self.config)
        required = self.config.negotiation.required_offers
        opponent = ctx.opponent_of(player.id) if ctx.b is not None else None

        def owed(pid: int) -> int:
            return max(0, required - counted_offers(offers, pid, due_at))

        return MatchView(
            match_id=ctx.match.id,
            round_number=ctx.round_.number,
            board=ctx.match.board,
            me=player.lichess_username,
            opponent=opponent.lichess_username if opponent else None,
            state=ctx.match.state,
            agreed_time=ctx.match.agreed_time,
            offers=[
                offer_info(ctx, o, player.id, number=offer_numbers(offers)[o.id]) for o in offers
            ],
            my_offers_owed=owed(player.id),
            opponent_offers_owed=owed(opponent.id) if opponent else 0,
            offers_due=due_at,
            round_deadline=ctx.round_.deadline,
            chooser=ctx.name(ctx.match.chooser_id) if ctx.match.chooser_id else None,
            i_choose=ctx.match.chooser_id == player.id,
            td_assigns=ctx.match.td_assigns,
            progress=progress,
            started=ctx.match.agreed_time is not None and now >= ctx.match.agreed_time,
        )

    async def offer(self, *, discord_id: int, text: str) -> OfferResult:
        """One or more offers (rules V.C, V.D, V.G); a refused offer changes nothing."""
        now = self.clock.now()
        neg = self.config.negotiation
        async with transaction(self.sessions) as session:
            player = await player_by_discord(session, discord_id)
            ctx = await load_context(session, await current_match(session, player))
            await self._next_final_session(session, ctx, discord_id, now)
            require_open_match(ctx, unagreed=True)  # rule V.A
            opponent = ctx.opponent_of(player.id)
            zone = saved_zone(player)
            times = self.times.parse_many(text, ctx.round_, zone)
            existing = await offers_of(session, ctx.match.id)
            due_at = offers_due_at(ctx.round_, self.config)
            numbers = offer_numbers(existing)
            problems: list[str] = []
            fine: list[datetime] = []
            for t in times:
                found = self.times.problems(t, ctx.round_, now)
                if t in fine:
                    found.append(wording.twice_in_message(t))
                for o in existing:
                    if o.proposed_time == t and o.state is OfferState.OPEN:
                        if o.offered_by_id == player.id:
                            found.append(wording.own_duplicate(t, numbers[o.id]))
                        elif o.kind is OfferKind.OFFER:
                            found.append(wording.opponent_offered(t, numbers[o.id]))
                if found:
                    problems += [p for p in found if p not in problems]
                else:
                    fine.append(t)
            problems += [  # rule V.D binds only the offers that count (rule V.C)
                wording.with_discord_times(p)
                for p in counted_offer_problems(
                    counted_offer_times(existing, player.id, due_at),
                    fine,
                    in_time=now < due_at,
                    required=neg.required_offers,
                    min_gap=timedelta(hours=neg.min_gap_hours),
                    max_per_date=neg.max_offers_per_date,
                )
            ]
            if problems:
                raise InvalidInput(wording.offer_refused(problems))

            made: list[TimeOffer] = []
            for t in times:
                made.append(
                    await new_offer(
                        session, self.config, ctx, player, opponent, OfferKind.OFFER, t, now
                    )
                )
            counted = counted_offers([*existing, *made], player.id, due_at)
            numbers = offer_numbers([*existing, *made])
            return OfferResult(
                match_id=ctx.match.id,
                opponent=opponent.lichess_username,
                offers=[offer_info(ctx, o, player.id, number=numbers[o.id]) for o in made],
                still_owed=max(0, neg.required_offers - counted),
                offers_due=due_at,
                read_in=zone.key if zone else None,
            )

    async def _next_final_session(
        self, session: AsyncSession, ctx: MatchContext, discord_id: int, now: datetime
    ) -> None:
        """The Final is split over sessions (rule VI.C): an offer once a session has begun
        asks for the next one, so the match goes back to negotiation, its score kept."""
        match = ctx.match
        stage = await session.get(Stage, ctx.round_.stage_id)
        if match.agreed_time is None or not final_session_over(  # rule VI.C, rules/final.py
            agreed=match.agreed_time,
            under_way=match.state in (MatchState.SCHEDULED, MatchState.IN_PROGRESS),
            is_final=stage is not None and stage_kinds.is_final_match(self.config.format, stage),
            now=now,
        ):
            return
        record(
            session,
            at=now,
            actor=Actor.player(discord_id),
            action="final_session_ended",
            subject_type=MATCH_SUBJECT,
            subject_id=match.id,
            details={"session_start": match.agreed_time.isoformat()},
        )
        match.state, match.agreed_time, match.challenge_url = MatchState.NEGOTIATING, None, None
        announce = self.config.discord.announcement_channel_id
        if announce and ctx.b is not None:
            enqueue_channel(
                session,
                channel_id=announce,
                now=now,
                content=wording.final_session_score(
                    ctx.a.lichess_username, ctx.b.lichess_username, match.score_a, match.score_b
                ),
            )
        await due.cancel(
            session,
            subject_type=MATCH_SUBJECT,
            subject_id=match.id,
            now=now,
            kinds=(DueKind.MATCH_REMINDER,),
        )

    # --- /reschedule ------------------------------------------------------------------------

    async def reschedule(self, *, discord_id: int, text: str) -> RescheduleResult:
        """Propose a new time for an agreed match; it takes effect once the opponent accepts."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            player = await player_by_discord(session, discord_id)
            ctx = await load_context(session, await current_match(session, player))
            require_open_match(ctx)
            current = ctx.match.agreed_time
            if current is None:
                raise WrongStage(wording.nothing_to_reschedule())
            opponent = ctx.opponent_of(player.id)
            t = self.times.parse_one(text, ctx.round_, saved_zone(player))
            problems = self.times.problems(t, ctx.round_, now)
            if t == current:
                problems.append(wording.same_as_agreed(t))
            if problems:
                raise InvalidInput(wording.offer_refused(problems))
            for o in await offers_of(session, ctx.match.id):
                if o.state is OfferState.OPEN and o.kind is OfferKind.RESCHEDULE:
                    if o.offered_by_id == player.id:  # the new proposal replaces the old one
                        o.state = OfferState.WITHDRAWN
                        o.answered_at = now
                        await due.cancel(
                            session, subject_type=OFFER_SUBJECT, subject_id=o.id, now=now
                        )
            row = await new_offer(
                session, self.config, ctx, player, opponent, OfferKind.RESCHEDULE, t, now
            )
            number = offer_numbers(await offers_of(session, ctx.match.id))[row.id]
            return RescheduleResult(
                ctx.match.id,
                opponent.lichess_username,
                offer_info(ctx, row, player.id, number=number),
                current,
            )

    # --- /choose (rules V.E, V.I) -----------------------------------------------------------

    async def choose(self, *, discord_id: int, text: str) -> Agreement:
        now = self.clock.now()
        async with self.sessions() as session:
            player = await player_by_discord(session, discord_id)
            ctx = await load_context(session, await current_match(session, player))
        require_open_match(ctx, unagreed=True)  # rule V.A
        if ctx.match.chooser_id != player.id or ctx.match.td_assigns:
            chooser = ctx.name(ctx.match.chooser_id) if ctx.match.chooser_id else None
            raise NotAllowed(wording.not_chooser(chooser, ctx.match.td_assigns))
        t = self.times.parse_one(text, ctx.round_, saved_zone(player))
        problems = self.times.problems(t, ctx.round_, now)
        if problems:
            raise InvalidInput(wording.offer_refused(problems))
        return await self.agreements.fix_time(
            ctx.match.id,
            t,
            OfferKind.CHOSEN,
            Actor.player(discord_id),
            now,
            offered_by=player.id,
            chooser_id=player.id,
        )
