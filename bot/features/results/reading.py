"""Match day, read from Lichess: the rules of each stage applied to the games of a match,
by `Scorekeeper`, which the results service and the Armageddon's bids are given.

Each match's update is one short transaction (Lichess calls happen outside it), so a
failure for one match loses nothing and the next poll retries. A match that ends publishes
`MatchFinished`; the rounds feature closes the round.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor, record
from bot.clock import Clock
from bot.config import Config
from bot.errors import InvalidInput
from bot.events import EventBus, MatchFinished
from bot.features.matches.round_post import Board, match_line, queue_round_post_update
from bot.features.matches.text import scoreboard
from bot.features.matches.types import PLAYED_ON, GameLine
from bot.features.results import text as wording
from bot.features.results.armageddon_clocks import checked_result
from bot.features.results.match_posts import MatchStagePosts
from bot.features.results.records import MatchRecords
from bot.features.results.stage_rules import (
    AFTER_END,
    UNDER_WAY,
    MatchRecord,
    StageRules,
    td_voided,
)
from bot.features.results.types import Settled, start_key
from bot.lichess.models import LichessGame
from bot.message_text import MESSAGE_LIMIT, fit
from bot.outbox import enqueue_channel, enqueue_edit_of
from bot.rules import final as final_rules
from bot.rules import final_schemes
from bot.rules.attribution import judge
from bot.rules.match import (
    GameStanding,
    Recount,
    after_recount,
    game_standings,
    match_points,
    match_score,
)
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import (
    Game,
    MatchState,
    OutboxMessage,
    RoundState,
)

log = logging.getLogger(__name__)


class Scorekeeper:
    """Storing the games that count and settling the match by the rules of its stage: the
    score, the end (`MatchFinished`), the scoreboard; a knock-out's or final match's posts
    game by game are `MatchStagePosts`'."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        events: EventBus,
        rules: StageRules,
        records: MatchRecords,
    ) -> None:
        self.sessions = sessions
        self.config = config
        self.clock = clock
        self.events = events
        self.rules = rules
        self.records = records
        self.match_posts = MatchStagePosts(config, rules)

    # --- storing games and settling the match ----------------------------------------------------

    async def ingest(
        self, match_id: int, games: Sequence[LichessGame], actor: Actor
    ) -> Settled | None:
        """Store the new games that count, in one transaction; None if nothing changed."""
        now = self.clock.now()
        if not games:
            return None
        async with transaction(self.sessions) as session:
            ids = [g.id for g in games]
            known = set(
                await session.scalars(select(Game.lichess_id).where(Game.lichess_id.in_(ids)))
            )
            if known.issuperset(ids):
                return None  # the usual poll of a match under way: nothing new to load
            ctx = await self.records.one(session, match_id)
            if ctx is None or ctx.match.agreed_time is None:
                return None
            if ctx.match.state not in UNDER_WAY and not self.rules.plays_on(ctx):
                return None
            results = [g.result_a for g in ctx.games if g.counted]
            earliest = self.rules.earliest(ctx)
            stored: dict[str, Game] = {}
            for game in sorted(games, key=lambda g: (g.created_at, g.id)):
                if game.id in known or game.id in stored:
                    continue
                wrong_side = self.rules.armageddon_refusal(ctx, results, game)
                if wrong_side:
                    log.info("match %s: game %s ignored: %s", match_id, game.id, wrong_side)
                    continue
                verdict = judge(
                    game,
                    player_a=ctx.a.lichess_id,
                    player_b=ctx.b.lichess_id,
                    variant=self.config.tournament.variant,
                    clock=self.rules.clock_for(ctx.stage, results),
                    earliest=earliest,
                )
                if not verdict.counts or verdict.result_a is None:
                    log.info("match %s: game %s ignored: %s", match_id, game.id, verdict.reason)
                    continue
                result_a = verdict.result_a
                if self.rules.is_armageddon_next(ctx, results):  # White within the bid?
                    result_a = checked_result(
                        session, self.config, ctx, game, result_a,
                        black_s=self.rules.black_seconds(ctx.stage),
                        name=self.rules.match_name(ctx), actor=actor, now=now,
                    )  # fmt: skip
                row = Game(
                    match_id=ctx.match.id,
                    lichess_id=game.id,
                    number=len(ctx.games) + 1,
                    white_player_id=ctx.a.id if game.white_id == ctx.a.lichess_id else ctx.b.id,
                    black_player_id=ctx.b.id if game.white_id == ctx.a.lichess_id else ctx.a.id,
                    status=game.status,
                    winner=game.winner,
                    result_a=result_a,
                    counted=True,
                    flagged=verdict.flag is not None,
                    created_at=game.created_at,
                    ended_at=game.last_move_at,
                )
                session.add(row)
                ctx.games.append(row)
                stored[game.id] = row
                results.append(result_a)
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
                        content=wording.flagged_note(self.rules.label(ctx), game.id, game.status),
                    )
            if not stored:
                return None
            await session.flush()
            settled = await self.settle(session, ctx, actor, now)
            if self.rules.is_match_stage(ctx.stage):
                await self.match_posts.after_games(session, ctx, list(stored.values()), now)
            return Settled(
                settled.match_id, settled.score_a, settled.score_b, settled.finished, stored
            )

    async def settle(
        self, session: AsyncSession, ctx: MatchRecord, actor: Actor, now: datetime
    ) -> Settled:
        """Recount the match from its stored games: which count, the score, the end."""
        match = ctx.match
        shown = self._post_line(ctx)
        eligible = [g for g in ctx.games if not td_voided(g)]
        n, over, rest_reason = self.rules.cut(
            ctx.stage, [g.result_a for g in eligible], ctx.armageddon_white
        )
        beyond: list[str] = []
        full = self.rules.full_length(ctx.stage) if rest_reason == AFTER_END else None
        standings = game_standings(len(eligible), counted=n, full_length=full)  # rule VI.G
        for game, standing in zip(eligible, standings, strict=True):
            if standing is GameStanding.COUNTS:
                game.counted, game.voided_reason = True, None
            elif standing is GameStanding.PLAYED_ON:  # shown, the result stands
                game.counted, game.voided_reason = False, PLAYED_ON
            else:
                if game.voided_reason != rest_reason:
                    beyond.append(game.lichess_id)
                game.counted, game.voided_reason = False, rest_reason
        counted = [g for g in ctx.games if g.counted]
        match.score_a, match.score_b = match_score([g.result_a for g in counted])
        if beyond:
            note = (
                wording.after_end_note(self.rules.label(ctx), beyond)
                if rest_reason == AFTER_END
                else wording.finished_note_for_final(self.rules.label(ctx))
            )
            notify_td(session, self.config, now=now, content=note)
        recount = after_recount(  # rule VI.G, decided in bot/rules/match.py
            over=over,
            finished=match.state is MatchState.FINISHED,
            under_way=match.state in UNDER_WAY,
            any_counted=bool(counted),
        )
        if recount is Recount.FINISH:
            await self._finish(session, ctx, counted, actor, now)
        elif recount is Recount.REPOINT:
            match.points_a, match.points_b = match_points(match.score_a, match.score_b)
        elif recount is Recount.REOPEN:
            self._reopen(session, ctx, actor, now)
        elif recount is Recount.START and match.state is MatchState.SCHEDULED:
            match.state = MatchState.IN_PROGRESS
        self._scoreboard(session, ctx, now, await self._scoreboard_home(session, ctx))
        if self._post_line(ctx) != shown:  # the pairings post shows a result, not each game
            await queue_round_post_update(session, match.round_id, now=now, board=match.board)
        return Settled(match.id, match.score_a, match.score_b, match.state is MatchState.FINISHED)

    @staticmethod
    def _post_line(ctx: MatchRecord) -> str:
        """The match's line in the round's pairings post (seeds left out: they never change)."""
        names = {ctx.a.id: ctx.a.lichess_username, ctx.b.id: ctx.b.lichess_username}
        return match_line(Board.of(ctx.match), names, {})

    async def _finish(
        self,
        session: AsyncSession,
        ctx: MatchRecord,
        counted: list[Game],
        actor: Actor,
        now: datetime,
    ) -> None:
        match = ctx.match
        match.points_a, match.points_b = match_points(match.score_a, match.score_b)
        # the winner by its match format (the Armageddon too)
        if self.rules.is_match_stage(ctx.stage):
            results = [g.result_a for g in counted]
            status = self.rules.final_status(ctx.stage, results, ctx.armageddon_white)
            assert status.winner is not None  # the match is over
            match.points_a, match.points_b = final_rules.final_match_points(status.winner)
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
        await session.flush()
        finished = MatchFinished(actor, match_id=match.id, round_id=match.round_id)
        await self.events.publish(session, finished, now)

    def _reopen(self, session: AsyncSession, ctx: MatchRecord, actor: Actor, now: datetime) -> None:
        """A voided game un-ends the match: it goes on, and the poll resumes."""
        if ctx.round_.state is RoundState.FINISHED:
            raise InvalidInput(wording.reopen_in_closed_round(self.rules.label(ctx)))
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

    async def _scoreboard_home(
        self, session: AsyncSession, ctx: MatchRecord
    ) -> tuple[str, str | None]:
        """Where the scoreboard is shown: (the outbox key, the text above it, None when no
        message has the key yet). Its own post once it has one and in the Final (a session
        per link); otherwise the match's "starts now" post, edited: one message per match."""
        key = f"scoreboard:{ctx.match.id}"
        own = await self._queued(session, key)
        if own is not None or self.rules.is_final_match(ctx.stage) or not ctx.match.challenge_url:
            return key, "" if own is not None else None
        start = start_key(ctx.match.id, ctx.match.challenge_url)
        above = await self._queued(session, start)
        return (start, above + "\n\n") if above is not None else (key, None)

    @staticmethod
    async def _queued(session: AsyncSession, key: str) -> str | None:
        """The text of the message queued with `key`, or None."""
        return await session.scalar(
            select(OutboxMessage.content).where(OutboxMessage.dedupe_key == key)
        )

    def _scoreboard(
        self, session: AsyncSession, ctx: MatchRecord, now: datetime, home: tuple[str, str | None]
    ) -> None:
        if not ctx.thread_id:
            return
        names = {ctx.a.id: ctx.a.lichess_username, ctx.b.id: ctx.b.lichess_username}
        lines = [
            GameLine(
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
        blocks = None
        if self.rules.is_match_stage(ctx.stage):  # grouped by block, each with its score
            played = sum(1 for g in lines if g.counted)
            blocks = final_schemes.blocks(self.rules.match_format(ctx.stage), played)
        content = scoreboard(
            ctx.a.lichess_username,
            ctx.b.lichess_username,
            lines,
            ctx.match.score_a,
            ctx.match.score_b,
            finished=ctx.match.state is MatchState.FINISHED,
            blocks=blocks,
        )
        key, above = home
        if above and len(above + content) > MESSAGE_LIMIT:  # the start post keeps its link
            start = above.rstrip("\n")
            enqueue_edit_of(session, key=key, channel_id=ctx.thread_id, now=now, content=start)
            key, above = f"scoreboard:{ctx.match.id}", None  # and the games get their own
        if above is not None:
            content = fit(above + content)
            enqueue_edit_of(session, key=key, channel_id=ctx.thread_id, now=now, content=content)
        else:
            enqueue_channel(session, channel_id=ctx.thread_id, now=now, content=content, key=key)
