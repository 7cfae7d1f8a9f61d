"""/accept and the one agreed time (rule V.G): the use case the cog calls, and the step
every agreement shares (an accepted offer, a time chosen under rules V.E and V.I, a time
the TD assigns).

Agreement is decided by a conditional UPDATE on the match (`agreed_time IS NULL`, or the
agreed time the accept was based on), so two accepts at the same moment end with exactly
one agreed time and the loser is told which. Each agreement publishes `MatchAgreed`.
Following /accept: `cog.py`, this module, `bot.features.matches.context` (the match and
its players), `bot.rules.negotiation.acceptance_refusal`, `db.models`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot import due
from bot.audit import Actor, record
from bot.due import DueKind
from bot.errors import InvalidInput, NotAllowed, WrongStage
from bot.events import MatchAgreed
from bot.features.matches.context import (
    MatchContext,
    context_by_id,
    current_match,
    load_context,
    mention,
    player_by_discord,
    post_for_match,
)
from bot.features.matches.round_post import queue_round_post_update
from bot.features.negotiation import td_text as td_wording
from bot.features.negotiation import text as wording
from bot.features.negotiation.types import Agreement, OfferInfo
from bot.rules.negotiation import (
    AcceptRefusal,
    NegotiationRefusal,
    acceptance_refusal,
    negotiation_refusal,
)
from bot.service import Service
from db.engine import transaction
from db.models import (
    AuditEntry,
    Match,
    MatchState,
    OfferKind,
    OfferState,
    Player,
    TimeOffer,
)

OFFER_ACCEPT_VIEW = "offer_accept"
MATCH_SUBJECT = "match"
OFFER_SUBJECT = "time_offer"

ANSWERABLE = (OfferKind.OFFER, OfferKind.RESCHEDULE)
OVER = (MatchState.FINISHED, MatchState.FORFEITED, MatchState.BYE, MatchState.IN_PROGRESS)


class Lost(Exception):
    """The conditional update matched nothing: someone else changed the match first."""


async def offers_of(session: AsyncSession, match_id: int) -> list[TimeOffer]:
    return list(
        (
            await session.scalars(
                select(TimeOffer).where(TimeOffer.match_id == match_id).order_by(TimeOffer.id)
            )
        ).all()
    )


def offer_numbers(offers: Sequence[TimeOffer]) -> dict[int, int]:
    """Each offer's number among its offerer's offers in the match (1st, 2nd...): what
    players read and type into `/accept offer:`. The row id is global and would read as a
    count toward rule V.C's three offers."""
    numbers: dict[int, int] = {}
    seen: dict[int | None, int] = {}
    for o in sorted(offers, key=lambda o: o.id):
        seen[o.offered_by_id] = seen.get(o.offered_by_id, 0) + 1
        numbers[o.id] = seen[o.offered_by_id]
    return numbers


def offer_info(
    ctx: MatchContext, offer: TimeOffer, me: int | None = None, *, number: int = 0
) -> OfferInfo:
    return OfferInfo(
        id=offer.id,
        number=number,
        by_player_id=offer.offered_by_id,
        by_name=ctx.name(offer.offered_by_id),
        kind=offer.kind,
        time=offer.proposed_time,
        state=offer.state,
        created_at=offer.created_at,
        answered_at=offer.answered_at,
        mine=me is not None and offer.offered_by_id == me,
    )


def _opponents_offer(offers: Sequence[TimeOffer], player: Player, number: int) -> TimeOffer:
    """`/accept offer:N`: the opponent's Nth offer in the player's current match (only the
    opponent's offers can be accepted, so their number names one)."""
    numbers = offer_numbers(offers)
    for o in offers:
        if o.offered_by_id is not None and o.offered_by_id != player.id and numbers[o.id] == number:
            return o
    raise InvalidInput(wording.no_such_offer(number))


