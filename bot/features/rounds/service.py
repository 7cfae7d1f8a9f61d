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

from bot.audit import Actor, record, record_td_decision
from bot.clock import Clock
from bot.config import Config
from bot.due import DueKind, Handler, SweepStep
from bot.errors import InvalidInput, WrongStage
from bot.events import EventBus, MatchFinished, PlayerForfeited, PlayerLeft
from bot.features.matches.round_post import queue_round_post_update
from bot.features.rounds import records
from bot.features.rounds import text as wording
from bot.features.rounds.final import FinalStage
from bot.features.rounds.next_round import SwissNextRound
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
from bot.rules import swiss
from bot.service import Service, Subscription
from bot.td_alerts import notify_td
from bot.timefmt import discord_time
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
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        super().__init__(sessions, config, clock, lichess=lichess, events=events)
        self.progress = progress
        self.flow = flow
        self.final = final
        self.next_round = next_round

    # --- starting the qualification -----------------------------------------------------------

    async def preview_start(self) -> SwissStart:
        """Round 1 as it would be published now, and what still stands in its way: an open
        registration (no preview: the field is not final) or undecided registrations.
        Changes nothing."""
        async with self.sessions() as session:
            await self._require_not_started(session)
            window = await read_window(session, self.config, self.clock.now())
            pending = await self._pending(session)
            if window.is_open:
                return SwissStart(True, pending, None)
            players = await self.progress.entrants(session)
        preview = self.progress.preview(players, number=1, results=[], withdrawn=set())
        return SwissStart(False, pending, preview)

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
        nobody can enter and never be paired)."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            await self._require_not_started(session)
            if (await read_window(session, self.config, now)).is_open:
                raise WrongStage(wording.registration_still_open())
            pending = await self._pending(session)
            if pending:
                raise WrongStage(wording.pending_block(pending))
            players = await self.progress.entrants(session)
            preview = self.progress.preview(players, number=1, results=[], withdrawn=set())
            stage = Stage(
                kind=StageKind.SWISS,
                state=StageState.RUNNING,
                started_at=now,
                total_rounds=preview.total_rounds,
                seeding=[p.id for p in players],
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

    async def _require_not_started(self, session: AsyncSession) -> None:
        stage = await session.scalar(select(Stage).where(Stage.kind == StageKind.SWISS))
        if stage is not None:
            raise WrongStage("The qualification has already started.")

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
                raise InvalidInput(f"There is no match #{match_id} with two players.")
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
            if round_ is None or round_.state is not RoundState.PUBLISHED:
                return ResultRecorded(match.round_id, False, None, False)
            result = await self.flow.after_result(session, match.round_id, Actor.td(td_id), now)
        if result.pair_after is None:
            return result
        # The score has committed: the next Swiss round is paired with no transaction open.
        published = await self.next_round.pair_after(result.pair_after, Actor.td(td_id))
        return replace(result, next_round=published)

    def _check_final_score(self, stage: Stage, score_a: float, score_b: float) -> None:
        """A recorded score must end the match by its stage's rules (III.E.1, III.F.2)."""
        kind = stage.kind
        if kind is StageKind.FINAL:
            raise InvalidInput("The Final is not a fixed-length match: it is read game by game.")
        cfg = self.config.tournament
        for value in (score_a, score_b):
            if not _possible_points(value, cfg.match_games):
                raise InvalidInput(
                    f"{value:g} is not a possible score: a side scores from 0 to "
                    f"{cfg.match_games} game points, in halves (a game is worth 1, ½ or 0)."
                )
        early_stop = (
            kind is StageKind.SWISS
            or (kind is StageKind.TIEBREAK and len(stage.seeding) == 2)
            or (kind is StageKind.CANDIDATES and self.config.stages.candidates_early_stop)
        )
        try:
            finished = match_rules.is_over(
                score_a, score_b, games=cfg.match_games, early_stop=early_stop
            )
        except ValueError as exc:
            raise InvalidInput(
                f"{score_a:g}–{score_b:g} is not a possible match score: {exc}"
            ) from exc
        if not finished:
            if early_stop:
                ends = f"all {cfg.match_games} games are played or a side has more than half"
            else:
                ends = (
                    f"all {cfg.match_games} games are played (Candidates matches are played "
                    "out, rule III.F.2)"
                )
            raise InvalidInput(
                f"{score_a:g}–{score_b:g} is not a finished match: it ends when {ends}."
            )

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
        await self.final.replace_finalist(session, event.player_id, event.actor, now)

    async def _on_match_finished(
        self, session: AsyncSession, event: MatchFinished, now: datetime
    ) -> None:
        match = await session.get(Match, event.match_id)
        if match is not None:
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
        if stage is None or stage.kind is StageKind.FINAL:
            return
        result = await self.flow.after_result(session, round_id, actor, now)
        if result.pair_after is not None:
            after_commit(session, partial(self.next_round.pair_after, result.pair_after, actor))

    async def _on_round_deadline(
        self, session: AsyncSession, action: DueAction, now: datetime
    ) -> None:
        """At the round deadline the TD gets every match still without a result (rule IV.F)."""
        round_ = await session.get(Round, action.subject_id)
        if round_ is None:
            return
        open_matches = await records.open_matches(session, round_.id)
        if not open_matches:
            return
        stage = await session.get(Stage, round_.stage_id)
        if stage is not None and stage.kind is StageKind.FINAL:
            notify_td(
                session,
                self.config,
                now=now,
                content=(
                    f"⏰ The Final is still unfinished {self.config.stages.final_days} days "
                    "after it was set up. It goes on as the finalists see fit (rule IV.C); "
                    "step in only if it has stalled."
                ),
            )
            return
        lines = []
        for m in sorted(open_matches, key=lambda m: m.board):
            a = await session.get(Player, m.player_a_id)
            b = await session.get(Player, m.player_b_id) if m.player_b_id else None
            when = discord_time(m.agreed_time) if m.agreed_time else "no agreed time"
            lines.append(
                f"#{m.id} board {m.board}: {a.lichess_username if a else '?'} vs "
                f"{b.lichess_username if b else '?'} · {m.state.value} · {when}"
            )
        notify_td(
            session,
            self.config,
            now=now,
            content=(
                f"⏰ Round {round_.number} has ended with {len(open_matches)} match(es) "
                "without a result. Decide them with /td round set-score:\n" + "\n".join(lines)
            ),
        )

    async def _on_next_round(self, session: AsyncSession, action: DueAction, now: datetime) -> None:
        """The Monday after the round: pair the next round if it was not paired early."""
        round_ = await session.get(Round, action.subject_id)
        if round_ is None:
            return
        stage = await session.get(Stage, round_.stage_id)
        later = await session.scalar(
            select(Round).where(
                Round.stage_id == round_.stage_id, Round.number == round_.number + 1
            )
        )
        if later is not None or stage is None or stage.state is not StageState.RUNNING:
            return
        if stage.kind is not StageKind.SWISS:
            return  # round robin rounds follow as results come in; the Final is one match
        open_matches = await records.open_matches(session, round_.id)
        if open_matches:
            # Pairing on guesses would let these players meet again; the last result pairs it.
            notify_td(
                session,
                self.config,
                now=now,
                content=(
                    f"Round {round_.number + 1} cannot be paired yet: "
                    f"{len(open_matches)} match(es) of round {round_.number} have no "
                    "result. It is paired as soon as you record them (/td round set-score)."
                ),
            )
            return
        if self.config.swiss.confirm_before_publish:
            return
        # Paired once this due action has committed, with no transaction open.
        after_commit(session, partial(self.next_round.pair_after, round_.id, Actor.job()))


def _possible_points(value: float, games: int) -> bool:
    """0 to `games` in steps of 0.5; compared before any arithmetic, so 1e308 or NaN is
    refused rather than overflowing."""
    return 0 <= value <= games and float(value * 2).is_integer()
