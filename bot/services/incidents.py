"""Match-day incidents (rule VI): no-shows, breaks, a player who left, claims and overrules.

Each use case reads and validates first, asks Lichess (outside any transaction) what it
needs, then writes the incident, its audit row, its due actions and its messages in one
short transaction, re-checking the incident's state there. Timers are due actions:
"incident_noshow_check" (end of the grace period, rule VI.D), "incident_reschedule_deadline"
(the round deadline after a no-show reschedule), "incident_break_end" (VI.A) and
"incident_left_end" (VI.E). Forfeits and disqualifications go through bot.services.discipline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import due
from bot.audit import Actor, record, record_td_decision
from bot.errors import ExternalServiceError, InvalidInput, NotAllowed, WrongStage
from bot.lichess import LichessError
from bot.outbox import enqueue_channel
from bot.services import discipline
from bot.services import incidents_text as wording
from bot.services.base import LichessService
from bot.services.matches import (
    current_match,
    load_context,
    match_progress,
    message_player,
    player_by_discord,
)
from bot.services.negotiation import MATCH_REMINDER
from bot.services.results_text import MatchProgress, progress_board
from bot.services.round_post import queue_round_post_update
from bot.services.td_alerts import notify_td
from db.engine import transaction
from db.models import (
    DueAction,
    Game,
    IncidentKind,
    IncidentState,
    Match,
    MatchIncident,
    MatchState,
    Player,
    Round,
    RoundState,
)

NOSHOW_CHECK = "incident_noshow_check"
RESCHEDULE_DEADLINE = "incident_reschedule_deadline"
BREAK_END = "incident_break_end"
LEFT_END = "incident_left_end"
SUBJECT = "incident"

NOSHOW_CHECK_VIEW = "incident_noshow_check"
NOSHOW_CHOICE_VIEW = "incident_noshow_choice"
LEFT_CLAIM_VIEW = "incident_left_claim"

LIVE = (IncidentState.OPEN, IncidentState.CONFIRMED)
PLAYING = (MatchState.SCHEDULED, MatchState.IN_PROGRESS)
NOT_PLAYED = frozenset({"aborted", "noStart"})


@dataclass(frozen=True)
class IncidentResult:
    """What a player's incident action did; `text` is the reply to show them."""

    incident_id: int
    state: IncidentState
    text: str
    view: str | None = None  # an outbox view kind to attach to the reply, if any
    disqualified: bool = False


@dataclass
class _Ctx:
    match: Match
    round_: Round
    me: Player
    opponent: Player

    @property
    def thread_id(self) -> int | None:
        return self.match.thread_id or self.round_.thread_id


