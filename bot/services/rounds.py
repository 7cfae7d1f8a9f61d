"""The Swiss qualification week by week: start, publish rounds, record results, next round.

Pairings come from the pure rules engine (`bot.rules.swiss`); this module only reads the
state it needs, writes the round in one transaction with its audit rows, outbox messages and
due actions, and reports what happened. Posting the round in Discord (the pairings post and
its thread) is the publisher's job (`bot.publisher`), which works from what is stored here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import selectinload

from bot.audit import Actor, record, record_td_decision
from bot.clock import Clock
from bot.config import Config
from bot.due import DueActionRunner, schedule
from bot.errors import InvalidInput, WrongStage
from bot.outbox import enqueue_channel
from bot.rules import match as match_rules
from bot.rules import swiss
from bot.services.negotiation import schedule_match_deadlines
from bot.services.round_post import queue_round_post_update
from bot.services.td_alerts import notify_td
from bot.timefmt import discord_time
from db.engine import transaction
from db.models import (
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

ROUND_DEADLINE = "round_deadline"
NEXT_ROUND = "next_round"
PUBLISH_VIEW = "round_publish"
DONE_STATES = (MatchState.FINISHED, MatchState.FORFEITED, MatchState.BYE)


@dataclass(frozen=True)
class PairingLine:
    board: int
    player_a: str
    seed_a: int
    player_b: str | None
    seed_b: int | None


@dataclass(frozen=True)
class RoundPreview:
    """A round as it would be (or was) published."""

    number: int
    total_rounds: int
    players: int
    starts_at: datetime
    deadline: datetime
    lines: list[PairingLine]
    round_id: int | None = None


@dataclass(frozen=True)
class StandingLine:
    rank: int
    player: str
    points: float
    wins_vs_tied: int
    median_buchholz: float
    withdrawn: bool


@dataclass(frozen=True)
class ResultRecorded:
    match_id: int
    round_finished: bool
    next_round: RoundPreview | None
    stage_finished: bool


class RoundProgress:
    """The round life cycle inside a caller's transaction: pairing, publishing, closing.

    Other services that decide a match (results read from Lichess, forfeits) call
    `after_result` in their own transaction; it needs only the configuration.
    """

    def __init__(self, config: Config) -> None:
        self.config = config

    def round_window(self, number: int) -> tuple[datetime, datetime]:
        """Round N runs from its Monday 00:00 UTC to Sunday 23:59:59 UTC (rule IV)."""
        days = timedelta(days=self.config.swiss.round_days)
        starts_at = self.config.swiss.first_round_start + (number - 1) * days
        return starts_at, starts_at + days - timedelta(seconds=1)

    async def _entrants(self, session: AsyncSession) -> list[Player]:
        """Approved, not pre-seeded, not withdrawn: best seeding rating first."""
        rows = (
            await session.scalars(
                select(Registration)
                .where(Registration.state == RegistrationState.APPROVED)
                .options(selectinload(Registration.player))
            )
        ).all()
        players = [
            (r.player, r)
            for r in rows
            if r.player.pre_seeded_stage is None and r.player.withdrawn_at is None
        ]
        players.sort(
            key=lambda pr: (
                pr[0].seeding_rating is None,
                -(pr[0].seeding_rating or 0.0),
                pr[1].created_at,
                pr[1].id,
            )
        )
        return [p for p, _ in players]

    def _preview(
        self,
        players: list[Player],
        *,
        number: int,
        results: list[swiss.Result],
        withdrawn: set[str],
        total_rounds: int | None = None,
    ) -> RoundPreview:
        if len(players) < 2:
            raise WrongStage(
                f"The qualification needs at least 2 approved players; there are {len(players)}."
            )
        cfg = self.config.swiss
        total = total_rounds or swiss.number_of_rounds(
            len(players), rounding=cfg.rounds_rounding, extra=cfg.extra_rounds
        )
        if swiss.uses_round_robin(
            len(players), rounding=cfg.rounds_rounding, extra=cfg.extra_rounds
        ):
            total = len(round_robin := swiss.round_robin_rounds([p.lichess_id for p in players]))
            pairs = round_robin[number - 1]
        else:
            pairs = swiss.pair_round(
                [p.lichess_id for p in players],
                results,
                withdrawn=withdrawn,
                bye_points=cfg.bye_points,
            )
        by_id = {p.lichess_id: (p, seed) for seed, p in enumerate(players, start=1)}
        lines = []
        for board, (a, b) in enumerate(pairs, start=1):
            pa, sa = by_id[a]
            pb, sb = by_id[b] if b is not None else (None, None)
            lines.append(
                PairingLine(board, pa.lichess_username, sa, pb.lichess_username if pb else None, sb)
            )
        starts_at, deadline = self.round_window(number)
        return RoundPreview(number, total, len(players), starts_at, deadline, lines)

    async def _publish(
        self,
        session: AsyncSession,
        stage: Stage,
        preview: RoundPreview,
        actor: Actor,
        now: datetime,
    ) -> RoundPreview:
        players = {
            p.lichess_username: p
            for p in (await session.scalars(select(Player).where(Player.id.in_(stage.seeding))))
        }
        round_ = Round(
            stage_id=stage.id,
            number=preview.number,
            state=RoundState.PUBLISHED,
            starts_at=preview.starts_at,
            deadline=preview.deadline,
            published_at=now,
        )
        session.add(round_)
        await session.flush()
        bye_points = self.config.swiss.bye_points
        for line in preview.lines:
            a = players[line.player_a]
            b = players[line.player_b] if line.player_b else None
            match = Match(
                round_id=round_.id,
                board=line.board,
                player_a_id=a.id,
                player_b_id=b.id if b else None,
                state=MatchState.NEGOTIATING if b else MatchState.BYE,
                score_a=0.0,
                score_b=0.0,
                points_a=None if b else bye_points,
                points_b=None,
                finished_at=None if b else now,
                td_assigns=False,
            )
            session.add(match)
            await session.flush()
            if b is not None:
                await schedule_match_deadlines(session, match, round_, self.config)
        await schedule(
            session,
            kind=ROUND_DEADLINE,
            subject_type="round",
            subject_id=round_.id,
            due_at=round_.deadline,
        )
        await schedule(
            session,
            kind=NEXT_ROUND,
            subject_type="round",
            subject_id=round_.id,
            due_at=round_.deadline + timedelta(seconds=1),
        )
        record(
            session,
            at=now,
            actor=actor,
            action="round_published",
            subject_type="round",
            subject_id=round_.id,
            details={"number": round_.number},
        )
        announce = self.config.discord.announcement_channel_id
        if announce:
            byes = [line.player_a for line in preview.lines if line.player_b is None]
            bye_text = f" Bye: {', '.join(byes)}." if byes else ""
            enqueue_channel(
                session,
                channel_id=announce,
                now=now,
                content=(
                    f"📣 **{self.config.tournament.short_name}: Swiss round "
                    f"{round_.number} of {stage.total_rounds} is out!** "
                    f"{len(preview.lines)} pairings; every match must be played by "
                    f"{discord_time(round_.deadline)}.{bye_text}"
                ),
            )
        return RoundPreview(**{**preview.__dict__, "round_id": round_.id})

    async def _swiss_state(
        self, session: AsyncSession
    ) -> tuple[Stage, list[Player], list[swiss.Result], set[str], list[Round]]:
        stage = await session.scalar(
            select(Stage).where(Stage.kind == StageKind.SWISS).options(selectinload(Stage.rounds))
        )
        if stage is None:
            raise WrongStage("The qualification has not started yet (/td swiss start).")
        by_id = {
            p.id: p
            for p in (await session.scalars(select(Player).where(Player.id.in_(stage.seeding))))
        }
        players = [by_id[pid] for pid in stage.seeding]
        round_ids = [r.id for r in stage.rounds]
        matches = (await session.scalars(select(Match).where(Match.round_id.in_(round_ids)))).all()
        results: list[swiss.Result] = []
        for m in matches:
            if m.state not in DONE_STATES:
                continue
            a = by_id[m.player_a_id].lichess_id
            b = by_id[m.player_b_id].lichess_id if m.player_b_id else None
            results.append((a, b, m.points_a or 0.0, m.points_b or 0.0))
        withdrawn = {p.lichess_id for p in players if p.withdrawn_at or p.disqualified_at}
        return stage, players, results, withdrawn, list(stage.rounds)

    async def _next_preview(self, session: AsyncSession) -> RoundPreview:
        stage, players, results, withdrawn, rounds = await self._swiss_state(session)
        if stage.state is StageState.FINISHED:
            raise WrongStage("The qualification is finished.")
        current = max(rounds, key=lambda r: r.number)
        open_matches = await self._open_matches(session, current.id)
        if open_matches:
            raise WrongStage(
                f"Round {current.number} still has {len(open_matches)} match(es) without a "
                "result; record them (/td set-score) before pairing the next round."
            )
        if current.number >= (stage.total_rounds or 0):
            raise WrongStage("All rounds of the qualification have been played.")
        return self._preview(
            players,
            number=current.number + 1,
            results=results,
            withdrawn=withdrawn,
            total_rounds=stage.total_rounds,
        )

    async def _open_matches(self, session: AsyncSession, round_id: int) -> list[Match]:
        return list(
            (
                await session.scalars(
                    select(Match).where(Match.round_id == round_id, Match.state.not_in(DONE_STATES))
                )
            ).all()
        )

    async def _announce_result(self, session: AsyncSession, match: Match, now: datetime) -> None:
        announce = self.config.discord.announcement_channel_id
        if not announce or match.player_b_id is None:
            return
        a = await session.get(Player, match.player_a_id)
        b = await session.get(Player, match.player_b_id)
        assert a is not None and b is not None
        enqueue_channel(
            session,
            channel_id=announce,
            now=now,
            content=(
                f"Result: **{a.lichess_username}** {match.score_a:g}–{match.score_b:g} "
                f"**{b.lichess_username}**"
            ),
        )

    async def after_result(
        self, session: AsyncSession, round_id: int, actor: Actor, now: datetime
    ) -> ResultRecorded:
        """Close the round when its last match is decided, then pair the next one."""
        round_ = await session.get(Round, round_id)
        assert round_ is not None
        if await self._open_matches(session, round_id):
            return ResultRecorded(round_id, False, None, False)
        round_.state = RoundState.FINISHED
        stage = await session.get(Stage, round_.stage_id)
        assert stage is not None
        if round_.number >= (stage.total_rounds or 0):
            stage.state, stage.finished_at = StageState.FINISHED, now
            record(
                session,
                at=now,
                actor=actor,
                action="swiss_finished",
                subject_type="stage",
                subject_id=stage.id,
            )
            notify_td(
                session,
                self.config,
                now=now,
                content="The qualification is finished: every round has a result.",
            )
            return ResultRecorded(round_id, True, None, True)
        if self.config.swiss.confirm_before_publish:
            notify_td(
                session,
                self.config,
                now=now,
                content=(
                    f"Round {round_.number} is complete. Publish round "
                    f"{round_.number + 1} with /td swiss publish."
                ),
            )
            return ResultRecorded(round_id, True, None, False)
        preview = await self._next_preview(session)
        published = await self._publish(session, stage, preview, actor, now)
        return ResultRecorded(round_id, True, published, False)


class RoundService(RoundProgress):
    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], config: Config, clock: Clock
    ) -> None:
        super().__init__(config)
        self.sessions = sessions
        self.clock = clock

    # --- timing (rule IV) -----------------------------------------------------------------

    # --- starting the qualification -----------------------------------------------------------

    async def preview_start(self) -> RoundPreview:
        """Round 1 as it would be published now; changes nothing."""
        async with self.sessions() as session:
            await self._require_not_started(session)
            players = await self._entrants(session)
        return self._preview(players, number=1, results=[], withdrawn=set())

    async def start(self, *, td_id: int) -> RoundPreview:
        """Start the Swiss and publish round 1 from the current approved field."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            await self._require_not_started(session)
            players = await self._entrants(session)
            preview = self._preview(players, number=1, results=[], withdrawn=set())
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
            return await self._publish(session, stage, preview, Actor.td(td_id), now)

    async def _require_not_started(self, session: AsyncSession) -> None:
        stage = await session.scalar(select(Stage).where(Stage.kind == StageKind.SWISS))
        if stage is not None:
            raise WrongStage("The qualification has already started.")

    # --- publishing -------------------------------------------------------------------------

    async def publish_next(self, *, actor: Actor) -> RoundPreview:
        """Pair and publish the next round once every match of the current one is decided."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            preview = await self._next_preview(session)
            stage = await session.scalar(select(Stage).where(Stage.kind == StageKind.SWISS))
            assert stage is not None
            return await self._publish(session, stage, preview, actor, now)

    # --- standings --------------------------------------------------------------------------

    async def standings(self) -> list[StandingLine]:
        """The Swiss table with its tiebreaks (rule III.E.5), best first."""
        async with self.sessions() as session:
            _, players, results, withdrawn, _ = await self._swiss_state(session)
        names = {p.lichess_id: p.lichess_username for p in players}
        table = swiss.standings([p.lichess_id for p in players], results, withdrawn=withdrawn)
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
            self._check_final_score(stage.kind, score_a, score_b)
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
            await queue_round_post_update(session, match.round_id, now=now)
            await self._announce_result(session, match, now)
            if stage.kind is not StageKind.SWISS:
                return ResultRecorded(match.round_id, False, None, False)
            return await self.after_result(session, match.round_id, Actor.td(td_id), now)

    def _check_final_score(self, kind: StageKind, score_a: float, score_b: float) -> None:
        """A recorded score must end the match by its stage's rules (III.E.1, III.F.2)."""
        if kind is StageKind.FINAL:
            raise InvalidInput("The Final is not a fixed-length match: it is read game by game.")
        cfg = self.config.tournament
        for value in (score_a, score_b):
            if not _possible_points(value, cfg.match_games):
                raise InvalidInput(
                    f"{value:g} is not a possible score: a side scores from 0 to "
                    f"{cfg.match_games} game points, in halves (a game is worth 1, ½ or 0)."
                )
        early_stop = kind is StageKind.SWISS or self.config.stages.candidates_early_stop
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

    def register_due_handlers(self, runner: DueActionRunner) -> None:
        runner.register(ROUND_DEADLINE, self._on_round_deadline)
        runner.register(NEXT_ROUND, self._on_next_round)

    async def _on_round_deadline(self, session: AsyncSession, action, now: datetime) -> None:
        """At the round deadline the TD gets every match still without a result (rule IV.F)."""
        round_ = await session.get(Round, action.subject_id)
        if round_ is None:
            return
        open_matches = await self._open_matches(session, round_.id)
        if not open_matches:
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
                "without a result. Decide them with /td set-score:\n" + "\n".join(lines)
            ),
        )

    async def _on_next_round(self, session: AsyncSession, action, now: datetime) -> None:
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
        open_matches = await self._open_matches(session, round_.id)
        if open_matches:
            # Pairing on guesses would let these players meet again; the last result pairs it.
            notify_td(
                session,
                self.config,
                now=now,
                content=(
                    f"Round {round_.number + 1} cannot be paired yet: "
                    f"{len(open_matches)} match(es) of round {round_.number} have no "
                    "result. It is paired as soon as you record them (/td set-score)."
                ),
            )
            return
        if self.config.swiss.confirm_before_publish:
            return
        preview = await self._next_preview(session)
        await self._publish(session, stage, preview, Actor.job(), now)


def _possible_points(value: float, games: int) -> bool:
    """0 to `games` in steps of 0.5; compared before any arithmetic, so 1e308 or NaN is
    refused rather than overflowing."""
    return 0 <= value <= games and float(value * 2).is_integer()