def require_open_match(ctx: MatchContext, *, unagreed: bool = False) -> Player:
    """The opponent of player A, if the match's time may still be negotiated (rule V.A,
    decided by `negotiation_refusal`); `unagreed`: and no time is agreed yet."""
    refusal = negotiation_refusal(
        bye=ctx.b is None or ctx.match.state is MatchState.BYE,
        over=ctx.match.state in OVER,
        agreed=unagreed and ctx.match.agreed_time is not None,
    )
    if refusal is NegotiationRefusal.BYE:
        raise WrongStage(wording.bye())
    if refusal is NegotiationRefusal.OVER:
        raise WrongStage(wording.match_over())
    if refusal is NegotiationRefusal.AGREED and ctx.match.agreed_time is not None:
        raise WrongStage(wording.already_agreed(ctx.match.agreed_time))
    assert ctx.b is not None
    return ctx.b


def rowcount(result: Any) -> int:
    return int(cast(CursorResult[Any], result).rowcount)


async def schedule_fresh(
    session: AsyncSession,
    *,
    kind: DueKind,
    subject_type: str,
    subject_id: int,
    due_at: datetime,
    payload: dict[str, Any],
) -> None:
    """Schedule an action; one cancelled earlier for the same instant is revived."""
    action = await due.schedule(
        session,
        kind=kind,
        subject_type=subject_type,
        subject_id=subject_id,
        due_at=due_at,
        payload=payload,
    )
    if action.done_at is None:  # only what differs, or the row is written again for nothing
        if action.cancelled_at is not None:
            action.cancelled_at = None
        if action.payload != payload:
            action.payload = payload


