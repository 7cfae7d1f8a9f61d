"""Match-time negotiation use cases (rule V): offers, acceptance, reschedules, faults, deadlines.

Each public method is one use case: it reads and validates first, then writes the state
change, its audit row, its due actions and its outbox messages in one short transaction.
Agreement is decided by a conditional UPDATE on the match (`agreed_time IS NULL`, or the
agreed time the accept was based on), so two accepts at the same moment end with exactly
one agreed time and the loser is told which.

The deadlines are due actions (bot.due): "offer_unanswered" (rule V.G), "offers_due" (end of
Wednesday, V.C/V.E/V.F), "weekend_check" (start of Saturday, V.H) and "match_reminder".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import due
from bot.audit import Actor, record, record_td_decision
from bot.clock import Clock
from bot.config import Config
from bot.errors import InvalidInput, NotAllowed, WrongStage
from bot.ids import valid_id
from bot.outbox import enqueue_channel
from bot.rules.negotiation import fault_at_offers_due, in_past, offer_problems, too_late
from bot.rules.timeinput import TimeInputError, parse_time, parse_times
from bot.services import negotiation_text as wording
from bot.services.matches import (
    MatchContext,
    context_by_id,
    current_match,
    load_context,
    match_progress,
    message_player,
    player_by_discord,
)
from bot.services.results_text import MatchProgress
from bot.services.round_post import queue_round_post_update
from bot.services.td_alerts import notify_td
from db.engine import transaction
from db.models import (
    DueAction,
    Match,
    MatchState,
    OfferKind,
    OfferState,
    Player,
    Round,
    TimeOffer,
)

OFFER_ACCEPT_VIEW = "offer_accept"
OFFER_UNANSWERED = "offer_unanswered"
OFFERS_DUE = "offers_due"
WEEKEND_CHECK = "weekend_check"
MATCH_REMINDER = "match_reminder"
MATCH_SUBJECT = "match"
OFFER_SUBJECT = "time_offer"

ANSWERABLE = (OfferKind.OFFER, OfferKind.RESCHEDULE)
OVER = (MatchState.FINISHED, MatchState.FORFEITED, MatchState.BYE, MatchState.IN_PROGRESS)
# Only words that cannot be mistaken for a Lichess username (a player may be called "none").
NOBODY = frozenset({"nobody", "no one"})
HOW = {
    OfferKind.OFFER: "offer accepted",
    OfferKind.RESCHEDULE: "reschedule accepted",
    OfferKind.CHOSEN: "chosen under rules V.E/V.I",
    OfferKind.ASSIGNED: "assigned by the TD under rules V.F/V.I",
}


# --- what the use cases return ------------------------------------------------------------


@dataclass(frozen=True)
class OfferInfo:
    id: int
    by_player_id: int | None  # None: the TD
    by_name: str
    kind: OfferKind
    time: datetime
    state: OfferState
    created_at: datetime
    answered_at: datetime | None
    mine: bool = False


@dataclass(frozen=True)
class MatchView:
    match_id: int
    round_number: int
    board: int
    me: str
    opponent: str | None  # None: a bye
    state: MatchState
    agreed_time: datetime | None
    offers: list[OfferInfo]
    my_offers_owed: int
    opponent_offers_owed: int
    offers_due: datetime
    round_deadline: datetime
    chooser: str | None
    i_choose: bool
    td_assigns: bool
    # Match day: the score, the games read from Lichess, the game link (None for a bye).
    progress: MatchProgress | None = None
    started: bool = False  # the agreed time has come
    total_games: int = 10


@dataclass(frozen=True)
class OfferResult:
    match_id: int
    opponent: str
    offers: list[OfferInfo]
    still_owed: int
    offers_due: datetime


@dataclass(frozen=True)
class RescheduleResult:
    match_id: int
    opponent: str
    offer: OfferInfo
    current: datetime


@dataclass(frozen=True)
class Agreement:
    match_id: int
    time: datetime
    previous: datetime | None
    kind: OfferKind


@dataclass(frozen=True)
class FaultRuling:
    match_id: int
    at_fault: str | None  # None: nobody, the TD assigns
    chooser: str | None


class _Lost(Exception):
    """The conditional update matched nothing: someone else changed the match first."""


async def _offers(session: AsyncSession, match_id: int) -> list[TimeOffer]:
    return list(
        (
            await session.scalars(
                select(TimeOffer).where(TimeOffer.match_id == match_id).order_by(TimeOffer.id)
            )
        ).all()
    )


def _info(ctx: MatchContext, offer: TimeOffer, me: int | None = None) -> OfferInfo:
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


def _offers_due(round_: Round, config: Config) -> datetime:
    return round_.starts_at + timedelta(hours=config.negotiation.offers_due_hours)


def _counted_offers(offers: Sequence[TimeOffer], player_id: int, before: datetime) -> int:
    """Offers that count for rule V.C: the player's own OFFER-kind offers made in time."""
    return sum(
        1
        for o in offers
        if o.offered_by_id == player_id
        and o.kind is OfferKind.OFFER
        and o.state is not OfferState.WITHDRAWN
        and o.created_at < before
    )


