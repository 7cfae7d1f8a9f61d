"""The deadlines of rule V as due actions: an offer unanswered for a day (V.G), the offers
deadline (V.C, V.E, V.F; 2019: the end of Wednesday), the weekend (V.H; 2019: the start of
Saturday) and the reminders before a match. The days are the format's week
(`config.format.week`); what both players' missing offers give is the format's `no_offers`
(2019: the TD assigns a time; 2020 on: a draw with a forfeit each).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import due, stage_kinds
from bot.audit import Actor, record
from bot.config import Config
from bot.due import DueKind, Handler
from bot.events import RoundPublished
from bot.features.discipline.ruled_draw import rule_draw
from bot.features.matches.context import (
    MatchContext,
    context_by_id,
    mention,
    place_of,
    post_for_match,
)
from bot.features.negotiation import td_text as td_wording
from bot.features.negotiation import text as wording
from bot.features.negotiation.agreement import (
    MATCH_SUBJECT,
    OFFER_ACCEPT_VIEW,
    OVER,
    offer_info,
    offer_numbers,
    offers_of,
)
from bot.features.negotiation.common import (
    ask_to_choose,
    counted_offers,
    dm,
    offers_due_at,
    record_of,
    round_deadlines_of,
)
from bot.features.negotiation.notify import wants_reminders
from bot.features.negotiation.types import OfferInfo
from bot.rules.negotiation import fault_at_offers_due, offers_to_remind, weekend_goes_to_td
from bot.rules.no_agreement import NoAgreementOutcome, NoOffers, both_made_no_offers
from bot.service import Service, Subscription
from bot.td_alerts import notify_td
from db.models import (
    AuditEntry,
    DueAction,
    Match,
    MatchState,
    Round,
    Stage,
    TimeOffer,
)


def _infos(ctx: MatchContext, offers: list[TimeOffer]) -> list[OfferInfo]:
    numbers = offer_numbers(offers)
    return [offer_info(ctx, o, number=numbers[o.id]) for o in offers]


class NegotiationDeadlines(Service):
    """The deadlines of rule V, as due actions the sweep runs once each."""

    def due_handlers(self) -> dict[DueKind, Handler]:
        return {
            DueKind.OFFER_UNANSWERED: self.on_offer_unanswered,
            DueKind.OFFERS_DUE: self.on_offers_due,
            DueKind.WEEKEND_CHECK: self.on_weekend_check,
            DueKind.MATCH_REMINDER: self.on_match_reminder,
        }

    def subscriptions(self) -> list[Subscription]:
        return [(RoundPublished, self.on_round_published)]

    # --- due actions --------------------------------------------------------------------------

    async def on_offer_unanswered(
        self, session: AsyncSession, action: DueAction, now: datetime
    ) -> None:
        """Rule V.G: an offer still unanswered after a day: remind the opponent."""
        offer = await session.get(TimeOffer, action.subject_id)
        if offer is None or offer.offered_by_id is None:
            return
        ctx = await context_by_id(session, offer.match_id)
        if ctx.b is None:
            return
        entries = await session.scalars(
            select(AuditEntry).where(
                AuditEntry.action == "offer_reminder",
                AuditEntry.subject_type == MATCH_SUBJECT,
                AuditEntry.subject_id == ctx.match.id,
            )
        )
        reminded = {
            i for e in entries for i in e.details.get("offer_ids", [e.details.get("offer_id")])
        }
        offers = await offers_of(session, ctx.match.id)
        remind = offers_to_remind(  # rule V.G, decided in bot/rules/negotiation.py
            record_of(offer),
            [record_of(o) for o in offers],
            reminded=reminded,
            agreed=ctx.match.agreed_time is not None,
            match_open=ctx.match.state not in OVER,
            round_end=ctx.round_.deadline,
            now=now,
            decided=await self._time_setter_decided(session, ctx, offers, now),
        )
        opponent = ctx.opponent_of(offer.offered_by_id)
        if not remind or not wants_reminders(opponent):
            return  # muted with /notify: the offer's post mentioned them already
        listed = [o for o in offers if o.id in remind]
        numbers = offer_numbers(offers)
        dm(
            session,
            ctx,
            opponent,
            now,
            wording.unanswered_reminder(
                ctx.name(offer.offered_by_id), [(o.proposed_time, numbers[o.id]) for o in listed]
            ),
            view=(OFFER_ACCEPT_VIEW, {"offer_id": listed[0].id}),
        )
        record(
            session,
            at=now,
            actor=Actor.job(),
            action="offer_reminder",
            subject_type=MATCH_SUBJECT,
            subject_id=ctx.match.id,
            details={"offer_id": offer.id, "offer_ids": [o.id for o in listed]},
        )

    async def _time_setter_decided(
        self, session: AsyncSession, ctx: MatchContext, offers: list[TimeOffer], now: datetime
    ) -> bool:
        """Whether rule V.E, V.F or V.I decides who sets the time: the TD ruled, or the offers
        deadline has passed with a player short (its check may run later in the same sweep)."""
        if ctx.match.chooser_id or ctx.match.td_assigns or ctx.b is None:
            return True
        due_at = offers_due_at(ctx.round_, self.config)
        stage = await session.get(Stage, ctx.round_.stage_id)
        if now < due_at or (stage and stage_kinds.is_final_match(self.config.format, stage)):
            return False  # the Final has no offers deadline (rule IV.C)
        fault = fault_at_offers_due(  # rules V.C, V.E, V.F, decided in bot/rules/negotiation.py
            counted_offers(offers, ctx.a.id, due_at),
            counted_offers(offers, ctx.b.id, due_at),
            ctx.match.agreed_time is not None,
            required=self.config.negotiation.required_offers,
        )
        return fault != "none"

    async def on_offers_due(self, session: AsyncSession, action: DueAction, now: datetime) -> None:
        """The offers deadline (rule V.C): one player short → the other chooses (V.E); both →
        the TD assigns (V.F), or a draw with a forfeit each (`format.no_offers`, 2020 on).
        The player who lost the say over the time is told once, by the post that fixes it
        and says why (the agreement's post mentions them): a DM now saying "you will be told
        the time" would tell them twice (docs/MESSAGES.md)."""
        ctx = await context_by_id(session, action.subject_id)
        if ctx.b is None or ctx.match.state is not MatchState.NEGOTIATING:
            return  # a bye, or a match agreed, under way or over
        if ctx.match.chooser_id or ctx.match.td_assigns:
            return  # already settled by a TD's ruling (rules V.H, V.I)
        a, b = ctx.a, ctx.b
        offers = await offers_of(session, ctx.match.id)
        required = self.config.negotiation.required_offers
        fault = fault_at_offers_due(  # rules V.C, V.E, V.F, decided in bot/rules/negotiation.py
            counted_offers(offers, a.id, action.due_at),
            counted_offers(offers, b.id, action.due_at),
            ctx.match.agreed_time is not None,
            required=required,
        )
        if fault == "none":
            return
        outcome = both_made_no_offers(  # the format's rule (V.F in 2019; a draw 2020 on)
            NoOffers(self.config.format.no_offers), games=self.config.tournament.match_games
        )
        if fault == "both" and not outcome.td_assigns:
            await self._draw_without_offers(session, ctx, outcome, now)
        elif fault == "both":
            ctx.match.td_assigns = True
            history = td_wording.history(_infos(ctx, offers))
            notify_td(
                session,
                self.config,
                now=now,
                content=td_wording.offers_due_both_td(
                    await place_of(session, self.config.format, ctx.match),
                    a.lichess_username,
                    b.lichess_username,
                    history,
                    required,
                ),
            )
        else:
            at_fault, chooser = (a, b) if fault == "a" else (b, a)
            ctx.match.chooser_id = chooser.id
            ask_to_choose(
                session,
                ctx,
                chooser,
                at_fault,
                now,
                wording.opponent_missed_offers(at_fault.lichess_username),
            )
        record(
            session,
            at=now,
            actor=Actor.job(),
            action="offers_due_fault",
            subject_type=MATCH_SUBJECT,
            subject_id=ctx.match.id,
            details={"fault": fault},
        )

    async def _draw_without_offers(
        self, session: AsyncSession, ctx: MatchContext, outcome: NoAgreementOutcome, now: datetime
    ) -> None:
        """2020 on: both made no offers, so the match is a draw and each forfeited a game
        (`format.no_offers: draw_both_forfeit_a_game`, `bot.rules.no_agreement`)."""
        assert ctx.b is not None
        a, b, match = ctx.a, ctx.b, ctx.match
        required = self.config.negotiation.required_offers
        score = outcome.game_score or (0.0, 0.0)
        post_for_match(
            session,
            [a, b],
            thread_id=ctx.thread_id,
            now=now,
            content=wording.no_offers_draw(mention(a), mention(b), *score),
        )
        await rule_draw(
            session,
            self.config,
            self.events,
            match=match,
            outcome=outcome,
            rule=f"no_offers:{self.config.format.no_offers}",
            decided=td_wording.offers_due_draw_td(
                await place_of(session, self.config.format, match),
                a.lichess_username,
                b.lichess_username,
                required,
            ),
            actor=Actor.job(),
            now=now,
        )

    async def on_weekend_check(
        self, session: AsyncSession, action: DueAction, now: datetime
    ) -> None:
        """The weekend (rule V.H): both made their offers but nothing agreed → the TD."""
        ctx = await context_by_id(session, action.subject_id)
        if ctx.b is None:
            return
        match = ctx.match
        offers = await offers_of(session, match.id)
        due_at = offers_due_at(ctx.round_, self.config)
        if not weekend_goes_to_td(  # rule V.H, decided in bot/rules/negotiation.py
            counted_offers(offers, ctx.a.id, due_at),
            counted_offers(offers, ctx.b.id, due_at),
            settled=match.state is not MatchState.NEGOTIATING
            or match.agreed_time is not None
            or bool(match.chooser_id or match.td_assigns),
            required=self.config.negotiation.required_offers,
        ):
            return
        weekend = self.config.format.week.weekend
        notify_td(
            session,
            self.config,
            now=now,
            content=td_wording.weekend_td(
                await place_of(session, self.config.format, ctx.match),
                ctx.a.lichess_username,
                ctx.b.lichess_username,
                td_wording.history(_infos(ctx, offers)),
                td_wording.week_point(weekend.weekday, weekend.time),
            ),
        )
        record(
            session,
            at=now,
            actor=Actor.job(),
            action="weekend_no_agreement",
            subject_type=MATCH_SUBJECT,
            subject_id=ctx.match.id,
        )

    async def on_match_reminder(
        self, session: AsyncSession, action: DueAction, now: datetime
    ) -> None:
        """Before the agreed time: remind both players (only if the time is still the same)."""
        ctx = await context_by_id(session, action.subject_id)
        t = ctx.match.agreed_time
        if ctx.b is None or ctx.match.state is not MatchState.SCHEDULED or t is None:
            return
        if t.isoformat() != action.payload.get("agreed_time"):
            return  # rescheduled since: the new time has its own reminders
        # One post in the match's thread for the players who want reminders (muted with
        # /notify: the agreement's post told them the time); without a thread, a DM each.
        listening = [p for p in (ctx.a, ctx.b) if wants_reminders(p)]
        if listening:
            content = wording.match_reminder(
                [mention(p) for p in listening], ctx.a.lichess_username, ctx.b.lichess_username, t
            )
            post_for_match(session, listening, thread_id=ctx.thread_id, now=now, content=content)
        record(
            session,
            at=now,
            actor=Actor.job(),
            action="match_reminder",
            subject_type=MATCH_SUBJECT,
            subject_id=ctx.match.id,
            details={"time": t.isoformat()},
        )

    async def on_round_published(
        self, session: AsyncSession, event: RoundPublished, now: datetime
    ) -> None:
        """A new round: each of its matches gets its offer and weekend deadlines."""
        round_ = await session.get(Round, event.round_id)
        assert round_ is not None
        stage = await session.get(Stage, round_.stage_id)
        if stage is not None and stage_kinds.is_final_match(self.config.format, stage):
            return  # the Final has no weekly deadlines: its sessions are as the players see fit
        matches = (await session.scalars(select(Match).where(Match.round_id == round_.id))).all()
        for match in matches:
            await schedule_match_deadlines(session, match, round_, self.config)


async def schedule_match_deadlines(
    session: AsyncSession, match: Match, round_: Round, config: Config
) -> None:
    """The match's negotiation deadlines, scheduled when its round is published (byes: none)."""
    if match.player_b_id is None or match.state is MatchState.BYE:
        return
    times = round_deadlines_of(round_, config)  # rules V.C and V.H
    for kind, at in (
        (DueKind.OFFERS_DUE, times.offers_due),
        (DueKind.WEEKEND_CHECK, times.weekend),
    ):
        await due.schedule(
            session,
            kind=kind,
            subject_type=MATCH_SUBJECT,
            subject_id=match.id,
            due_at=at,
            payload={"round_id": round_.id},
        )