class Agreements(Service):
    """/accept, and fixing the agreed time exactly once (a conditional UPDATE decides
    between racing accepts); the other use cases hold one to fix a chosen or assigned time."""

    # --- /accept and the Accept button ------------------------------------------------------

    async def accept(
        self, *, discord_id: int, offer_id: int | None = None, number: int | None = None
    ) -> Agreement:
        """The opponent of the offerer accepts an open offer or reschedule (rule V.G): the
        Accept button names the offer's row (`offer_id`), `/accept offer:N` the opponent's
        Nth offer in the player's current match (`number`), neither the one open offer."""
        now = self.clock.now()
        async with self.sessions() as session:
            player = await player_by_discord(session, discord_id)
            if offer_id is None and number is None:
                ctx = await load_context(session, await current_match(session, player))
                open_offers = [
                    o
                    for o in await offers_of(session, ctx.match.id)
                    if o.state is OfferState.OPEN
                    and o.kind in ANSWERABLE
                    and o.offered_by_id != player.id
                ]
                if not open_offers:
                    raise InvalidInput(wording.no_open_offer())
                if len(open_offers) > 1:
                    numbers = offer_numbers(await offers_of(session, ctx.match.id))
                    raise InvalidInput(
                        wording.several_open(
                            [offer_info(ctx, o, number=numbers[o.id]) for o in open_offers]
                        )
                    )
                offer = open_offers[0]
            elif number is not None:
                ctx = await load_context(session, await current_match(session, player))
                offer = _opponents_offer(await offers_of(session, ctx.match.id), player, number)
            else:
                found = await session.get(TimeOffer, offer_id)
                if found is None:
                    raise InvalidInput(wording.no_such_offer_row())
                offer = found
                ctx = await context_by_id(session, offer.match_id)
            refusal = acceptance_refusal(  # rule V.G, decided in bot/rules/negotiation.py
                accepter=player.id,
                offered_by=offer.offered_by_id,
                players=[p.id for p in (ctx.a, ctx.b) if p is not None],
                answerable=offer.state is OfferState.OPEN and offer.kind in ANSWERABLE,
                replaces_agreed=offer.kind is OfferKind.RESCHEDULE,
                agreed=ctx.match.agreed_time is not None,
                proposed=offer.proposed_time,
                round_end=ctx.round_.deadline,
                now=now,
            )
            if refusal is AcceptRefusal.OWN_OFFER:
                raise NotAllowed(wording.own_offer())
            if refusal is AcceptRefusal.NOT_A_PLAYER and offer.offered_by_id is not None:
                opponent = ctx.opponent_of(offer.offered_by_id)
                raise NotAllowed(wording.only_opponent_accepts(opponent.lichess_username))
            if offer.offered_by_id is not None:
                require_open_match(ctx)  # a bye, or a match already over
            if refusal is AcceptRefusal.CLOSED:
                raise WrongStage(wording.offer_closed(ctx.match.agreed_time))
            if refusal is AcceptRefusal.ROUND_OVER:
                raise WrongStage(wording.round_over(ctx.round_.deadline))
            if refusal is AcceptRefusal.TIME_PASSED:
                raise InvalidInput(wording.time_passed(offer.proposed_time))
            previous = ctx.match.agreed_time
            match_id, kind, t, chosen_id = ctx.match.id, offer.kind, offer.proposed_time, offer.id
        try:
            async with transaction(self.sessions) as session:
                # Writes first, and the match row first: that first write takes SQLite's
                # write lock and PostgreSQL's row lock on the match, so racing accepts and TD
                # rulings queue on the same lock in the same order (no deadlock) and the
                # second one sees the first one's result.
                await self._set_time(session, match_id, t, previous=previous)
                changed = await session.execute(
                    update(TimeOffer)
                    .where(TimeOffer.id == chosen_id, TimeOffer.state == OfferState.OPEN)
                    .values(state=OfferState.ACCEPTED, answered_at=now)
                    .execution_options(synchronize_session=False)
                )
                if rowcount(changed) != 1:
                    raise Lost
                await self._after_agreement(
                    session, match_id, t, previous, kind, Actor.player(discord_id), now, chosen_id
                )
        except Lost:
            raise await self._lost(match_id, previous) from None
        return Agreement(match_id, t, previous, kind)

    async def _set_time(
        self,
        session: AsyncSession,
        match_id: int,
        t: datetime,
        *,
        previous: datetime | None,
        chooser_id: int | None = None,
        any_previous: bool = False,
    ) -> None:
        """The conditional UPDATE that makes exactly one agreement win."""
        statement = update(Match).where(Match.id == match_id)
        if any_previous:
            statement = statement.where(
                Match.state.in_((MatchState.NEGOTIATING, MatchState.SCHEDULED))
            )
        elif previous is None:
            statement = statement.where(
                Match.agreed_time.is_(None), Match.state == MatchState.NEGOTIATING
            )
        else:
            statement = statement.where(
                Match.agreed_time == previous, Match.state == MatchState.SCHEDULED
            )
        if chooser_id is not None:
            statement = statement.where(Match.chooser_id == chooser_id)
        changed = await session.execute(
            statement.values(agreed_time=t, state=MatchState.SCHEDULED).execution_options(
                synchronize_session=False
            )
        )
        if rowcount(changed) != 1:
            raise Lost

    async def _lost(self, match_id: int, previous: datetime | None) -> WrongStage:
        async with self.sessions() as session:
            match = await session.get(Match, match_id)
        if match is not None and match.agreed_time is not None and match.agreed_time != previous:
            return WrongStage(wording.lost_race(match.agreed_time))
        return WrongStage(wording.offer_closed(match.agreed_time if match else None))

    async def _after_agreement(
        self,
        session: AsyncSession,
        match_id: int,
        t: datetime,
        previous: datetime | None,
        kind: OfferKind,
        actor: Actor,
        now: datetime,
        chosen_offer_id: int,
    ) -> None:
        """Supersede the other offers, move the reminders, tell everyone, update the post."""
        ctx = await context_by_id(session, match_id)
        offers = await offers_of(session, match_id)
        for o in offers:
            if o.id != chosen_offer_id and o.state is OfferState.OPEN:
                o.state = OfferState.SUPERSEDED
                o.answered_at = now
        await due.cancel(
            session,
            subject_type=OFFER_SUBJECT,
            subject_id=[o.id for o in offers],
            now=now,
            kinds=(DueKind.OFFER_UNANSWERED,),
        )
        await due.cancel(
            session,
            subject_type=MATCH_SUBJECT,
            subject_id=match_id,
            now=now,
            kinds=(DueKind.MATCH_REMINDER,),
        )
        for hours in self.config.negotiation.match_reminders_hours:
            at = t - timedelta(hours=hours)
            if at > now:
                await schedule_fresh(
                    session,
                    kind=DueKind.MATCH_REMINDER,
                    subject_type=MATCH_SUBJECT,
                    subject_id=match_id,
                    due_at=at,
                    payload={"agreed_time": t.isoformat(), "hours": hours},
                )
        record(
            session,
            at=now,
            actor=actor,
            action="match_time_set",
            subject_type=MATCH_SUBJECT,
            subject_id=match_id,
            details={
                "time": t.isoformat(),
                "previous": previous.isoformat() if previous else None,
                "kind": kind.value,
                "offer_id": chosen_offer_id,
            },
        )
        b = require_open_match(ctx)
        a = ctx.a
        chosen = next(o for o in offers if o.id == chosen_offer_id)
        bound = None
        if kind is OfferKind.CHOSEN:
            chooser = ctx.player(chosen.offered_by_id)
            # the TD's ruling of fault (rules V.H, V.I) or the missed offers (rule V.E)
            ruled = await session.scalar(
                select(AuditEntry.id).where(
                    AuditEntry.action == "negotiation_fault",
                    AuditEntry.subject_type == MATCH_SUBJECT,
                    AuditEntry.subject_id == match_id,
                )
            )
            if chooser is not None:
                bound = (
                    chooser.lichess_username,
                    ctx.opponent_of(chooser.id).lichess_username,
                    ruled is not None,
                )
        assigned = None
        if kind is OfferKind.ASSIGNED:
            why = await _assigned_why(session, ctx.match)
            assigned = td_wording.assigned_how(why, self.config.negotiation.required_offers)
        post_for_match(
            session,
            [a, b],
            thread_id=ctx.thread_id,
            now=now,
            content=wording.agreed_post(
                mention(a), mention(b), t, previous, kind, bound, assigned=assigned
            ),
        )
        await queue_round_post_update(session, ctx.round_.id, now=now, board=ctx.match.board)
        agreed = MatchAgreed(actor, match_id=match_id, time=t, previous=previous)
        await self.events.publish(session, agreed, now)

    async def fix_time(
        self,
        match_id: int,
        t: datetime,
        kind: OfferKind,
        actor: Actor,
        now: datetime,
        *,
        offered_by: int | None,
        chooser_id: int | None = None,
        previous: datetime | None = None,
        any_previous: bool = False,
    ) -> Agreement:
        """A time chosen (rules V.E, V.I) or assigned by the TD (rules V.F, V.I): recorded as
        an accepted offer of its `kind`, in one transaction with the agreement."""
        try:
            async with transaction(self.sessions) as session:
                await self._set_time(
                    session,
                    match_id,
                    t,
                    previous=previous,
                    chooser_id=chooser_id,
                    any_previous=any_previous,
                )
                row = TimeOffer(
                    match_id=match_id,
                    offered_by_id=offered_by,
                    kind=kind,
                    proposed_time=t,
                    state=OfferState.ACCEPTED,
                    created_at=now,
                    answered_at=now,
                )
                session.add(row)
                await session.flush()
                await self._after_agreement(
                    session, match_id, t, previous, kind, actor, now, row.id
                )
        except Lost:
            raise await self._lost(match_id, previous) from None
        return Agreement(match_id, t, previous, kind)


async def _assigned_why(session: AsyncSession, match: Match) -> str | None:
    """Why the TD assigns this match's time: the last ruling that gave it to them, the
    offers' deadline passing with none made by either (rule V.F) or the TD finding nobody
    at fault (rules V.H, V.I); None when no rule did (the TD moved the time themselves)."""
    if not match.td_assigns:
        return None
    action = await session.scalar(
        select(AuditEntry.action)
        .where(
            AuditEntry.action.in_(("offers_due_fault", "negotiation_fault")),
            AuditEntry.subject_type == MATCH_SUBJECT,
            AuditEntry.subject_id == match.id,
        )
        .order_by(AuditEntry.id.desc())
        .limit(1)
    )
    return td_wording.NO_FAULT if action == "negotiation_fault" else td_wording.NO_OFFERS