class IncidentService(LichessService):
    # --- helpers ------------------------------------------------------------------------------

    async def _my_match(self, session: AsyncSession, discord_id: int) -> _Ctx:
        player = await player_by_discord(session, discord_id)
        match = await current_match(session, player)
        return await self._ctx(session, match, player)

    async def _ctx(self, session: AsyncSession, match: Match, me: Player) -> _Ctx:
        if match.player_b_id is None:
            raise WrongStage("You have a bye this round: there is no opponent.")
        other_id = match.player_b_id if me.id == match.player_a_id else match.player_a_id
        opponent = await session.get(Player, other_id)
        round_ = await session.get(Round, match.round_id)
        assert opponent is not None and round_ is not None
        return _Ctx(match, round_, me, opponent)

    async def _incident_ctx(
        self, session: AsyncSession, discord_id: int, incident_id: int
    ) -> tuple[MatchIncident, _Ctx]:
        """The incident and its match, for its reporter only."""
        incident = await session.get(MatchIncident, incident_id)
        if incident is None:
            raise InvalidInput(wording.no_such_incident(incident_id))
        player = await player_by_discord(session, discord_id)
        if incident.reporter_id != player.id:
            raise NotAllowed(wording.not_yours())
        match = await session.get(Match, incident.match_id)
        assert match is not None
        return incident, await self._ctx(session, match, player)

    def _dm(
        self,
        session: AsyncSession,
        ctx: _Ctx,
        player: Player,
        now: datetime,
        text: str,
        view: tuple[str, dict[str, int]] | None = None,
    ) -> None:
        """A DM; closed DMs (or no Discord link) fall back to the match thread."""
        message_player(session, player, thread_id=ctx.thread_id, now=now, content=text, view=view)

    def _post(self, session: AsyncSession, ctx: _Ctx, now: datetime, text: str) -> None:
        if ctx.thread_id:
            enqueue_channel(session, channel_id=ctx.thread_id, now=now, content=text)

    async def _games_between(
        self, a: Player, b: Player, since: datetime, *, required: bool
    ) -> list[str] | None:
        """Lichess game links between a and b created since `since` (outside transactions).

        None when Lichess cannot be reached and `required` is False; with `required` the
        player is told to try again and nothing changes.
        """
        try:
            games = await self.lichess.export_games(
                a.lichess_username, since=since, vs=b.lichess_username, max_games=20
            )
        except LichessError as exc:
            if required:
                raise ExternalServiceError(
                    "Lichess could not be checked right now; nothing was changed. Try again "
                    "in a minute."
                ) from exc
            return None
        return [g.url for g in games if g.status not in NOT_PLAYED]

    async def _db_games_since(self, session: AsyncSession, match_id: int, since: datetime) -> bool:
        """A game the results job already attributed to the match, created since `since`."""
        found = await session.scalar(
            select(Game.id).where(Game.match_id == match_id, Game.created_at >= since).limit(1)
        )
        return found is not None

    def _margin(self) -> timedelta:
        return timedelta(minutes=self.config.match_day.game_time_margin_minutes)

    async def _cancel(
        self, session: AsyncSession, incident: MatchIncident, now: datetime, why: str, actor: Actor
    ) -> None:
        incident.state = IncidentState.CANCELLED
        incident.resolved_at = now
        incident.details = {**incident.details, "cancelled": why}
        await due.cancel(session, subject_type=SUBJECT, subject_id=incident.id, now=now)
        record(
            session,
            at=now,
            actor=actor,
            action="incident_cancelled",
            subject_type=SUBJECT,
            subject_id=incident.id,
            details={"why": why},
        )

    async def _live_incident(
        self, session: AsyncSession, match_id: int, kind: IncidentKind
    ) -> MatchIncident | None:
        return await session.scalar(
            select(MatchIncident).where(
                MatchIncident.match_id == match_id,
                MatchIncident.kind == kind,
                MatchIncident.state.in_(LIVE),
            )
        )

    # --- /noshow (rule VI.D) ------------------------------------------------------------------

    async def noshow(self, *, discord_id: int) -> IncidentResult:
        """The appearing player reports the opponent absent; the TD gets the first message."""
        now = self.clock.now()
        md = self.config.match_day
        async with self.sessions() as session:
            ctx = await self._my_match(session, discord_id)
            agreed = await self._noshow_allowed(session, ctx, now)
            if await self._live_incident(session, ctx.match.id, IncidentKind.NO_SHOW):
                raise WrongStage(wording.noshow_open())
            in_db = await self._db_games_since(session, ctx.match.id, agreed - self._margin())
        seen = await self._games_between(
            ctx.me, ctx.opponent, agreed - self._margin(), required=False
        )
        if in_db or seen:
            raise WrongStage(wording.noshow_games_found(seen or []))
        async with transaction(self.sessions) as session:
            ctx = await self._my_match(session, discord_id)
            agreed = await self._noshow_allowed(session, ctx, now)
            if await self._live_incident(session, ctx.match.id, IncidentKind.NO_SHOW):
                raise WrongStage(wording.noshow_open())
            grace_end = now + timedelta(minutes=md.noshow_grace_minutes)
            incident = MatchIncident(
                match_id=ctx.match.id,
                kind=IncidentKind.NO_SHOW,
                state=IncidentState.OPEN,
                reporter_id=ctx.me.id,
                against_id=ctx.opponent.id,
                created_at=now,
                ends_at=grace_end,
                details={"agreed_time": agreed.isoformat(), "first_check": seen},
            )
            session.add(incident)
            await session.flush()
            await due.schedule(
                session,
                kind=NOSHOW_CHECK,
                subject_type=SUBJECT,
                subject_id=incident.id,
                due_at=grace_end,
            )
            notify_td(
                session,
                self.config,
                now=now,
                content=wording.noshow_td_first(
                    ctx.match.id,
                    ctx.me.lichess_username,
                    ctx.opponent.lichess_username,
                    agreed,
                    seen,
                ),
            )
            self._dm(
                session,
                ctx,
                ctx.opponent,
                now,
                wording.noshow_opponent_dm(ctx.me.lichess_username, grace_end),
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
                wording.noshow_reply(ctx.opponent.lichess_username, grace_end),
            )

    async def _refuse_if_played(self, session: AsyncSession, ctx: _Ctx) -> None:
        """A decided match, or one with a counted game, has nothing to claim: say why."""
        if ctx.match.state not in PLAYING:
            progress = await match_progress(session, await load_context(session, ctx.match))
            raise WrongStage(wording.match_decided(self._board(progress)))
        if ctx.match.state is MatchState.IN_PROGRESS:
            progress = await match_progress(session, await load_context(session, ctx.match))
            if progress.counted:
                raise WrongStage(wording.games_played(self._board(progress)))

    def _board(self, progress: MatchProgress) -> str:
        return progress_board(progress, total_games=self.config.tournament.match_games)

    async def _noshow_allowed(self, session: AsyncSession, ctx: _Ctx, now: datetime) -> datetime:
        """From the agreed time until a counted game exists, game link posted or not (VI.D)."""
        if ctx.match.state is MatchState.NEGOTIATING:
            raise WrongStage(wording.noshow_no_time())
        await self._refuse_if_played(session, ctx)
        agreed = ctx.match.agreed_time
        if agreed is None:
            raise WrongStage(wording.noshow_no_time())
        if now < agreed:
            raise WrongStage(wording.noshow_too_early(agreed))
        window = self.config.match_day.noshow_claim_window_minutes
        if now > agreed + timedelta(minutes=window):
            raise WrongStage(wording.noshow_too_late(agreed, window))
        return agreed

    async def on_noshow_check(
        self, session: AsyncSession, action: DueAction, now: datetime
    ) -> None:
        """After the grace period: ask the claimant, with buttons, if the opponent is absent."""
        await self._ask_claimant(
            session,
            action.subject_id,
            now,
            match_states=PLAYING,
            confirm=False,
            message=wording.noshow_check_dm,
            view_kind=NOSHOW_CHECK_VIEW,
            audit_action="noshow_check_asked",
        )

    async def _ask_claimant(
        self,
        session: AsyncSession,
        incident_id: int,
        now: datetime,
        *,
        match_states: tuple[MatchState, ...],
        confirm: bool,
        message: Callable[[str], str],
        view_kind: str,
        audit_action: str,
    ) -> None:
        """A timer ran out on a live incident: DM the claimant a question with buttons."""
        incident = await session.get(MatchIncident, incident_id)
        if incident is None or incident.state is not IncidentState.OPEN:
            return
        match = await session.get(Match, incident.match_id)
        me = await session.get(Player, incident.reporter_id)
        if match is None or me is None or match.state not in match_states:
            return
        if confirm:
            incident.state = IncidentState.CONFIRMED
        ctx = await self._ctx(session, match, me)
        self._dm(
            session,
            ctx,
            me,
            now,
            message(ctx.opponent.lichess_username),
            view=(view_kind, {"incident_id": incident.id}),
        )
        record(
            session,
            at=now,
            actor=Actor.job(),
            action=audit_action,
            subject_type=SUBJECT,
            subject_id=incident.id,
        )

    async def still_absent(self, *, discord_id: int, incident_id: int) -> IncidentResult:
        """The claimant confirms the opponent is still absent: the TD's second message."""
        now = self.clock.now()
        async with self.sessions() as session:
            incident, ctx = await self._incident_ctx(session, discord_id, incident_id)
            self._require(incident, IncidentKind.NO_SHOW, IncidentState.OPEN)
            if incident.ends_at and now < incident.ends_at:
                raise WrongStage("The grace period is not over yet; I will ask you when it is.")
            since = datetime.fromisoformat(incident.details["agreed_time"]) - self._margin()
        seen = await self._games_between(ctx.me, ctx.opponent, since, required=True)
        async with transaction(self.sessions) as session:
            incident, ctx = await self._incident_ctx(session, discord_id, incident_id)
            self._require(incident, IncidentKind.NO_SHOW, IncidentState.OPEN)
            if seen or await self._db_games_since(session, ctx.match.id, since):
                await self._cancel(
                    session,
                    incident,
                    now,
                    "a game between them was found",
                    Actor.player(discord_id),
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
                    ctx.match.id, ctx.me.lichess_username, ctx.opponent.lichess_username, seen
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
            incident, _ = await self._incident_ctx(session, discord_id, incident_id)
            if incident.state not in LIVE:
                raise WrongStage(wording.incident_closed())
            await self._cancel(
                session, incident, now, "the opponent showed up", Actor.player(discord_id)
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
            incident, ctx = await self._incident_ctx(session, discord_id, incident_id)
            since = self._claim_since(incident, now)
        return since, await self._games_between(ctx.me, ctx.opponent, since, required=True)

    async def claim_win(self, *, discord_id: int, incident_id: int) -> IncidentResult:
        """A confirmed no-show or an expired /left: forfeit the match to the claimant."""
        now = self.clock.now()
        since, seen = await self._games_since_claim(discord_id, incident_id, now)
        async with transaction(self.sessions) as session:
            incident, ctx = await self._incident_ctx(session, discord_id, incident_id)
            self._claim_since(incident, now)
            actor = Actor.player(discord_id)
            if seen or await self._db_games_since(session, ctx.match.id, since):
                await self._cancel(session, incident, now, "a game between them was found", actor)
                return IncidentResult(
                    incident.id, incident.state, wording.claim_cancelled(seen or [])
                )
            kind = (
                "no-show, rule VI.D"
                if incident.kind is IncidentKind.NO_SHOW
                else ("left the match, rule VI.E")
            )
            disqualified = await discipline.forfeit_match(
                session,
                self.config,
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
                    ctx.match.id,
                    incident.id,
                    ctx.me.lichess_username,
                    ctx.opponent.lichess_username,
                    kind,
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
        """When games between them would cancel this claim; refuses claims not yet allowed."""
        if incident.kind is IncidentKind.NO_SHOW and incident.state is IncidentState.CONFIRMED:
            if incident.details.get("rescheduling"):
                raise WrongStage("You chose to reschedule this match; agree on a new time.")
            return datetime.fromisoformat(incident.details["agreed_time"]) - self._margin()
        if incident.kind is IncidentKind.LEFT and incident.state in LIVE:
            if incident.ends_at is not None and now < incident.ends_at:
                raise WrongStage(
                    "Your opponent still has time to come back; you can claim after the "
                    "return period."
                )
            return incident.created_at
        raise WrongStage(wording.incident_closed())

    async def reschedule(self, *, discord_id: int, incident_id: int) -> IncidentResult:
        """Reopen negotiation after a no-show; a forfeit follows at the deadline without a time."""
        now = self.clock.now()
        since, seen = await self._games_since_claim(discord_id, incident_id, now)
        async with transaction(self.sessions) as session:
            incident, ctx = await self._incident_ctx(session, discord_id, incident_id)
            self._claim_since(incident, now)
            if incident.kind is not IncidentKind.NO_SHOW:
                raise WrongStage(wording.incident_closed())
            actor = Actor.player(discord_id)
            if seen or await self._db_games_since(session, ctx.match.id, since):
                await self._cancel(session, incident, now, "a game between them was found", actor)
                return IncidentResult(
                    incident.id, incident.state, wording.claim_cancelled(seen or [])
                )
            await self._refuse_if_played(session, ctx)
            previous = ctx.match.agreed_time
            ctx.match.state = MatchState.NEGOTIATING
            ctx.match.agreed_time = None
            ctx.match.challenge_url = None
            await due.cancel(
                session,
                subject_type="match",
                subject_id=ctx.match.id,
                now=now,
                kinds=(MATCH_REMINDER,),
            )
            deadline = ctx.round_.deadline
            incident.details = {
                **incident.details,
                "rescheduling": True,
                "rescheduled_at": now.isoformat(),
            }
            await due.schedule(
                session,
                kind=RESCHEDULE_DEADLINE,
                subject_type=SUBJECT,
                subject_id=incident.id,
                due_at=deadline,
            )
            self._post(
                session,
                ctx,
                now,
                wording.rescheduled_post(
                    ctx.me.lichess_username, ctx.opponent.lichess_username, deadline
                ),
            )
            self._dm(
                session,
                ctx,
                ctx.opponent,
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
            await queue_round_post_update(session, ctx.round_.id, now=now)
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
        if match.state is not MatchState.NEGOTIATING:
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

    # --- /break (rule VI.A) -------------------------------------------------------------------

    async def _break_used(self, session: AsyncSession, match_id: int, player_id: int) -> bool:
        """A break taken, or a /left against the player (it counts as their break, VI.E)."""
        found = await session.scalar(
            select(MatchIncident.id)
            .where(
                MatchIncident.match_id == match_id,
                MatchIncident.state != IncidentState.CANCELLED,
                or_(
                    (MatchIncident.kind == IncidentKind.BREAK)
                    & (MatchIncident.reporter_id == player_id),
                    (MatchIncident.kind == IncidentKind.LEFT)
                    & (MatchIncident.against_id == player_id),
                ),
            )
            .limit(1)
        )
        return found is not None

    async def _require_started(self, session: AsyncSession, ctx: _Ctx, now: datetime) -> None:
        """Breaks and /left: from the agreed time until the match is decided."""
        if ctx.match.state is MatchState.NEGOTIATING:
            raise WrongStage(wording.match_not_started())
        if ctx.match.state not in PLAYING:
            await self._refuse_if_played(session, ctx)
        if ctx.match.agreed_time is None or now < ctx.match.agreed_time:
            raise WrongStage(wording.match_not_started())

    async def take_break(self, *, discord_id: int) -> IncidentResult:
        """One break per player per match, between games, at most break_minutes (VI.A)."""
        now = self.clock.now()
        minutes = self.config.match_day.break_minutes
        async with transaction(self.sessions) as session:
            ctx = await self._my_match(session, discord_id)
            await self._require_started(session, ctx, now)
            if await self._break_used(session, ctx.match.id, ctx.me.id):
                raise WrongStage(wording.break_used())
            ends = now + timedelta(minutes=minutes)
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
                session, kind=BREAK_END, subject_type=SUBJECT, subject_id=incident.id, due_at=ends
            )
            text = wording.break_post(ctx.me.lichess_username, ends, minutes)
            self._post(session, ctx, now, text)
            self._dm(session, ctx, ctx.opponent, now, text)
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
        ctx = await self._ctx(session, match, me)
        text = wording.break_over(me.lichess_username)
        self._post(session, ctx, now, text)
        self._dm(session, ctx, me, now, text)
        self._dm(session, ctx, ctx.opponent, now, text)

    # --- /left (rule VI.E) --------------------------------------------------------------------

    async def left(self, *, discord_id: int) -> IncidentResult:
        """The opponent left mid-match: they get left_return_minutes, counted as their break."""
        now = self.clock.now()
        minutes = self.config.match_day.left_return_minutes
        async with transaction(self.sessions) as session:
            ctx = await self._my_match(session, discord_id)
            await self._require_started(session, ctx, now)
            if await self._live_incident(session, ctx.match.id, IncidentKind.LEFT):
                raise WrongStage(wording.left_open())
            break_used = await self._break_used(session, ctx.match.id, ctx.opponent.id)
            ends = now + timedelta(minutes=minutes)
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
                session, kind=LEFT_END, subject_type=SUBJECT, subject_id=incident.id, due_at=ends
            )
            self._post(
                session, ctx, now, wording.left_post(ctx.opponent.lichess_username, ends, minutes)
            )
            self._dm(
                session, ctx, ctx.opponent, now, wording.left_dm(ctx.me.lichess_username, ends)
            )
            if break_used:
                notify_td(
                    session,
                    self.config,
                    now=now,
                    content=wording.left_break_used_td(
                        ctx.match.id, ctx.opponent.lichess_username, ctx.me.lichess_username
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
        """The return period is over: offer the claimant the Claim the win button."""
        await self._ask_claimant(
            session,
            action.subject_id,
            now,
            match_states=PLAYING,
            confirm=True,
            message=wording.left_claim_dm,
            view_kind=LEFT_CLAIM_VIEW,
            audit_action="left_claim_offered",
        )

    # --- the TD ---------------------------------------------------------------------------------

    async def overrule(self, *, td_id: int, incident_id: int, reason: str) -> IncidentResult:
        """The TD overrules a claim: an open one is cancelled, a forfeit is taken back."""
        now = self.clock.now()
        reason = reason.strip()
        if not reason:
            raise InvalidInput("Give a reason: it goes to both players and the audit log.")
        actor = Actor.td(td_id)
        async with transaction(self.sessions) as session:
            incident = await session.get(MatchIncident, incident_id)
            if incident is None:
                raise InvalidInput(wording.no_such_incident(incident_id))
            if incident.kind not in (IncidentKind.NO_SHOW, IncidentKind.LEFT):
                raise WrongStage("Only no-show and left claims can be overruled.")
            match = await session.get(Match, incident.match_id)
            me = await session.get(Player, incident.reporter_id)
            assert match is not None and me is not None
            ctx = await self._ctx(session, match, me)
            if incident.state is IncidentState.CLAIMED:
                await self._undo_forfeit(session, incident, ctx, actor, now)
            elif incident.state not in LIVE:
                raise WrongStage(wording.incident_closed())
            await self._cancel(session, incident, now, f"overruled by the TD: {reason}", actor)
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
            text = wording.overruled_post(match.id, reason)
            self._post(session, ctx, now, text)
            self._dm(session, ctx, ctx.me, now, text)
            self._dm(session, ctx, ctx.opponent, now, text)
            return IncidentResult(incident.id, incident.state, wording.overrule_reply(incident.id))

    async def _undo_forfeit(
        self,
        session: AsyncSession,
        incident: MatchIncident,
        ctx: _Ctx,
        actor: Actor,
        now: datetime,
    ) -> None:
        """Take a claimed forfeit back: the match reopens for negotiation in its round."""
        match = ctx.match
        if match.state is not MatchState.FORFEITED or match.forfeit_winner_id != ctx.me.id:
            raise WrongStage(
                f"Match #{match.id} no longer stands as this forfeit; correct it with "
                "/td set-score."
            )
        if ctx.round_.state is not RoundState.PUBLISHED:
            raise WrongStage(
                f"Round {ctx.round_.number} is closed; correct match #{match.id} with "
                "/td set-score."
            )
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
        await queue_round_post_update(session, ctx.round_.id, now=now)

    async def _player_named(self, session: AsyncSession, name: str) -> Player:
        player = await session.scalar(
            select(Player).where(Player.lichess_id == name.strip().lower())
        )
        if player is None:
            raise InvalidInput(wording.no_such_player(name))
        return player

    async def td_disqualify(
        self, *, td_id: int, player_name: str, reason: str, engine: bool
    ) -> str:
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            player = await self._player_named(session, player_name)
            await discipline.disqualify(
                session,
                self.config,
                player_id=player.id,
                reason=reason,
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
                reason=reason,
            )
            return player.lichess_username

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
            return player.lichess_username

    # --- wiring ----------------------------------------------------------------------------------

    def register_due_handlers(self, runner: due.DueActionRunner) -> None:
        runner.register(NOSHOW_CHECK, self.on_noshow_check)
        runner.register(RESCHEDULE_DEADLINE, self.on_reschedule_deadline)
        runner.register(BREAK_END, self.on_break_end)
        runner.register(LEFT_END, self.on_left_end)