def _require_open_match(ctx: MatchContext) -> Player:
    if ctx.b is None or ctx.match.state is MatchState.BYE:
        raise WrongStage(wording.bye())
    if ctx.match.state in OVER:
        raise WrongStage(wording.match_over())
    return ctx.b


def _rowcount(result: Any) -> int:
    return int(cast(CursorResult[Any], result).rowcount)


# --- the service --------------------------------------------------------------------------------


class NegotiationService:
    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], config: Config, clock: Clock
    ) -> None:
        self.sessions = sessions
        self.config = config
        self.clock = clock

    @property
    def _margin(self) -> timedelta:
        return timedelta(minutes=self.config.negotiation.finish_margin_minutes)

    # --- /match -----------------------------------------------------------------------------

    async def match_view(self, *, discord_id: int) -> MatchView:
        now = self.clock.now()
        async with self.sessions() as session:
            player = await player_by_discord(session, discord_id)
            ctx = await load_context(session, await current_match(session, player))
            offers = await _offers(session, ctx.match.id)
            progress = await match_progress(session, ctx) if ctx.b is not None else None
        due_at = _offers_due(ctx.round_, self.config)
        required = self.config.negotiation.required_offers
        opponent = ctx.opponent_of(player.id) if ctx.b is not None else None

        def owed(pid: int) -> int:
            return max(0, required - _counted_offers(offers, pid, due_at))

        return MatchView(
            match_id=ctx.match.id,
            round_number=ctx.round_.number,
            board=ctx.match.board,
            me=player.lichess_username,
            opponent=opponent.lichess_username if opponent else None,
            state=ctx.match.state,
            agreed_time=ctx.match.agreed_time,
            offers=[_info(ctx, o, player.id) for o in offers],
            my_offers_owed=owed(player.id),
            opponent_offers_owed=owed(opponent.id) if opponent else 0,
            offers_due=due_at,
            round_deadline=ctx.round_.deadline,
            chooser=ctx.name(ctx.match.chooser_id) if ctx.match.chooser_id else None,
            i_choose=ctx.match.chooser_id == player.id,
            td_assigns=ctx.match.td_assigns,
            progress=progress,
            started=ctx.match.agreed_time is not None and now >= ctx.match.agreed_time,
            total_games=self.config.tournament.match_games,
        )

    # --- /offer -----------------------------------------------------------------------------

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

    def _parse_many(self, raw: str, round_: Round) -> list[datetime]:
        try:
            return parse_times(raw, round_start=round_.starts_at, round_end=round_.deadline)
        except TimeInputError as exc:
            raise InvalidInput(exc.message) from None

    def _parse_one(self, raw: str, round_: Round) -> datetime:
        try:
            return parse_time(raw, round_start=round_.starts_at, round_end=round_.deadline)
        except TimeInputError as exc:
            raise InvalidInput(exc.message) from None

    async def offer(self, *, discord_id: int, text: str) -> OfferResult:
        """One or more offers (rules V.C, V.D, V.G); a refused offer changes nothing."""
        now = self.clock.now()
        neg = self.config.negotiation
        async with transaction(self.sessions) as session:
            player = await player_by_discord(session, discord_id)
            ctx = await load_context(session, await current_match(session, player))
            _require_open_match(ctx)
            if ctx.match.agreed_time is not None:
                raise WrongStage(wording.already_agreed(ctx.match.agreed_time))
            opponent = ctx.opponent_of(player.id)
            times = self._parse_many(text, ctx.round_)
            existing = await _offers(session, ctx.match.id)
            mine = [
                o
                for o in existing
                if o.offered_by_id == player.id
                and o.kind is OfferKind.OFFER
                and o.state is not OfferState.WITHDRAWN
            ]
            problems: list[str] = []
            fine: list[datetime] = []
            for t in times:
                found = self._time_problems(t, ctx.round_, now)
                if t in fine:
                    found.append(wording.twice_in_message(t))
                for o in existing:
                    if o.proposed_time == t and o.state is OfferState.OPEN:
                        if o.offered_by_id == player.id:
                            found.append(wording.own_duplicate(t, o.id))
                        elif o.kind is OfferKind.OFFER:
                            found.append(wording.opponent_offered(t, o.id))
                if found:
                    problems += [p for p in found if p not in problems]
                else:
                    fine.append(t)
            problems += [
                wording.with_discord_times(p)
                for p in offer_problems(
                    [o.proposed_time for o in mine] + fine,
                    min_gap=timedelta(hours=neg.min_gap_hours),
                    max_per_date=neg.max_offers_per_date,
                )
            ]
            if problems:
                raise InvalidInput(wording.offer_refused(problems))

            made: list[TimeOffer] = []
            for t in times:
                made.append(
                    await self._new_offer(session, ctx, player, opponent, OfferKind.OFFER, t, now)
                )
            due_at = _offers_due(ctx.round_, self.config)
            counted = _counted_offers([*existing, *made], player.id, due_at)
            return OfferResult(
                match_id=ctx.match.id,
                opponent=opponent.lichess_username,
                offers=[_info(ctx, o, player.id) for o in made],
                still_owed=max(0, neg.required_offers - counted),
                offers_due=due_at,
            )

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
            kind=OFFER_UNANSWERED,
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
                player.lichess_username, opponent.lichess_username, t, ctx.match.agreed_time, row.id
            )
            dm = posted
        else:
            posted = wording.offer_posted(
                player.lichess_username, opponent.lichess_username, t, row.id
            )
            dm = wording.offer_dm(player.lichess_username, t, row.id)
        if ctx.thread_id:
            enqueue_channel(session, channel_id=ctx.thread_id, now=now, content=posted, view=view)
        message_player(session, opponent, thread_id=ctx.thread_id, now=now, content=dm, view=view)
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

    # --- /accept and the Accept button ------------------------------------------------------

    async def accept(self, *, discord_id: int, offer_id: int | None = None) -> Agreement:
        """The opponent of the offerer accepts an open offer or reschedule (rule V.G)."""
        now = self.clock.now()
        async with self.sessions() as session:
            player = await player_by_discord(session, discord_id)
            if offer_id is None:
                ctx = await load_context(session, await current_match(session, player))
                open_offers = [
                    o
                    for o in await _offers(session, ctx.match.id)
                    if o.state is OfferState.OPEN
                    and o.kind in ANSWERABLE
                    and o.offered_by_id != player.id
                ]
                if not open_offers:
                    raise InvalidInput(wording.no_open_offer())
                if len(open_offers) > 1:
                    raise InvalidInput(wording.several_open([_info(ctx, o) for o in open_offers]))
                offer = open_offers[0]
            else:
                found = await session.get(TimeOffer, offer_id)
                if found is None:
                    raise InvalidInput(wording.no_such_offer(offer_id))
                offer = found
                ctx = await context_by_id(session, offer.match_id)
            if offer.offered_by_id == player.id:
                raise NotAllowed(wording.own_offer())
            if offer.offered_by_id is None:
                raise WrongStage(wording.offer_closed(ctx.match.agreed_time))
            if not ctx.has(player.id):
                opponent = ctx.opponent_of(offer.offered_by_id)
                raise NotAllowed(wording.only_opponent_accepts(opponent.lichess_username))
            _require_open_match(ctx)
            if offer.state is not OfferState.OPEN or offer.kind not in ANSWERABLE:
                raise WrongStage(wording.offer_closed(ctx.match.agreed_time))
            if offer.kind is OfferKind.OFFER and ctx.match.agreed_time is not None:
                raise WrongStage(wording.offer_closed(ctx.match.agreed_time))
            if now > ctx.round_.deadline:
                raise WrongStage(wording.round_over(ctx.round_.deadline))
            if in_past(offer.proposed_time, now):
                raise InvalidInput(wording.time_passed(offer.proposed_time))
            previous = ctx.match.agreed_time
            match_id, kind, t, chosen_id = ctx.match.id, offer.kind, offer.proposed_time, offer.id
        try:
            async with transaction(self.sessions) as session:
                # Writes first: the first write takes SQLite's write lock, so racing accepts
                # are serialised here and the second one sees the first one's result.
                changed = await session.execute(
                    update(TimeOffer)
                    .where(TimeOffer.id == chosen_id, TimeOffer.state == OfferState.OPEN)
                    .values(state=OfferState.ACCEPTED, answered_at=now)
                    .execution_options(synchronize_session=False)
                )
                if _rowcount(changed) != 1:
                    raise _Lost
                await self._set_time(session, match_id, t, previous=previous)
                await self._after_agreement(
                    session, match_id, t, previous, kind, Actor.player(discord_id), now, chosen_id
                )
        except _Lost:
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
        if _rowcount(changed) != 1:
            raise _Lost

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
        offers = await _offers(session, match_id)
        for o in offers:
            if o.id != chosen_offer_id and o.state is OfferState.OPEN:
                o.state = OfferState.SUPERSEDED
                o.answered_at = now
            await due.cancel(
                session,
                subject_type=OFFER_SUBJECT,
                subject_id=o.id,
                now=now,
                kinds=(OFFER_UNANSWERED,),
            )
        await due.cancel(
            session,
            subject_type=MATCH_SUBJECT,
            subject_id=match_id,
            now=now,
            kinds=(MATCH_REMINDER,),
        )
        for hours in self.config.negotiation.match_reminders_hours:
            at = t - timedelta(hours=hours)
            if at > now:
                await _schedule_fresh(
                    session,
                    kind=MATCH_REMINDER,
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
        b = _require_open_match(ctx)
        a = ctx.a
        how = HOW[kind]
        if ctx.thread_id:
            enqueue_channel(
                session,
                channel_id=ctx.thread_id,
                now=now,
                content=wording.agreed_post(
                    a.lichess_username, b.lichess_username, t, previous, how
                ),
            )
        chosen = next(o for o in offers if o.id == chosen_offer_id)
        for player, other in ((a, b), (b, a)):
            if kind is OfferKind.CHOSEN and player.id != chosen.offered_by_id:
                content = wording.chosen_binding_dm(other.lichess_username, t)
            else:
                content = wording.agreed_dm(other.lichess_username, t, previous, how)
            message_player(session, player, thread_id=ctx.thread_id, now=now, content=content)
        await queue_round_post_update(session, ctx.round_.id, now=now)

    # --- /reschedule ------------------------------------------------------------------------

    async def reschedule(self, *, discord_id: int, text: str) -> RescheduleResult:
        """Propose a new time for an agreed match; it takes effect once the opponent accepts."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            player = await player_by_discord(session, discord_id)
            ctx = await load_context(session, await current_match(session, player))
            _require_open_match(ctx)
            current = ctx.match.agreed_time
            if current is None:
                raise WrongStage(
                    "Your match has no agreed time yet: make offers with /offer instead."
                )
            opponent = ctx.opponent_of(player.id)
            t = self._parse_one(text, ctx.round_)
            problems = self._time_problems(t, ctx.round_, now)
            if t == current:
                problems.append(wording.same_as_agreed(t))
            if problems:
                raise InvalidInput(wording.offer_refused(problems))
            for o in await _offers(session, ctx.match.id):
                if o.state is OfferState.OPEN and o.kind is OfferKind.RESCHEDULE:
                    if o.offered_by_id == player.id:  # the new proposal replaces the old one
                        o.state = OfferState.WITHDRAWN
                        o.answered_at = now
                        await due.cancel(
                            session, subject_type=OFFER_SUBJECT, subject_id=o.id, now=now
                        )
            row = await self._new_offer(
                session, ctx, player, opponent, OfferKind.RESCHEDULE, t, now
            )
            return RescheduleResult(
                ctx.match.id, opponent.lichess_username, _info(ctx, row, player.id), current
            )

    # --- /choose (rules V.E, V.I) -----------------------------------------------------------

    async def choose(self, *, discord_id: int, text: str) -> Agreement:
        now = self.clock.now()
        async with self.sessions() as session:
            player = await player_by_discord(session, discord_id)
            ctx = await load_context(session, await current_match(session, player))
        _require_open_match(ctx)
        if ctx.match.agreed_time is not None:
            raise WrongStage(wording.already_agreed(ctx.match.agreed_time))
        if ctx.match.chooser_id != player.id or ctx.match.td_assigns:
            chooser = ctx.name(ctx.match.chooser_id) if ctx.match.chooser_id else None
            raise NotAllowed(wording.not_chooser(chooser, ctx.match.td_assigns))
        t = self._parse_one(text, ctx.round_)
        problems = self._time_problems(t, ctx.round_, now)
        if problems:
            raise InvalidInput(wording.offer_refused(problems))
        return await self._fix_time(
            ctx.match.id,
            t,
            OfferKind.CHOSEN,
            Actor.player(discord_id),
            now,
            offered_by=player.id,
            chooser_id=player.id,
        )

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
        except _Lost:
            raise await self._lost(match_id, previous) from None
        return Agreement(match_id, t, previous, kind)

    # --- the TD: /td assign-time and /td fault ----------------------------------------------

    async def assign_time(self, *, td_id: int, match_id: int, text: str) -> Agreement:
        """The TD sets the time (rules V.F, V.I); it replaces any time agreed before."""
        now = self.clock.now()
        async with self.sessions() as session:
            ctx = await context_by_id(session, match_id)
        _require_open_match(ctx)
        t = self._parse_one(text, ctx.round_)
        problems = self._time_problems(t, ctx.round_, now)
        if ctx.match.agreed_time == t:
            problems.append(wording.same_as_agreed(t))
        if problems:
            raise InvalidInput(wording.offer_refused(problems))
        return await self._fix_time(
            match_id,
            t,
            OfferKind.ASSIGNED,
            Actor.td(td_id),
            now,
            offered_by=None,
            previous=ctx.match.agreed_time,
            any_previous=True,
        )

    async def fault_choices(self, match_id: int) -> list[str]:
        """What /td fault offers for `player:`: the two players of the match, then nobody."""
        async with self.sessions() as session:
            match = await session.get(Match, match_id) if valid_id(match_id) else None
            if match is None or match.player_b_id is None:
                return ["nobody"]
            ctx = await load_context(session, match)
        assert ctx.b is not None
        return [ctx.a.lichess_username, ctx.b.lichess_username, "nobody"]

    async def rule_fault(
        self, *, td_id: int, match_id: int, player_name: str | None
    ) -> FaultRuling:
        """The TD's ruling on a failed negotiation (rules V.H, V.I)."""
        now = self.clock.now()
        name = (player_name or "").strip().removeprefix("@").strip()
        if not name:
            raise InvalidInput(wording.fault_player_missing())
        async with transaction(self.sessions) as session:
            ctx = await context_by_id(session, match_id)
            b = _require_open_match(ctx)
            if ctx.match.agreed_time is not None:
                raise WrongStage(
                    f"Match #{match_id} already has an agreed time; use /td assign-time to "
                    "change it."
                )
            a = ctx.a
            at_fault: Player | None
            named = [p for p in (a, b) if p.lichess_username.lower() == name.lower()]
            if named:
                at_fault = named[0]
            elif name.lower() in NOBODY:
                at_fault = None
            else:
                raise InvalidInput(
                    wording.unknown_fault_player(name, a.lichess_username, b.lichess_username)
                )
            chooser = ctx.opponent_of(at_fault.id) if at_fault else None
            changed = await session.execute(
                update(Match)
                .where(
                    Match.id == match_id,
                    Match.agreed_time.is_(None),
                    Match.state == MatchState.NEGOTIATING,
                )
                .values(chooser_id=chooser.id if chooser else None, td_assigns=chooser is None)
                .execution_options(synchronize_session=False)
            )
            if _rowcount(changed) != 1:
                raise WrongStage(wording.match_over())
            decision = f"fault:{at_fault.lichess_username}" if at_fault else "nobody"
            record_td_decision(
                session,
                at=now,
                td_id=td_id,
                kind="negotiation_fault",
                subject_type=MATCH_SUBJECT,
                subject_id=match_id,
                decision=decision,
                reason=None,
                action="negotiation_fault",
                details={"at_fault": at_fault.lichess_username if at_fault else None},
            )
            if at_fault is not None and chooser is not None:
                self._dm(
                    session,
                    ctx,
                    chooser,
                    now,
                    wording.choose_request(
                        at_fault.lichess_username,
                        ctx.round_.deadline,
                        wording.opponent_ruled_at_fault(at_fault.lichess_username),
                    ),
                )
                self._dm(
                    session, ctx, at_fault, now, wording.at_fault_ruling(chooser.lichess_username)
                )
            else:
                for player in (a, b):
                    message_player(
                        session,
                        player,
                        thread_id=ctx.thread_id,
                        now=now,
                        content=wording.nobody_at_fault_dm(),
                    )
                notify_td(
                    session,
                    self.config,
                    now=now,
                    content=wording.td_assign_request(
                        match_id, a.lichess_username, b.lichess_username
                    ),
                )
        return FaultRuling(
            match_id,
            at_fault.lichess_username if at_fault else None,
            chooser.lichess_username if chooser else None,
        )

    # --- due actions --------------------------------------------------------------------------

    async def on_offer_unanswered(
        self, session: AsyncSession, action: DueAction, now: datetime
    ) -> None:
        """Rule V.G: an offer still unanswered after a day: remind the opponent."""
        offer = await session.get(TimeOffer, action.subject_id)
        if offer is None or offer.state is not OfferState.OPEN or offer.offered_by_id is None:
            return
        ctx = await context_by_id(session, offer.match_id)
        if ctx.b is None or ctx.match.state in OVER or now > ctx.round_.deadline:
            return
        if offer.kind is OfferKind.OFFER and ctx.match.agreed_time is not None:
            return
        if in_past(offer.proposed_time, now):
            return
        opponent = ctx.opponent_of(offer.offered_by_id)
        self._dm(
            session,
            ctx,
            opponent,
            now,
            wording.unanswered_reminder(
                ctx.name(offer.offered_by_id), offer.proposed_time, offer.id
            ),
            view=(OFFER_ACCEPT_VIEW, {"offer_id": offer.id}),
        )
        record(
            session,
            at=now,
            actor=Actor.job(),
            action="offer_reminder",
            subject_type=MATCH_SUBJECT,
            subject_id=ctx.match.id,
            details={"offer_id": offer.id},
        )

    async def on_offers_due(self, session: AsyncSession, action: DueAction, now: datetime) -> None:
        """End of Wednesday (rule V.C): one player short → the other chooses (V.E); both → TD."""
        ctx = await context_by_id(session, action.subject_id)
        if ctx.b is None or ctx.match.state is not MatchState.NEGOTIATING:
            return
        if ctx.match.agreed_time is not None or ctx.match.chooser_id or ctx.match.td_assigns:
            return
        a, b = ctx.a, ctx.b
        offers = await _offers(session, ctx.match.id)
        required = self.config.negotiation.required_offers
        fault = fault_at_offers_due(
            _counted_offers(offers, a.id, action.due_at),
            _counted_offers(offers, b.id, action.due_at),
            False,
            required=required,
        )
        if fault == "none":
            return
        if fault == "both":
            ctx.match.td_assigns = True
            history = wording.history([_info(ctx, o) for o in offers])
            notify_td(
                session,
                self.config,
                now=now,
                content=wording.offers_due_both_td(
                    ctx.match.id, a.lichess_username, b.lichess_username, history, required
                ),
            )
            for player in (a, b):
                message_player(
                    session,
                    player,
                    thread_id=ctx.thread_id,
                    now=now,
                    content=wording.both_missed_dm(),
                )
        else:
            at_fault, chooser = (a, b) if fault == "a" else (b, a)
            ctx.match.chooser_id = chooser.id
            self._dm(
                session,
                ctx,
                chooser,
                now,
                wording.choose_request(
                    at_fault.lichess_username,
                    ctx.round_.deadline,
                    wording.opponent_missed_offers(at_fault.lichess_username),
                ),
            )
            self._dm(
                session,
                ctx,
                at_fault,
                now,
                wording.at_fault_offers_due(chooser.lichess_username, required),
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

    async def on_weekend_check(
        self, session: AsyncSession, action: DueAction, now: datetime
    ) -> None:
        """Start of Saturday (rule V.H): both made their offers but nothing agreed → the TD."""
        ctx = await context_by_id(session, action.subject_id)
        if ctx.b is None or ctx.match.state is not MatchState.NEGOTIATING:
            return
        if ctx.match.agreed_time is not None or ctx.match.chooser_id or ctx.match.td_assigns:
            return
        offers = await _offers(session, ctx.match.id)
        required = self.config.negotiation.required_offers
        due_at = _offers_due(ctx.round_, self.config)
        counts = [_counted_offers(offers, p.id, due_at) for p in (ctx.a, ctx.b)]
        if min(counts) < required:
            return
        notify_td(
            session,
            self.config,
            now=now,
            content=wording.weekend_td(
                ctx.match.id,
                ctx.a.lichess_username,
                ctx.b.lichess_username,
                wording.history([_info(ctx, o) for o in offers]),
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
        for player, other in ((ctx.a, ctx.b), (ctx.b, ctx.a)):
            message_player(
                session,
                player,
                thread_id=ctx.thread_id,
                now=now,
                content=wording.match_reminder(other.lichess_username, t),
            )
        record(
            session,
            at=now,
            actor=Actor.job(),
            action="match_reminder",
            subject_type=MATCH_SUBJECT,
            subject_id=ctx.match.id,
            details={"time": t.isoformat()},
        )


async def _schedule_fresh(
    session: AsyncSession,
    *,
    kind: str,
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
    if action.done_at is None:
        action.cancelled_at = None
        action.payload = payload


async def schedule_match_deadlines(
    session: AsyncSession, match: Match, round_: Round, config: Config
) -> None:
    """The match's negotiation deadlines, scheduled when its round is published (byes: none)."""
    if match.player_b_id is None or match.state is MatchState.BYE:
        return
    neg = config.negotiation
    for kind, hours in ((OFFERS_DUE, neg.offers_due_hours), (WEEKEND_CHECK, neg.weekend_hours)):
        await due.schedule(
            session,
            kind=kind,
            subject_type=MATCH_SUBJECT,
            subject_id=match.id,
            due_at=round_.starts_at + timedelta(hours=hours),
            payload={"round_id": round_.id},
        )


def register_due_handlers(runner: due.DueActionRunner, service: NegotiationService) -> None:
    runner.register(OFFER_UNANSWERED, service.on_offer_unanswered)
    runner.register(OFFERS_DUE, service.on_offers_due)
    runner.register(WEEKEND_CHECK, service.on_weekend_check)
    runner.register(MATCH_REMINDER, service.on_match_reminder)
