"""No-shows (rule VI.D): the report, the grace period, the second message, claim or reschedule.

The two clocks (the grace from the match time, the second message after the first) are
`bot.rules.match_conduct`'s.

A claim is open from the agreed time until a game of the match has been counted, whether
or not the game link is out; a game between the two players cancels it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import due
from bot.audit import Actor, record
from bot.clock import Clock
from bot.config import Config
from bot.due import DueKind, Handler
from bot.errors import WrongStage
from bot.events import EventBus
from bot.features.discipline import service as discipline
from bot.features.incidents import text as wording
from bot.features.incidents.core import (
    LIVE,
    NOSHOW_CHECK_VIEW,
    NOSHOW_CHOICE_VIEW,
    PLAYING,
    SUBJECT,
    IncidentBook,
    IncidentContext,
    PlayedGames,
    db_games_since,
    dm,
    incident_context,
    live_incident,
    my_match,
    progress_of,
    refuse_if_played,
    refuse_played,
    tell,
)
from bot.features.incidents.types import IncidentResult
from bot.features.matches.context import place_of
from bot.features.matches.live_games import live_game
from bot.features.matches.round_post import queue_round_post_update
from bot.features.matches.text import incident_called
from bot.lichess.client import LichessClient
from bot.rules import match_conduct as conduct
from bot.rules.match_conduct import noshow_clocks
from bot.service import Service
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import (
    DueAction,
    IncidentKind,
    IncidentState,
    Match,
    MatchIncident,
    MatchState,
)


class NoShows(Service):
    """/noshow and the claimant's buttons; claiming the win also serves /left (VI.E)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        games: PlayedGames,
        book: IncidentBook,
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        super().__init__(sessions, config, clock, lichess=lichess, events=events)
        self.games = games
        self.book = book

    def due_handlers(self) -> dict[DueKind, Handler]:
        return {
            DueKind.NOSHOW_CHECK: self.on_noshow_check,
            DueKind.RESCHEDULE_DEADLINE: self.on_reschedule_deadline,
        }

    # --- /noshow (rule VI.D) ------------------------------------------------------------------

    async def noshow(self, *, discord_id: int) -> IncidentResult:
        """The appearing player reports the opponent absent; the TD gets the first message."""
        now = self.clock.now()
        md = self.config.match_day
        async with self.sessions() as session:
            ctx = await my_match(session, discord_id)
            agreed = await self._noshow_allowed(session, ctx, now)
            in_db = await db_games_since(session, ctx.match.id, self.games.cancel_from(agreed))
            live = await live_game(session, ctx.match.id)
        if live is not None and live.created_at >= self.games.cancel_from(agreed):
            # The game stream saw the two start a game: no need to ask Lichess.
            raise WrongStage(wording.noshow_games_found([wording.in_progress(live.url)]))
        seen = await self.games.between(
            ctx.me, ctx.opponent, self.games.cancel_from(agreed), required=False
        )
        if conduct.claim_cancelled(seen, in_db):
            raise WrongStage(wording.noshow_games_found(seen or []))
        async with transaction(self.sessions) as session:
            ctx = await my_match(session, discord_id)
            agreed = await self._noshow_allowed(session, ctx, now)
            clocks = noshow_clocks(
                agreed,
                now,
                grace_minutes=md.noshow_grace_minutes,
                second_message_minutes=md.noshow_second_message_minutes,
            )
            incident = MatchIncident(
                match_id=ctx.match.id,
                kind=IncidentKind.NO_SHOW,
                state=IncidentState.OPEN,
                reporter_id=ctx.me.id,
                against_id=ctx.opponent.id,
                created_at=now,
                ends_at=clocks.confirm_from,
                details={
                    "agreed_time": agreed.isoformat(),
                    "first_check": seen,
                    "grace_end": clocks.grace_end.isoformat(),
                    "second_message_due": clocks.second_message_due.isoformat(),
                },
            )
            session.add(incident)
            await session.flush()
            await due.schedule(
                session,
                kind=DueKind.NOSHOW_CHECK,
                subject_type=SUBJECT,
                subject_id=incident.id,
                due_at=clocks.confirm_from,
            )
            notify_td(
                session,
                self.config,
                now=now,
                content=wording.noshow_td_first(
                    await place_of(session, self.config.format, ctx.match),
                    ctx.me.lichess_username,
                    ctx.opponent.lichess_username,
                    agreed,
                    seen,
                    clocks.grace_end,
                ),
            )
            dm(
                session,
                ctx,
                ctx.opponent,
                now,
                wording.noshow_opponent_dm(
                    ctx.me.lichess_username, clocks.grace_end, clocks.confirm_from, now
                ),
            )
            record(
                session,
                at=now,
                actor=Actor.player(discord_id),
                action="noshow_reported",
                subject_type=SUBJECT,
                subject_id=incident.id,
                details={"match_id": ctx.match.id, "against_id": ctx.opponent.id, "seen": seen},
            )
            return IncidentResult(
                incident.id,
                incident.state,
                wording.noshow_reply(
                    ctx.opponent.lichess_username,
                    clocks.grace_end,
                    clocks.confirm_from,
                    now,
                ),
            )

    async def _noshow_allowed(
        self, session: AsyncSession, ctx: IncidentContext, now: datetime
    ) -> datetime:
        """From the agreed time until a counted game exists, game link posted or not, once
        at a time (`match_conduct.noshow_refusal`); returns the agreed time."""
        progress = await progress_of(session, ctx)
        window = self.config.match_day.noshow_claim_window_minutes
        agreed = ctx.match.agreed_time
        live = await live_incident(session, ctx.match.id, IncidentKind.NO_SHOW)
        refusal = conduct.noshow_refusal(
            ctx.match.state.value,
            agreed,
            now,
            counted_games=len(progress.counted) if progress is not None else 0,
            window_minutes=window,
            already_reported=live is not None,
        )
        if refusal == "no_time":
            raise WrongStage(wording.noshow_no_time())
        if refusal in ("decided", "games_played"):
            refuse_played(ctx, progress)
        assert agreed is not None  # no agreed time is "no_time", refused above
        if refusal == "early":
            raise WrongStage(wording.noshow_too_early(agreed))
        if refusal == "late":
            raise WrongStage(wording.noshow_too_late(agreed, window))
        if refusal == "already_reported":
            raise WrongStage(wording.noshow_open())
        return agreed

    async def on_noshow_check(
        self, session: AsyncSession, action: DueAction, now: datetime
    ) -> None:
        """The grace period is over and the second message is due (rule VI.D's two clocks,
        both in the incident's `ends_at`): ask the claimant, with buttons, if the opponent is
        still absent."""
        await self.book.ask_claimant(
            session,
            action.subject_id,
            now,
            match_states=PLAYING,
            confirm=False,
            message=wording.noshow_check_dm,
            view_kind=NOSHOW_CHECK_VIEW,
            audit_action="noshow_check_asked",
        )

    async def still_absent(self, *, discord_id: int, incident_id: int) -> IncidentResult:
        """The claimant confirms the opponent is still absent: the TD's second message."""
        now = self.clock.now()
        async with self.sessions() as session:
            incident, ctx = await incident_context(session, discord_id, incident_id)
            self._require(incident, IncidentKind.NO_SHOW, IncidentState.OPEN)
            if incident.ends_at and conduct.second_message_early(now, incident.ends_at):
                raise WrongStage(wording.second_message_not_yet(incident.ends_at))
            since = self.games.cancel_from(datetime.fromisoformat(incident.details["agreed_time"]))
        seen = await self.games.between(ctx.me, ctx.opponent, since, required=True)
        async with transaction(self.sessions) as session:
            incident, ctx = await incident_context(session, discord_id, incident_id)
            self._require(incident, IncidentKind.NO_SHOW, IncidentState.OPEN)
            if conduct.claim_cancelled(seen, await db_games_since(session, ctx.match.id, since)):
                await self.book.cancel(
                    session, incident, now, wording.GAME_FOUND, Actor.player(discord_id)
                )
                return IncidentResult(
                    incident.id, incident.state, wording.claim_cancelled(seen or [])
                )
            incident.state = IncidentState.CONFIRMED
            incident.details = {**incident.details, "confirmed_at": now.isoformat()}
            notify_td(
                session,
                self.config,
                now=now,
                content=wording.noshow_td_second(
                    await place_of(session, self.config.format, ctx.match),
                    ctx.me.lichess_username,
                    ctx.opponent.lichess_username,
                    seen,
                ),
            )
            record(
                session,
                at=now,
                actor=Actor.player(discord_id),
                action="noshow_confirmed",
                subject_type=SUBJECT,
                subject_id=incident.id,
            )
            return IncidentResult(
                incident.id,
                incident.state,
                wording.noshow_choice(ctx.opponent.lichess_username),
                view=NOSHOW_CHOICE_VIEW,
            )

    async def arrived(self, *, discord_id: int, incident_id: int) -> IncidentResult:
        """The claimant says the opponent showed up: the report is closed."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            incident, _ = await incident_context(session, discord_id, incident_id)
            if incident.state not in LIVE:
                raise WrongStage(wording.incident_closed())
            await self.book.cancel(
                session, incident, now, wording.SHOWED_UP, Actor.player(discord_id)
            )
            return IncidentResult(incident.id, incident.state, wording.arrived_reply())

    def _require(self, incident: MatchIncident, kind: IncidentKind, *states: IncidentState) -> None:
        if incident.kind is not kind or incident.state not in states:
            raise WrongStage(wording.incident_closed())

    # --- claiming the win (rules VI.D, VI.E) --------------------------------------------------

    async def _games_since_claim(
        self, discord_id: int, incident_id: int, now: datetime
    ) -> tuple[datetime, list[str] | None]:
        """What Lichess shows between the two since the claim started (outside transactions)."""
        async with self.sessions() as session:
            incident, ctx = await incident_context(session, discord_id, incident_id)
            since = self._claim_since(incident, now)
        return since, await self.games.between(ctx.me, ctx.opponent, since, required=True)

    async def claim_win(self, *, discord_id: int, incident_id: int) -> IncidentResult:
        """A confirmed no-show or an expired /left: forfeit the match to the claimant."""
        now = self.clock.now()
        since, seen = await self._games_since_claim(discord_id, incident_id, now)
        async with transaction(self.sessions) as session:
            incident, ctx = await incident_context(session, discord_id, incident_id)
            self._claim_since(incident, now)
            actor = Actor.player(discord_id)
            if conduct.claim_cancelled(seen, await db_games_since(session, ctx.match.id, since)):
                await self.book.cancel(session, incident, now, wording.GAME_FOUND, actor)
                return IncidentResult(
                    incident.id, incident.state, wording.claim_cancelled(seen or [])
                )
            kind = wording.claim_reason(incident.kind.value)
            disqualified = await discipline.forfeit_match(
                session,
                self.config,
                self.events,
                match_id=ctx.match.id,
                winner_id=ctx.me.id,
                reason=kind,
                actor=actor,
                now=now,
            )
            incident.state = IncidentState.CLAIMED
            incident.resolved_at = now
            incident.details = {
                **incident.details,
                "claimed_at": now.isoformat(),
                "disqualified": disqualified,
            }
            await due.cancel(session, subject_type=SUBJECT, subject_id=incident.id, now=now)
            notify_td(
                session,
                self.config,
                now=now,
                content=wording.claimed_td(
                    await place_of(session, self.config.format, ctx.match),
                    ctx.me.lichess_username,
                    ctx.opponent.lichess_username,
                    kind,
                    incident_called(
                        incident.kind.value, ctx.me.lichess_username, ctx.opponent.lichess_username
                    ),
                ),
            )
            record(
                session,
                at=now,
                actor=actor,
                action="incident_claimed",
                subject_type=SUBJECT,
                subject_id=incident.id,
                details={"match_id": ctx.match.id},
            )
            return IncidentResult(
                incident.id,
                incident.state,
                wording.claimed_reply(ctx.opponent.lichess_username),
                disqualified=disqualified,
            )

    def _claim_since(self, incident: MatchIncident, now: datetime) -> datetime:
        """When games between them would cancel this claim; refuses claims not yet allowed
        (`match_conduct.claim_since`)."""
        agreed = incident.details.get("agreed_time")
        since = conduct.claim_since(
            kind=incident.kind.value,
            state=incident.state.value,
            now=now,
            agreed_time=datetime.fromisoformat(agreed) if agreed else None,
            rescheduling=bool(incident.details.get("rescheduling")),
            reported=incident.created_at,
            return_end=incident.ends_at,
            margin_minutes=self.config.match_day.game_time_margin_minutes,
        )
        if since == "rescheduling":
            raise WrongStage(wording.chose_to_reschedule())
        if since == "still_returning":
            raise WrongStage(wording.still_returning())
        if since == "closed":
            raise WrongStage(wording.incident_closed())
        return since

    async def reschedule(self, *, discord_id: int, incident_id: int) -> IncidentResult:
        """Reopen negotiation after a no-show; a forfeit follows at the deadline without a time."""
        now = self.clock.now()
        since, seen = await self._games_since_claim(discord_id, incident_id, now)
        async with transaction(self.sessions) as session:
            incident, ctx = await incident_context(session, discord_id, incident_id)
            self._claim_since(incident, now)
            if incident.kind is not IncidentKind.NO_SHOW:
                raise WrongStage(wording.incident_closed())
            actor = Actor.player(discord_id)
            if conduct.claim_cancelled(seen, await db_games_since(session, ctx.match.id, since)):
                await self.book.cancel(session, incident, now, wording.GAME_FOUND, actor)
                return IncidentResult(
                    incident.id, incident.state, wording.claim_cancelled(seen or [])
                )
            await refuse_if_played(session, ctx)
            previous = ctx.match.agreed_time
            ctx.match.state = MatchState.NEGOTIATING
            ctx.match.agreed_time = None
            ctx.match.challenge_url = None
            await due.cancel(
                session,
                subject_type="match",
                subject_id=ctx.match.id,
                now=now,
                kinds=(DueKind.MATCH_REMINDER,),
            )
            deadline = ctx.round_.deadline
            incident.details = {
                **incident.details,
                "rescheduling": True,
                "rescheduled_at": now.isoformat(),
            }
            await due.schedule(
                session,
                kind=DueKind.RESCHEDULE_DEADLINE,
                subject_type=SUBJECT,
                subject_id=incident.id,
                due_at=deadline,
            )
            tell(
                session,
                ctx,
                [ctx.opponent],
                now,
                wording.rescheduled_post(
                    ctx.me.lichess_username, ctx.opponent.lichess_username, deadline
                ),
            )
            record(
                session,
                at=now,
                actor=actor,
                action="noshow_rescheduled",
                subject_type=SUBJECT,
                subject_id=incident.id,
                details={
                    "match_id": ctx.match.id,
                    "previous": previous.isoformat() if previous else None,
                },
            )
            await queue_round_post_update(session, ctx.round_.id, now=now, board=ctx.match.board)
            return IncidentResult(incident.id, incident.state, wording.rescheduled_reply(deadline))

    async def on_reschedule_deadline(
        self, session: AsyncSession, action: DueAction, now: datetime
    ) -> None:
        """Round deadline after a no-show reschedule: no new time means a forfeit (VI.D)."""
        incident = await session.get(MatchIncident, action.subject_id)
        if incident is None or incident.state is not IncidentState.CONFIRMED:
            return
        match = await session.get(Match, incident.match_id)
        if match is None:
            return
        if not conduct.reschedule_forfeits(match.state is not MatchState.NEGOTIATING):
            incident.state = IncidentState.RESOLVED
            incident.resolved_at = now
            record(
                session,
                at=now,
                actor=Actor.job(),
                action="noshow_reschedule_agreed",
                subject_type=SUBJECT,
                subject_id=incident.id,
            )
            return
        disqualified = await discipline.forfeit_match(
            session,
            self.config,
            self.events,
            match_id=match.id,
            winner_id=incident.reporter_id,
            reason=wording.reschedule_failed_reason(),
            actor=Actor.job(),
            now=now,
        )
        incident.state = IncidentState.CLAIMED
        incident.resolved_at = now
        incident.details = {
            **incident.details,
            "forfeited_at_deadline": True,
            "disqualified": disqualified,
        }
        record(
            session,
            at=now,
            actor=Actor.job(),
            action="noshow_reschedule_failed",
            subject_type=SUBJECT,
            subject_id=incident.id,
        )
