"""The core of match-time negotiation (rule V): offers and the one agreed time.

Agreement is decided by a conditional UPDATE on the match (`agreed_time IS NULL`, or the
agreed time the accept was based on), so two accepts at the same moment end with exactly
one agreed time and the loser is told which. Each agreement publishes `MatchAgreed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, tzinfo
from typing import Any, cast
from zoneinfo import ZoneInfo

from sqlalchemy import CursorResult, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot import due
from bot.audit import Actor, record
from bot.config import Config
from bot.due import DueKind
from bot.errors import InvalidInput, WrongStage
from bot.events import MatchAgreed
from bot.features.matches.context import (
    MatchContext,
    context_by_id,
    mention,
    message_player,
    post_for_match,
)
from bot.features.matches.round_post import queue_round_post_update
from bot.features.negotiation import text as wording
from bot.features.negotiation.types import (
    Agreement,
    OfferInfo,
)
from bot.rules.negotiation import in_past, too_late
from bot.rules.timeinput import TimeInputError, parse_time, parse_times, zone_named
from bot.service import Service
from db.engine import transaction
from db.models import (
    AuditEntry,
    Match,
    MatchState,
    OfferKind,
    OfferState,
    Player,
    Round,
    TimeOffer,
)

OFFER_ACCEPT_VIEW = "offer_accept"
MATCH_SUBJECT = "match"
OFFER_SUBJECT = "time_offer"

ANSWERABLE = (OfferKind.OFFER, OfferKind.RESCHEDULE)
OVER = (MatchState.FINISHED, MatchState.FORFEITED, MatchState.BYE, MatchState.IN_PROGRESS)
# Only words that cannot be mistaken for a Lichess username (a player may be called "none").
NOBODY = frozenset({"nobody", "no one"})
HOW = {
    OfferKind.OFFER: "offer accepted",
    OfferKind.RESCHEDULE: "reschedule accepted",
    OfferKind.CHOSEN: "chosen under rule V.E",
    OfferKind.ASSIGNED: "assigned by the TD under rules V.F/V.I",
}
HOW_AFTER_RULING = "chosen under rule V.I"  # a choice after the TD found fault (rule V.H)


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


def offer_info(ctx: MatchContext, offer: TimeOffer, me: int | None = None) -> OfferInfo:
    return OfferInfo(
        id=offer.id,
        by_player_id=offer.offered_by_id,
        by_name=ctx.name(offer.offered_by_id),
        kind=offer.kind,
        time=offer.proposed_time,
        state=offer.state,
        created_at=offer.created_at,
        answered_at=offer.answered_at,
        mine=me is not None and offer.offered_by_id == me,
    )


def offers_due_at(round_: Round, config: Config) -> datetime:
    return round_.starts_at + timedelta(hours=config.negotiation.offers_due_hours)


def counted_offers(offers: Sequence[TimeOffer], player_id: int, before: datetime) -> int:
    """Offers that count for rule V.C: the player's own OFFER-kind offers made in time."""
    return sum(
        1
        for o in offers
        if o.offered_by_id == player_id
        and o.kind is OfferKind.OFFER
        and o.state is not OfferState.WITHDRAWN
        and o.created_at < before
    )


def counted_offer_times(
    offers: Sequence[TimeOffer], player_id: int, before: datetime
) -> list[datetime]:
    """The times of the offers that count for rule V.C (see `counted_offers`), oldest first:
    the ones rule V.D constrains (`bot.rules.negotiation.offers_that_count` keeps 3)."""
    mine = [
        o
        for o in offers
        if o.offered_by_id == player_id
        and o.kind is OfferKind.OFFER
        and o.state is not OfferState.WITHDRAWN
        and o.created_at < before
    ]
    return [o.proposed_time for o in sorted(mine, key=lambda o: (o.created_at, o.id))]


def saved_zone(player: Player) -> ZoneInfo | None:
    """The zone the player set with /timezone; None for UTC, or for a name the tz database
    no longer has (then times are read in UTC, and the reply says so)."""
    if not player.time_zone:
        return None
    try:
        return zone_named(player.time_zone)
    except TimeInputError:
        return None


def require_open_match(ctx: MatchContext) -> Player:
    if ctx.b is None or ctx.match.state is MatchState.BYE:
        raise WrongStage(wording.bye())
    if ctx.match.state in OVER:
        raise WrongStage(wording.match_over())
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


