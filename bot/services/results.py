"""Match day, read from Lichess: the game link at the agreed time, then the results.

Players never type scores. At the agreed time the bot opens a Lichess challenge only the
two players can join; a periodic poll then reads the games between them (one request per
match under way, none for idle matches), keeps those that count (`bot.rules.attribution`),
keeps the live scoreboard in the match thread and ends the match when the rules engine
says it is over. `/game` is the fallback for a game the poll missed; the TD can void one.

Lichess calls happen outside any transaction; each match's update is one short transaction,
so a failure for one match (a 429, an outage) loses nothing and the next poll retries.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor, record, record_td_decision
from bot.clock import Clock
from bot.config import Config
from bot.due import DueActionRunner
from bot.errors import ExternalServiceError, InvalidInput, NotAllowed, WrongStage
from bot.lichess.client import LichessClient
from bot.lichess.errors import LichessError, LichessNotFound
from bot.lichess.models import LichessGame
from bot.outbox import enqueue_channel, enqueue_edit_of
from bot.rules import final as final_rules
from bot.rules.attribution import judge, parse_game_id, split_at_end
from bot.rules.match import match_points
from bot.services import results_text as text
from bot.services.base import LichessService
from bot.services.matches import message_player
from bot.services.round_post import queue_round_post_update
from bot.services.rounds import RoundService
from bot.services.td_alerts import notify_td
from db.engine import transaction
from db.models import (
    Game,
    Match,
    MatchState,
    OutboxMessage,
    Player,
    Round,
    RoundState,
    Stage,
    StageKind,
)

log = logging.getLogger(__name__)

UNDER_WAY = (MatchState.SCHEDULED, MatchState.IN_PROGRESS)
AFTER_END = "played after the match had ended"
ARMAGEDDON = "Armageddon game: the TD records it"
TD_VOID = "voided by the TD: "


@dataclass
class _Ctx:
    """A match with everything its results need, loaded in one session."""

    match: Match
    round_: Round
    stage: Stage
    a: Player
    b: Player
    games: list[Game]

    @property
    def thread_id(self) -> int | None:
        return self.match.thread_id or self.round_.thread_id


@dataclass(frozen=True)
class PollReport:
    """What one poll did: matches asked about, games stored, matches ended, failures."""

    polled: int
    new_games: int
    finished: list[int] = field(default_factory=list)
    errors: int = 0


@dataclass(frozen=True)
class Settled:
    """The match after an update: its score and whether it is over."""

    match_id: int
    score_a: float
    score_b: float
    finished: bool
    stored: dict[str, Game] = field(default_factory=dict)  # lichess id -> row, new ones


@dataclass(frozen=True)
class SubmitResult:
    match_id: int
    lichess_id: str
    number: int
    counted: bool
    already: bool
    score_a: float
    score_b: float
    finished: bool


@dataclass(frozen=True)
class VoidResult:
    match_id: int
    lichess_id: str
    score_a: float
    score_b: float
    finished: bool
    reopened: bool


def _td_voided(game: Game) -> bool:
    return not game.counted and (game.voided_reason or "").startswith(TD_VOID)


class ResultsService(LichessService):
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        lichess: LichessClient,
        config: Config,
        clock: Clock,
        rounds: RoundService | None = None,
    ) -> None:
        super().__init__(sessions, lichess, config, clock)
        self.rounds = rounds or RoundService(sessions, config, clock)
        # The sweep and the results job may both open links: one at a time, so a match
        # never gets two Lichess challenges.
        self._challenge_lock = asyncio.Lock()

    # --- rules per stage ----------------------------------------------------------------------

    @property
    def _margin(self) -> timedelta:
        return timedelta(minutes=self.config.match_day.game_time_margin_minutes)

    def _base_clock(self) -> tuple[int, int]:
        tc = self.config.tournament.time_control
        return (tc.limit_seconds, tc.increment)

    def _final_status(self, results: Sequence[float]) -> final_rules.FinalStatus:
        st, tc = self.config.stages, self.config.tournament.time_control
        return final_rules.status(
            results,
            base_games=st.final_games,
            lead=st.final_lead,
            extension_games=st.final_extension_games,
            lead_rule_games=st.final_lead_rule_games,
            armageddon_after=st.final_armageddon_after,
            time_control=str(tc),
            tiebreak_time_control=str(st.final_tiebreak_time_control),
        )

    def _clock_for(self, kind: StageKind, results: Sequence[float]) -> tuple[int, int]:
        """The clock the next game must have: 2+5, or 2+0 in the Final's tie extensions."""
        if kind is not StageKind.FINAL:
            return self._base_clock()
        try:
            next_game = self._final_status(results).next_game
        except ValueError:  # already decided: whatever follows will not count anyway
            return self._base_clock()
        tiebreak = self.config.stages.final_tiebreak_time_control
        if next_game == str(tiebreak):
            return (tiebreak.limit_seconds, tiebreak.increment)
        return self._base_clock()

    def _cut(self, kind: StageKind, results: Sequence[float]) -> tuple[int, bool, str]:
        """How many games count, whether the match is over, why the rest do not count."""
        games = self.config.tournament.match_games
        if kind is StageKind.SWISS:
            n, over = split_at_end(results, games=games, early_stop=True)
            return n, over, AFTER_END
        if kind is StageKind.CANDIDATES:
            early = self.config.stages.candidates_early_stop
            n, over = split_at_end(results, games=games, early_stop=early)
            return n, over, AFTER_END
        for k in range(len(results) + 1):
            status = self._final_status(results[:k])
            if status.winner is not None:
                return k, True, AFTER_END
            if status.next_game == final_rules.ARMAGEDDON:
                return k, False, ARMAGEDDON
        return len(results), False, AFTER_END

    # --- loading ------------------------------------------------------------------------------

    async def _ctx(self, session: AsyncSession, match_id: int) -> _Ctx | None:
        match = await session.get(Match, match_id)
        if match is None or match.player_b_id is None:
            return None
        round_ = await session.get(Round, match.round_id)
        assert round_ is not None
        stage = await session.get(Stage, round_.stage_id)
        a = await session.get(Player, match.player_a_id)
        b = await session.get(Player, match.player_b_id)
        assert stage is not None and a is not None and b is not None
        games = list(
            (
                await session.scalars(
                    select(Game).where(Game.match_id == match.id).order_by(Game.number)
                )
            ).all()
        )
        return _Ctx(match, round_, stage, a, b, games)

    async def _due_matches(self, now: datetime, *, challenge: bool) -> list[_Ctx]:
        async with self.sessions() as session:
            query = select(Match.id).where(
                Match.player_b_id.is_not(None),
                Match.agreed_time.is_not(None),
                Match.agreed_time <= now,
            )
            if challenge:
                query = query.where(
                    Match.state == MatchState.SCHEDULED, Match.challenge_url.is_(None)
                )
            else:
                query = query.where(Match.state.in_(UNDER_WAY))
            ids = (await session.scalars(query.order_by(Match.agreed_time, Match.id))).all()
            found = [await self._ctx(session, i) for i in ids]
        return [c for c in found if c is not None]

    # --- the periodic job -----------------------------------------------------------------------

    async def run_once(self) -> None:
        """The results job: open any game link still missing, then read the results."""
        await self.create_due_challenges()
        await self.poll()

    def register_sweep_steps(self, runner: DueActionRunner) -> None:
        """Game links open at the agreed minute: the deadline sweep runs every minute."""
        runner.add_step("game_links", self.create_due_challenges)

    async def create_due_challenges(self) -> int:
        """Open a Lichess challenge for every match whose agreed time has come; returns how
        many were created. A Lichess failure leaves the match for the next run."""
        if not self.config.match_day.create_challenge:
            return 0
        async with self._challenge_lock:
            return await self._create_due_challenges()

    async def _create_due_challenges(self) -> int:
        now = self.clock.now()
        created = 0
        for ctx in await self._due_matches(now, challenge=True):
            limit, increment = self._clock_for(ctx.stage.kind, [])
            try:
                challenge = await self.lichess.create_open_challenge(
                    users=(ctx.a.lichess_id, ctx.b.lichess_id),
                    variant=self.config.tournament.variant,
                    clock_limit=limit,
                    clock_increment=increment,
                    rated=True,
                    name=f"{self.config.tournament.short_name} match #{ctx.match.id}",
                )
            except LichessError as exc:
                log.warning("match %s: no game link created: %s", ctx.match.id, exc)
                continue
            if await self._store_challenge(ctx, challenge.url, ctx.match.agreed_time):
                created += 1
        return created

    async def _store_challenge(self, seen: _Ctx, url: str, agreed: datetime | None) -> bool:
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            ctx = await self._ctx(session, seen.match.id)
            if (
                ctx is None
                or ctx.match.state is not MatchState.SCHEDULED
                or ctx.match.challenge_url is not None
                or ctx.match.agreed_time != agreed
            ):
                log.info("match %s changed while its game link was created", seen.match.id)
                return False
            ctx.match.challenge_url = url
            ctx.match.state = MatchState.IN_PROGRESS
            record(
                session,
                at=now,
                actor=Actor.job(),
                action="challenge_created",
                subject_type="match",
                subject_id=ctx.match.id,
                details={"url": url},
            )
            limit, increment = self._clock_for(ctx.stage.kind, [])
            clock = f"{limit / 60:g}+{increment}"
            a, b = ctx.a.lichess_username, ctx.b.lichess_username
            if ctx.thread_id:
                enqueue_channel(
                    session,
                    channel_id=ctx.thread_id,
                    now=now,
                    content=text.challenge_post(a, b, url, clock, self.config.tournament.variant),
                )
            for me, opponent in ((ctx.a, b), (ctx.b, a)):
                message_player(
                    session,
                    me,
                    thread_id=ctx.thread_id,
                    now=now,
                    content=text.challenge_dm(opponent, url, clock),
                )
            return True

    async def poll(self) -> PollReport:
        """Read the games of every match under way: one Lichess request per match, through
        the client's single queue. One match's failure is logged and the poll goes on."""
        now = self.clock.now()
        matches = await self._due_matches(now, challenge=False)
        new_games = errors = 0
        finished: list[int] = []
        for ctx in matches:
            assert ctx.match.agreed_time is not None
            try:
                games = await self.lichess.export_games(
                    ctx.a.lichess_id,
                    vs=ctx.b.lichess_id,
                    since=ctx.match.agreed_time - self._margin,
                    perf_type=self.config.tournament.variant,
                    rated=True,
                )
            except LichessError as exc:
                log.warning("match %s: games not read from Lichess: %s", ctx.match.id, exc)
                errors += 1
                continue
            settled = await self._ingest(ctx.match.id, games, Actor.job())
            if settled is None:
                continue
            new_games += len(settled.stored)
            if settled.finished:
                finished.append(settled.match_id)
        return PollReport(len(matches), new_games, finished, errors)

    # --- storing games and settling the match ----------------------------------------------------

    async def _ingest(
        self, match_id: int, games: Sequence[LichessGame], actor: Actor
    ) -> Settled | None:
        """Store the new games that count, in one transaction; None if nothing changed."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            ctx = await self._ctx(session, match_id)
            if ctx is None or ctx.match.state not in UNDER_WAY or ctx.match.agreed_time is None:
                return None
            ids = [g.id for g in games]
            known = set(
                await session.scalars(select(Game.lichess_id).where(Game.lichess_id.in_(ids)))
            )
            results = [g.result_a for g in ctx.games if g.counted]
            earliest = ctx.match.agreed_time - self._margin
            stored: dict[str, Game] = {}
            for game in sorted(games, key=lambda g: (g.created_at, g.id)):
                if game.id in known or game.id in stored:
                    continue
                verdict = judge(
                    game,
                    player_a=ctx.a.lichess_id,
                    player_b=ctx.b.lichess_id,
                    variant=self.config.tournament.variant,
                    clock=self._clock_for(ctx.stage.kind, results),
                    earliest=earliest,
                )
                if not verdict.counts or verdict.result_a is None:
                    log.info("match %s: game %s ignored: %s", match_id, game.id, verdict.reason)
                    continue
                row = Game(
                    match_id=ctx.match.id,
                    lichess_id=game.id,
                    number=len(ctx.games) + 1,
                    white_player_id=ctx.a.id if game.white_id == ctx.a.lichess_id else ctx.b.id,
                    black_player_id=ctx.b.id if game.white_id == ctx.a.lichess_id else ctx.a.id,
                    status=game.status,
                    winner=game.winner,
                    result_a=verdict.result_a,
                    counted=True,
                    flagged=verdict.flag is not None,
                    created_at=game.created_at,
                    ended_at=game.last_move_at,
                )
                session.add(row)
                ctx.games.append(row)
                stored[game.id] = row
                results.append(verdict.result_a)
                record(
                    session,
                    at=now,
                    actor=actor,
                    action="game_recorded",
                    subject_type="match",
                    subject_id=ctx.match.id,
                    details={"game": game.id, "status": game.status, "result_a": row.result_a},
                )
                if verdict.flag:
                    notify_td(
                        session,
                        self.config,
                        now=now,
                        content=text.flagged_note(
                            ctx.match.id,
                            ctx.a.lichess_username,
                            ctx.b.lichess_username,
                            game.id,
                            game.status,
                        ),
                    )
            if not stored:
                return None
            await session.flush()
            settled = await self._settle(session, ctx, actor, now)
            return Settled(
                settled.match_id, settled.score_a, settled.score_b, settled.finished, stored
            )

    async def _settle(
        self, session: AsyncSession, ctx: _Ctx, actor: Actor, now: datetime
    ) -> Settled:
        """Recount the match from its stored games: which count, the score, the end."""
        match = ctx.match
        eligible = [g for g in ctx.games if not _td_voided(g)]
        n, over, rest_reason = self._cut(ctx.stage.kind, [g.result_a for g in eligible])
        beyond: list[str] = []
        for index, game in enumerate(eligible):
            if index < n:
                game.counted, game.voided_reason = True, None
            else:
                if game.voided_reason != rest_reason:
                    beyond.append(game.lichess_id)
                game.counted, game.voided_reason = False, rest_reason
        counted = [g for g in ctx.games if g.counted]
        match.score_a = sum(g.result_a for g in counted)
        match.score_b = sum(1.0 - g.result_a for g in counted)
        a, b = ctx.a.lichess_username, ctx.b.lichess_username
        if beyond:
            note = (
                text.after_end_note(match.id, a, b, beyond)
                if rest_reason == AFTER_END
                else text.finished_note_for_final(match.id)
            )
            notify_td(session, self.config, now=now, content=note)
        if over and match.state in UNDER_WAY:
            await self._finish(session, ctx, counted, actor, now)
        elif over and match.state is MatchState.FINISHED:
            match.points_a, match.points_b = match_points(match.score_a, match.score_b)
        elif not over and match.state is MatchState.FINISHED:
            self._reopen(session, ctx, actor, now)
        elif counted and match.state is MatchState.SCHEDULED:
            match.state = MatchState.IN_PROGRESS
        self._scoreboard(session, ctx, now, await self._has_scoreboard(session, match.id))
        await queue_round_post_update(session, match.round_id, now=now)
        return Settled(match.id, match.score_a, match.score_b, match.state is MatchState.FINISHED)

    async def _finish(
        self, session: AsyncSession, ctx: _Ctx, counted: list[Game], actor: Actor, now: datetime
    ) -> None:
        match = ctx.match
        match.points_a, match.points_b = match_points(match.score_a, match.score_b)
        match.state, match.finished_at = MatchState.FINISHED, now
        record(
            session,
            at=now,
            actor=actor,
            action="match_finished",
            subject_type="match",
            subject_id=match.id,
            details={
                "score": [match.score_a, match.score_b],
                "games": [g.lichess_id for g in counted],
            },
        )
        announce = self.config.discord.announcement_channel_id
        if announce:
            enqueue_channel(
                session,
                channel_id=announce,
                now=now,
                content=text.result_announcement(
                    ctx.stage.kind.value.capitalize(),
                    ctx.a.lichess_username,
                    ctx.b.lichess_username,
                    match.score_a,
                    match.score_b,
                    [g.lichess_id for g in counted],
                ),
            )
        await session.flush()
        if ctx.stage.kind is StageKind.SWISS:
            await self.rounds.after_result(session, match.round_id, actor, now)

    def _reopen(self, session: AsyncSession, ctx: _Ctx, actor: Actor, now: datetime) -> None:
        """A voided game un-ends the match: it goes on, and the poll resumes."""
        if ctx.round_.state is RoundState.FINISHED:
            raise InvalidInput(
                f"Match #{ctx.match.id} would no longer be over, but its round is closed; "
                "record its result with /td set-score instead."
            )
        match = ctx.match
        match.state, match.finished_at = MatchState.IN_PROGRESS, None
        match.points_a = match.points_b = None
        record(
            session,
            at=now,
            actor=actor,
            action="match_reopened",
            subject_type="match",
            subject_id=match.id,
            details={"score": [match.score_a, match.score_b]},
        )

    async def _has_scoreboard(self, session: AsyncSession, match_id: int) -> bool:
        key = f"scoreboard:{match_id}"
        return (
            await session.scalar(select(OutboxMessage.id).where(OutboxMessage.dedupe_key == key))
        ) is not None

    def _scoreboard(self, session: AsyncSession, ctx: _Ctx, now: datetime, exists: bool) -> None:
        if not ctx.thread_id:
            return
        names = {ctx.a.id: ctx.a.lichess_username, ctx.b.id: ctx.b.lichess_username}
        lines = [
            text.GameLine(
                g.number,
                g.lichess_id,
                names[g.white_player_id],
                names[g.black_player_id],
                g.result_a,
                g.counted,
                g.voided_reason,
                g.flagged,
            )
            for g in ctx.games
        ]
        content = text.scoreboard(
            ctx.a.lichess_username,
            ctx.b.lichess_username,
            lines,
            ctx.match.score_a,
            ctx.match.score_b,
            total_games=self.config.tournament.match_games,
            finished=ctx.match.state is MatchState.FINISHED,
        )
        key = f"scoreboard:{ctx.match.id}"
        if exists:
            enqueue_edit_of(session, key=key, channel_id=ctx.thread_id, now=now, content=content)
        else:
            enqueue_channel(session, channel_id=ctx.thread_id, now=now, content=content, key=key)

    # --- the fallback: /game url: ---------------------------------------------------------------

    async def submit_game(self, *, discord_id: int, url: str) -> SubmitResult:
        """A player submits a game the poll missed; it is validated exactly like polled ones."""
        game_id = parse_game_id(url)
        if game_id is None:
            raise InvalidInput(text.bad_link())
        now = self.clock.now()
        async with self.sessions() as session:
            player = await session.scalar(select(Player).where(Player.discord_id == discord_id))
            if player is None:
                raise NotAllowed("Only players of the championship can submit games.")
            existing = await session.scalar(select(Game).where(Game.lichess_id == game_id))
            match = await self._player_match(session, player, now)
            if existing is not None:
                if match is None or existing.match_id != match.id:
                    raise InvalidInput(
                        f"Game {text.game_link(game_id)} is already recorded for another match."
                    )
                return SubmitResult(
                    match.id, game_id, existing.number, existing.counted, True,
                    match.score_a, match.score_b, match.state is MatchState.FINISHED,
                )  # fmt: skip
            if match is None:
                raise WrongStage(text.no_match_under_way(await self._next_time(session, player)))
            ctx = await self._ctx(session, match.id)
        assert ctx is not None and ctx.match.agreed_time is not None
        try:
            game = await self.lichess.get_game(game_id)
        except LichessNotFound:
            raise InvalidInput(f"Lichess has no game {text.game_link(game_id)}.") from None
        except LichessError as exc:
            raise ExternalServiceError(
                "Lichess could not be reached; nothing was changed. Try again in a minute."
            ) from exc
        verdict = judge(
            game,
            player_a=ctx.a.lichess_id,
            player_b=ctx.b.lichess_id,
            variant=self.config.tournament.variant,
            clock=self._clock_for(ctx.stage.kind, [g.result_a for g in ctx.games if g.counted]),
            earliest=ctx.match.agreed_time - self._margin,
        )
        if not verdict.counts:
            raise InvalidInput(text.refused_reply(game_id, verdict.reason or "unknown"))
        settled = await self._ingest(ctx.match.id, [game], Actor.player(discord_id))
        async with self.sessions() as session:
            row = await session.scalar(select(Game).where(Game.lichess_id == game_id))
            match_now = await session.get(Match, ctx.match.id)
        if row is None or match_now is None:
            raise WrongStage("Your match changed meanwhile; check /match and try again.")
        return SubmitResult(
            match_now.id,
            game_id,
            row.number,
            row.counted,
            settled is None,
            match_now.score_a,
            match_now.score_b,
            match_now.state is MatchState.FINISHED,
        )

    async def _player_match(
        self, session: AsyncSession, player: Player, now: datetime
    ) -> Match | None:
        """The player's match under way (agreed time passed, no result), if any."""
        return await session.scalar(
            select(Match)
            .where(
                or_(Match.player_a_id == player.id, Match.player_b_id == player.id),
                Match.player_b_id.is_not(None),
                Match.state.in_(UNDER_WAY),
                Match.agreed_time.is_not(None),
                Match.agreed_time <= now,
            )
            .order_by(Match.agreed_time.desc())
            .limit(1)
        )

    async def _next_time(self, session: AsyncSession, player: Player) -> datetime | None:
        return await session.scalar(
            select(Match.agreed_time)
            .where(
                or_(Match.player_a_id == player.id, Match.player_b_id == player.id),
                Match.state.in_(UNDER_WAY),
            )
            .order_by(Match.agreed_time)
            .limit(1)
        )

    # --- the TD: void a game ---------------------------------------------------------------------

    async def void_game(self, *, td_id: int, game_id: str, reason: str) -> VoidResult:
        """The TD takes a game out of its match; the score (and the end) are recounted."""
        reason = reason.strip()
        if not reason:
            raise InvalidInput("Give a reason: it goes into the audit log.")
        lichess_id = parse_game_id(game_id) or game_id.strip()
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            game = await session.scalar(select(Game).where(Game.lichess_id == lichess_id))
            if game is None:
                raise InvalidInput(f"No recorded game {lichess_id}.")
            if _td_voided(game):
                raise InvalidInput(f"Game {lichess_id} is already void: {game.voided_reason}")
            ctx = await self._ctx(session, game.match_id)
            assert ctx is not None
            if ctx.match.state in (MatchState.FORFEITED, MatchState.BYE):
                raise InvalidInput(
                    f"Match #{ctx.match.id} was decided by forfeit; use /td set-score."
                )
            was_finished = ctx.match.state is MatchState.FINISHED
            target = next(g for g in ctx.games if g.id == game.id)
            target.counted, target.voided_reason = False, TD_VOID + reason
            record_td_decision(
                session,
                at=now,
                td_id=td_id,
                kind="void_game",
                subject_type="match",
                subject_id=ctx.match.id,
                decision=lichess_id,
                reason=reason,
                action="game_voided",
                details={"game": lichess_id, "reason": reason},
            )
            settled = await self._settle(session, ctx, Actor.td(td_id), now)
            if ctx.thread_id:
                enqueue_channel(
                    session,
                    channel_id=ctx.thread_id,
                    now=now,
                    content=text.void_thread_note(lichess_id, reason),
                )
            return VoidResult(
                ctx.match.id,
                lichess_id,
                settled.score_a,
                settled.score_b,
                settled.finished,
                was_finished and not settled.finished,
            )
