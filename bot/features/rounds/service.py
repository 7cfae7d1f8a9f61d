"""The Swiss qualification week by week: the TD's round commands, standings, deadlines,
and the answer to matches decided elsewhere.

The round life cycle itself (pairing, publishing) is `progress.py`'s `RoundProgress`, what
follows a closed round `stages.py`'s `StageFlow`; the service is given both.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from functools import partial

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import stage_kinds
from bot.audit import Actor, record, record_td_decision
from bot.clock import Clock
from bot.config import Config
from bot.due import DueKind, Handler, SweepStep
from bot.errors import InvalidInput, WrongStage
from bot.events import EventBus, MatchFinished, PlayerForfeited, PlayerLeft
from bot.features.matches.context import match_label
from bot.features.matches.round_post import queue_round_post_update
from bot.features.rounds import records
from bot.features.rounds import text as wording
from bot.features.rounds.final import FinalStage
from bot.features.rounds.leaving import StageLeaving
from bot.features.rounds.next_round import SwissNextRound, pair_in_worker
from bot.features.rounds.progress import RoundProgress
from bot.features.rounds.stages import StageFlow
from bot.features.rounds.types import (
    PairingLine,
    PendingEntry,
    ResultRecorded,
    RoundPreview,
    StandingLine,
    SwissStart,
)
from bot.lichess.client import LichessClient
from bot.registration_window import read_window
from bot.rules import match as match_rules
from bot.rules import stages as stage_rules
from bot.rules import swiss
from bot.rules.stages import DeadlineStep, MondayStep
from bot.service import Service, Subscription
from bot.td_alerts import notify_td
from db.engine import after_commit, transaction
from db.models import (
    DueAction,
    Match,
    MatchState,
    Player,
    Registration,
    RegistrationState,
    Round,
    RoundState,
    Stage,
    StageKind,
    StageState,
)

__all__ = [
    "PairingLine",
    "ResultRecorded",
    "RoundPreview",
    "RoundService",
    "StandingLine",
    "SwissStart",
]


class RoundService(Service):
    """The TD's round commands, the standings, the round deadlines, and the answer to
    matches decided elsewhere (results read from Lichess, forfeits)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        progress: RoundProgress,
        flow: StageFlow,
        final: FinalStage,
        next_round: SwissNextRound,
        leaving: StageLeaving,
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        super().__init__(sessions, config, clock, lichess=lichess, events=events)
        self.progress = progress
        self.flow = flow
        self.final = final
        self.next_round = next_round
        self.leaving = leaving

    # --- starting the qualification -----------------------------------------------------------

    async def preview_start(self) -> SwissStart:
        """Round 1 as it would be published now, and what still stands in its way: an open
        registration (no preview: the field is not final) or undecided registrations.
        Changes nothing; the pairing runs with no session open."""
        async with self.sessions() as session:
            await self._require_not_started(session)
            window = await read_window(session, self.config, self.clock.now())
            pending = await self._pending(session)
            if window.is_open:
                return SwissStart(True, pending, None)
            players = await self.progress.entrants(session)
        return SwissStart(False, pending, await self._round_one(players))

    async def _round_one(self, players: list[Player]) -> RoundPreview:
        limit = self.config.swiss.pairing_timeout_seconds
        return await pair_in_worker(
            self.progress,
            players,
            number=1,
            results=[],
            withdrawn=set(),
            total_rounds=None,
            limit=limit,
        )

    async def _pending(self, session: AsyncSession) -> list[PendingEntry]:
        rows = await session.execute(
            select(Registration.id, Player.lichess_username)
            .join(Player, Player.id == Registration.player_id)
            .where(Registration.state == RegistrationState.PENDING)
            .order_by(Registration.created_at, Registration.id)
        )
        return [PendingEntry(rid, name) for rid, name in rows]

    async def start(self, *, td_id: int) -> RoundPreview:
        """Start the Swiss and publish round 1 from the current approved field: only once
        registration is closed and every registration is decided (the field is final, so
        nobody can enter and never be paired). Round 1 is paired with no session open,
        then written in a transaction that finds the same field and nothing in the way."""
        now = self.clock.now()
        async with self.sessions() as session:
            await self._refuse_round_one(session, now)
            players = await self.progress.entrants(session)
        preview = await self._round_one(players)
        async with transaction(self.sessions) as session:
            await self._refuse_round_one(session, now)
            field = [p.id for p in await self.progress.entrants(session)]
            if field != [p.id for p in players]:
                raise WrongStage(wording.field_changed())
            stage = records.new_stage(
                self.config,
                StageKind.SWISS,
                started_at=now,
                total_rounds=preview.total_rounds,
                seeding=field,
            )
            session.add(stage)
            await session.flush()
            record(
                session,
                at=now,
                actor=Actor.td(td_id),
                action="swiss_started",
                subject_type="stage",
                subject_id=stage.id,
                details={"players": len(players), "rounds": preview.total_rounds},
            )
            return await self.progress.publish(session, stage, preview, Actor.td(td_id), now)

    async def _refuse_round_one(self, session: AsyncSession, now: datetime) -> None:
        """Rule IV.D (`bot.rules.stages.round_one_block`): once, from a final field."""
        started = await stage_kinds.swiss_row(session, self.config.format)
        pending = await self._pending(session)
        block = stage_rules.round_one_block(
            started=started is not None,
            registration_open=(await read_window(session, self.config, now)).is_open,
            pending=len(pending),
        )
        if block is not None:
            raise WrongStage(wording.round_one_blocked(block, pending))

    async def _require_not_started(self, session: AsyncSession) -> None:
        stage = await stage_kinds.swiss_row(session, self.config.format)
        if stage is not None:
            raise WrongStage(wording.already_started())

    # --- publishing -------------------------------------------------------------------------

    async def publish_next(self, *, actor: Actor) -> RoundPreview:
        """Pair and publish the next round once every match of the current one is decided
        (the pairing runs with no transaction open: `SwissNextRound`)."""
        return await self.next_round.publish_next(actor=actor)

    # --- standings --------------------------------------------------------------------------

    async def standings(self) -> list[StandingLine]:
        """The Swiss table with its tiebreaks (rule III.E.5), best first."""
        async with self.sessions() as session:
            _, players, results, withdrawn, _ = await self.progress.swiss_state(session)
        names = {p.lichess_id: p.lichess_username for p in players}
        table = swiss.standings(
            [p.lichess_id for p in players],
            results,
            withdrawn=withdrawn,
            short_median_buchholz=self.config.swiss.short_median_buchholz,
        )
        return [
            StandingLine(
                row.rank,
                names[row.player],
                row.points,
                row.wins_vs_tied,
                row.median_buchholz,
                row.player in withdrawn,
            )
            for row in table
        ]

    # --- results ----------------------------------------------------------------------------

    async def set_score(
        self, *, td_id: int, match_id: int, score_a: float, score_b: float, reason: str | None
    ) -> ResultRecorded:
        """The TD records or corrects a match score; the reason goes into the audit log."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            match = await session.get(Match, match_id)
            if match is None or match.player_b_id is None:
                raise InvalidInput(wording.no_such_match(match_id))
            round_ = await session.get(Round, match.round_id)
            stage = await session.get(Stage, round_.stage_id) if round_ else None
            assert stage is not None
            self._check_final_score(stage, score_a, score_b)
            match.score_a, match.score_b = score_a, score_b
            match.points_a, match.points_b = match_rules.match_points(score_a, score_b)
            match.state = MatchState.FINISHED
            match.finished_at = now
            record_td_decision(
                session,
                at=now,
                td_id=td_id,
                kind="set_score",
                subject_type="match",
                subject_id=match.id,
                decision=f"{score_a:g}-{score_b:g}",
                reason=reason,
                action="score_set",
                details={"score": [score_a, score_b], "reason": reason},
            )
            await queue_round_post_update(session, match.round_id, now=now, board=match.board)
            await self.progress.post_result(session, match, now)
            label = await match_label(session, self.config.format, match)
            if round_ is None or round_.state is not RoundState.PUBLISHED:
                return ResultRecorded(match.round_id, False, None, False, match=label)
            result = await self.flow.after_result(session, match.round_id, Actor.td(td_id), now)
            result = replace(result, match=label)
        if result.pair_after is None:
            return result
        # The score has committed: the next Swiss round is paired with no transaction open.
        published = await self.next_round.pair_after(result.pair_after, Actor.td(td_id))
        return replace(result, next_round=published)

    def _check_final_score(self, stage: Stage, score_a: float, score_b: float) -> None:
        """A recorded score must end the match by its stage's rules (rule I.C:
        `bot.rules.stages.td_score_problem`)."""
        games = self.config.tournament.match_games
        problem = stage_rules.td_score_problem(
            stage.kind.value,
            score_a,
            score_b,
            games=games,
            tiebreak_players=len(stage.seeding),
            candidates_early_stop=self.config.stages.candidates_early_stop,
        )
        if problem is not None:
            raise InvalidInput(wording.score_refused(problem, score_a, score_b, games))

    # --- due actions --------------------------------------------------------------------------

    def due_handlers(self) -> dict[DueKind, Handler]:
        return {
            DueKind.ROUND_DEADLINE: self._on_round_deadline,
            DueKind.NEXT_ROUND: self._on_next_round,
        }

    def sweep_steps(self) -> dict[str, SweepStep]:
        """A Swiss round closed by a bot that died before pairing the next: paired now."""
        return {"swiss_pairing": self.next_round.pair_waiting}

    def subscriptions(self) -> list[Subscription]:
        return [
            (MatchFinished, self._on_match_finished),
            (PlayerForfeited, self._on_player_forfeited),
            (PlayerLeft, self._on_player_left),
        ]

    async def _on_player_left(
        self, session: AsyncSession, event: PlayerLeft, now: datetime
    ) -> None:
        """A player left: the knock-outs and final matches under way holding them follow the
        format's leaving rule (`StageLeaving`; 2019's Final: rule VIII.C); a match a
        forfeit decided may complete its round."""
        decided = await self.leaving.player_left(session, event.player_id, event.actor, now)
        for round_id in sorted(decided):
            await self._close_if_complete(session, round_id, event.actor, now)

    async def _on_match_finished(
        self, session: AsyncSession, event: MatchFinished, now: datetime
    ) -> None:
        match = await session.get(Match, event.match_id)
        if match is not None and not await self.flow.ends.final_match_finished(
            session, match, event.actor, now
        ):
            await self.final.crown_champion(session, match, event.actor, now)
        await self._close_if_complete(session, event.round_id, event.actor, now)

    async def _on_player_forfeited(
        self, session: AsyncSession, event: PlayerForfeited, now: datetime
    ) -> None:
        for round_id in event.round_ids:
            await self._close_if_complete(session, round_id, event.actor, now)

    async def _close_if_complete(
        self, session: AsyncSession, round_id: int, actor: Actor, now: datetime
    ) -> None:
        """A round still open whose last match was just decided: close it, go on (the Final
        is not played in rounds)."""
        round_ = await session.get(Round, round_id)
        if round_ is None or round_.state is not RoundState.PUBLISHED:
            return
        stage = await session.get(Stage, round_.stage_id)
        if stage is None or stage_kinds.is_final_match(self.config.format, stage):
            return
        result = await self.flow.after_result(session, round_id, actor, now)
        if result.pair_after is not None:
            after_commit(session, partial(self.next_round.pair_after, result.pair_after, actor))

    async def _on_round_deadline(
        self, session: AsyncSession, action: DueAction, now: datetime
    ) -> None:
        """At the round deadline the TD gets every match still without a result (rules
        IV.F, IV.C: `bot.rules.stages.at_deadline`)."""
        round_ = await session.get(Round, action.subject_id)
        stage = await session.get(Stage, round_.stage_id) if round_ is not None else None
        if round_ is None or stage is None:
            return
        open_matches = await records.open_matches(session, round_.id)
        step = stage_rules.at_deadline(stage.kind.value, len(open_matches))
        if step is DeadlineStep.NOTHING:
            return
        if step is DeadlineStep.FINAL_UNFINISHED:
            content = wording.final_unfinished(self.config.stages.final_days)
            notify_td(session, self.config, now=now, content=content)
            return
        lines = []
        for m in sorted(open_matches, key=lambda m: m.board):
            lines.append(
                wording.open_match_line(
                    await match_label(session, self.config.format, m),
                    m.state.value,
                    m.agreed_time,
                )
            )
        content = wording.round_ended_open(round_.number, lines)
        notify_td(session, self.config, now=now, content=content)

    async def _on_next_round(self, session: AsyncSession, action: DueAction, now: datetime) -> None:
        """The Monday after the round: pair the next round if it was not paired early
        (rule IV.E: `bot.rules.stages.on_monday`)."""
        round_ = await session.get(Round, action.subject_id)
        stage = await session.get(Stage, round_.stage_id) if round_ is not None else None
        if round_ is None or stage is None:
            return
        later = await session.scalar(
            select(Round.id).where(
                Round.stage_id == round_.stage_id, Round.number == round_.number + 1
            )
        )
        open_matches = await records.open_matches(session, round_.id)
        step = stage_rules.on_monday(
            stage.kind.value,
            stage_running=stage.state is StageState.RUNNING,
            next_round_exists=later is not None,
            open_matches=len(open_matches),
            confirm_before_publish=self.config.swiss.confirm_before_publish,
        )
        if step is MondayStep.WAIT_FOR_RESULTS:
            content = wording.next_round_waits(round_.number, len(open_matches))
            notify_td(session, self.config, now=now, content=content)
        elif step is MondayStep.PAIR:
            # Paired once this due action has committed, with no transaction open.
            after_commit(session, partial(self.next_round.pair_after, round_.id, Actor.job()))