class AgreementBase(Service):
    """What every negotiation use case shares: reading times, making offers, and fixing
    the agreed time exactly once (a conditional UPDATE decides between racing accepts)."""

    @property
    def _margin(self) -> timedelta:
        return timedelta(minutes=self.config.negotiation.finish_margin_minutes)

    def _time_problems(self, t: datetime, round_: Round, now: datetime) -> list[str]:
        if in_past(t, now):
            return [wording.in_the_past(t)]
        if t < round_.starts_at:
            return [wording.before_round(t, round_.starts_at)]
        if t > round_.deadline:  # refused before any arithmetic on a far-off time
            return [wording.after_round(t, round_.deadline)]
        if too_late(t, round_.deadline, margin=self._margin):
            return [
                wording.too_late(t, round_.deadline, self.config.negotiation.finish_margin_minutes)
            ]
        return []

    def _parse_many(self, raw: str, round_: Round, zone: tzinfo | None = None) -> list[datetime]:
        """The UTC instants of the times a player typed (rule V.B); a time without a zone
        is read in `zone`, the player's own (`saved_zone`), or UTC."""
        try:
            return parse_times(
                raw, round_start=round_.starts_at, round_end=round_.deadline, zone=zone
            )
        except TimeInputError as exc:
            raise InvalidInput(exc.message) from None

    def _parse_one(self, raw: str, round_: Round, zone: tzinfo | None = None) -> datetime:
        try:
            return parse_time(
                raw, round_start=round_.starts_at, round_end=round_.deadline, zone=zone
            )
        except TimeInputError as exc:
            raise InvalidInput(exc.message) from None

    async def _new_offer(
        self,
        session: AsyncSession,
        ctx: MatchContext,
        player: Player,
        opponent: Player,
        kind: OfferKind,
        t: datetime,
        now: datetime,
    ) -> TimeOffer:
        """An open offer with its unanswered reminder, audit row and Accept messages."""
        row = TimeOffer(
            match_id=ctx.match.id,
            offered_by_id=player.id,
            kind=kind,
            proposed_time=t,
            state=OfferState.OPEN,
            created_at=now,
        )
        session.add(row)
        await session.flush()
        await due.schedule(
            session,
            kind=DueKind.OFFER_UNANSWERED,
            subject_type=OFFER_SUBJECT,
            subject_id=row.id,
            due_at=now + timedelta(hours=self.config.negotiation.answer_reminder_hours),
            payload={"match_id": ctx.match.id},
        )
        record(
            session,
            at=now,
            actor=Actor.player(player.discord_id or 0),
            action=f"time_{kind.value}",
            subject_type=MATCH_SUBJECT,
            subject_id=ctx.match.id,
            details={"offer_id": row.id, "time": t.isoformat()},
        )
        view = (OFFER_ACCEPT_VIEW, {"offer_id": row.id})
        if kind is OfferKind.RESCHEDULE and ctx.match.agreed_time is not None:
            posted = wording.reschedule_posted(
                player.lichess_username, mention(opponent), t, ctx.match.agreed_time, row.id
            )
        else:
            posted = wording.offer_posted(player.lichess_username, mention(opponent), t, row.id)
        post_for_match(
            session, [opponent], thread_id=ctx.thread_id, now=now, content=posted, view=view
        )
        return row

    @staticmethod
    def _dm(
        session: AsyncSession,
        ctx: MatchContext,
        player: Player,
        now: datetime,
        content: str,
        *,
        view: tuple[str, dict[str, Any]] | None = None,
    ) -> None:
        message_player(
            session, player, thread_id=ctx.thread_id, now=now, content=content, view=view
        )

    def _ask_to_choose(
        self,
        session: AsyncSession,
        ctx: MatchContext,
        chooser: Player,
        at_fault: Player,
        now: datetime,
        why: str,
    ) -> None:
        """Rule V.E: the player not at fault picks the time by the round deadline; `why` says
        what the opponent did (missed the offers, or ruled at fault by the TD)."""
        self._dm(
            session,
            ctx,
            chooser,
            now,
            wording.choose_request(at_fault.lichess_username, ctx.round_.deadline, why),
        )

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
        how = HOW[kind]
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
            how = HOW_AFTER_RULING if ruled is not None else how
            if chooser is not None:
                bound = (
                    chooser.lichess_username,
                    ctx.opponent_of(chooser.id).lichess_username,
                    ruled is not None,
                )
        post_for_match(
            session,
            [a, b],
            thread_id=ctx.thread_id,
            now=now,
            content=wording.agreed_post(mention(a), mention(b), t, previous, how, bound),
        )
        await queue_round_post_update(session, ctx.round_.id, now=now, board=ctx.match.board)
        agreed = MatchAgreed(actor, match_id=match_id, time=t, previous=previous)
        await self.events.publish(session, agreed, now)

    async def _fix_time(
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
