"""Match day, read from Lichess: the game link at the agreed time, then the results.

Players never type scores. At the agreed time the bot opens a Lichess challenge only the
two players can join; a periodic poll then reads the games between them (one request per
match under way, none for idle matches), keeps those that count (`bot.rules.attribution`),
keeps the live scoreboard in the match thread and ends the match when the rules engine
says it is over. `/game` is the fallback for a game the poll missed; the TD can void one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor, record, record_td_decision
from bot.clock import Clock
from bot.config import Config
from bot.due import SweepStep
from bot.errors import ExternalServiceError, InvalidInput, NotAllowed, WrongStage
from bot.events import EventBus, MatchAgreed
from bot.features.matches.context import LINK_WHITE_KEY, mention, post_for_match
from bot.features.results import text as wording
from bot.features.results.live import ResultStream
from bot.features.results.reading import Scorekeeper
from bot.features.results.records import MatchRecords
from bot.features.results.stage_rules import (
    TD_VOID,
    UNDER_WAY,
    MatchRecord,
    StageRules,
    td_voided,
)
from bot.features.results.types import PollReport, SubmitResult, VoidResult, start_key
from bot.lichess.client import LichessClient
from bot.lichess.errors import LichessAuthError, LichessError, LichessNotFound
from bot.lichess.models import LichessGame
from bot.lichess_failures import tell_td_of_auth
from bot.outbox import enqueue_channel
from bot.rules.attribution import judge, parse_game_id
from bot.service import Service, Subscription
from bot.td_alerts import notify_td_once, once
from db.engine import transaction
from db.models import (
    Game,
    Match,
    MatchState,
    Player,
    Setting,
)

log = logging.getLogger(__name__)


class ResultsService(Service):
    """The game link at the agreed time, the results poll, /game and the TD's void-game."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        rules: StageRules,
        records: MatchRecords,
        scorekeeper: Scorekeeper,
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        super().__init__(sessions, config, clock, lichess=lichess, events=events)
        self.rules = rules
        self.records = records
        self.scorekeeper = scorekeeper
        # The sweep and the results job may both open links: one at a time, so a match
        # never gets two Lichess challenges.
        self._challenge_lock = asyncio.Lock()
        # Lichess refused the token: opening links (403 or 401), reading games (401). Only a
        # new token and a restart help, so this process stops trying; the TD has the fix.
        self._link_refused: LichessAuthError | None = None
        self._read_refused: LichessAuthError | None = None
        self._closed_accounts: set[str] = set()  # Lichess refuses their games export
        #: the game stream (`live.ResultStream`), when the bot runs one: the poll then reads
        #: only the matches it does not cover, and the others now and then
        self.stream: ResultStream | None = None
        self._last_read: dict[int, datetime] = {}  # match id: when the poll last read it

    @staticmethod
    def _counted(ctx: MatchRecord) -> list[float]:
        return [g.result_a for g in ctx.games if g.counted]

    def subscriptions(self) -> list[Subscription]:
        """A match agreed (or moved) may start soon: the game stream watches it once the
        agreement is committed."""
        return [(MatchAgreed, self._agreed)]

    async def _agreed(self, session: AsyncSession, _event: MatchAgreed, _now: datetime) -> None:
        if self.stream is not None:
            self.stream.refresh_after(session)

    def sweep_steps(self) -> dict[str, SweepStep]:
        """Game links open at the agreed minute: the deadline sweep runs every minute."""
        return {"game_links": self.create_due_challenges, "game_stream": self._watch}

    async def _watch(self) -> None:
        """Every minute: the game stream follows the matches due soon."""
        if self.stream is not None:
            await self.stream.refresh()

    # --- the periodic job -----------------------------------------------------------------------

    async def run_once(self) -> None:
        """The results job: open any game link still missing, watch the players who play
        soon on the game stream, then read the results the stream does not bring."""
        await self.create_due_challenges()
        if self.stream is not None:
            await self.stream.refresh()
        await self.poll()

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
        for ctx in await self.records.due(now, challenge=True):
            results = self._counted(ctx)
            if self.rules.awaiting_bids(ctx, results):
                continue  # the Armageddon's link comes once both bids are in
            if self._link_refused is not None:
                await self._link_unavailable(ctx, self._link_refused)
                continue
            if await self._held(ctx):
                continue  # Lichess made another challenge than asked: the TD has it
            white, black = self.rules.link_colours(ctx, results)
            limit, increment = self.rules.clock_for(ctx.stage, results)
            users = (white.lichess_id, black.lichess_id)
            variant = self.config.tournament.variant
            try:
                challenge = await self.lichess.create_open_challenge(
                    users=users,
                    variant=variant,
                    clock_limit=limit,
                    clock_increment=increment,
                    rated=True,
                    name=wording.challenge_name(
                        self.config.tournament.short_name,
                        self.rules.place(ctx),
                        armageddon=ctx.armageddon_white is not None,
                    ),
                )
            except LichessAuthError as exc:
                log.error("match %s: Lichess refused the token: %s", ctx.match.id, exc)
                self._link_refused = exc  # no new attempt until a restart with a new token
                await self._link_unavailable(ctx, exc)
                continue
            except LichessError as exc:
                log.warning("match %s: no game link created: %s", ctx.match.id, exc)
                continue
            wrong = challenge.mismatch(
                users=users, variant=variant, clock=(limit, increment), rated=True
            )
            if wrong:
                await self._hold(ctx, challenge.url, wrong)
                continue
            if await self._store_challenge(ctx, challenge.url, ctx.match.agreed_time, white):
                created += 1
        return created

    def _hold_key(self, ctx: MatchRecord) -> str:
        assert ctx.match.agreed_time is not None
        return f"challenge:{ctx.match.id}:{int(ctx.match.agreed_time.timestamp())}"

    async def _held(self, ctx: MatchRecord) -> bool:
        async with self.sessions() as session:
            marker = await session.get(Setting, "once:" + self._hold_key(ctx))
        return marker is not None

    async def _hold(self, ctx: MatchRecord, url: str, wrong: str) -> None:
        """Lichess answered with another challenge than the one asked for: not posted; the
        TD hears once and the match gets no new attempt at this agreed time."""
        log.error("match %s: Lichess made another challenge than asked: %s", ctx.match.id, wrong)
        async with transaction(self.sessions) as session:
            await notify_td_once(
                session,
                self.config,
                key=self._hold_key(ctx),
                now=self.clock.now(),
                content=wording.challenge_mismatch_td(self.rules.label(ctx), url, wrong),
            )

    async def _link_unavailable(self, ctx: MatchRecord, exc: LichessAuthError) -> None:
        """Lichess refused the token: the TD hears once (with the fix), the players once per
        agreed time, with the truth and what to do meanwhile."""
        now = self.clock.now()
        results = self._counted(ctx)
        white, _black = self.rules.link_colours(ctx, results)
        limit, increment = self.rules.clock_for(ctx.stage, results)
        async with transaction(self.sessions) as session:
            await tell_td_of_auth(session, self.config, exc, now, self.lichess.token_key)
            if not await once(session, "no-link:" + self._hold_key(ctx), now):
                return
            text = wording.link_refused(
                mention(ctx.a),
                mention(ctx.b),
                white.lichess_username,
                f"{limit / 60:g}+{increment}",
                self.config.tournament.variant,
            )
            post_for_match(session, [ctx.a, ctx.b], thread_id=ctx.thread_id, now=now, content=text)

    async def _store_challenge(
        self, seen: MatchRecord, url: str, agreed: datetime | None, white: Player
    ) -> bool:
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            ctx = await self.records.one(session, seen.match.id)
            if (
                ctx is None
                or ctx.match.state not in UNDER_WAY
                or ctx.match.challenge_url is not None
                or ctx.match.agreed_time != agreed
            ):
                log.info("match %s changed while its game link was created", seen.match.id)
                return False
            ctx.match.challenge_url = url
            ctx.match.state = MatchState.IN_PROGRESS
            key = LINK_WHITE_KEY + str(ctx.match.id)
            row = await session.get(Setting, key)
            if row is None:
                session.add(Setting(key=key, value=white.lichess_username, updated_at=now))
            else:
                row.value, row.updated_at = white.lichess_username, now
            record(
                session,
                at=now,
                actor=Actor.job(),
                action="challenge_created",
                subject_type="match",
                subject_id=ctx.match.id,
                details={"url": url, "white": white.lichess_username},
            )
            limit, increment = self.rules.clock_for(ctx.stage, self._counted(ctx))
            clock = f"{limit / 60:g}+{increment}"
            post_for_match(
                session,
                [ctx.a, ctx.b],
                thread_id=ctx.thread_id,
                now=now,
                content=wording.challenge_post(
                    mention(ctx.a),
                    mention(ctx.b),
                    url,
                    clock,
                    self.config.tournament.variant,
                    white.lichess_username,
                    armageddon=ctx.armageddon_white is not None,
                ),
                key=start_key(ctx.match.id, url),
            )
            return True

    async def poll(self) -> PollReport:
        """Read the games of every match under way that the game stream does not cover (and
        of a covered one every `jobs.results_stream_check_minutes`, a safety net)."""
        now = self.clock.now()
        check = timedelta(minutes=self.config.jobs.results_stream_check_minutes)
        matches = []
        for ctx in await self.records.due(now, challenge=False):
            stream, match_id = self.stream, ctx.match.id
            if stream is not None and stream.covers(ctx) and not stream.take_stale(match_id):
                last = self._last_read.get(match_id)
                if last is not None and now - last < check:
                    continue
            matches.append(ctx)
        return await self.read(matches)

    async def read(self, matches: Sequence[MatchRecord]) -> PollReport:
        """Read these matches' games from Lichess: one request per match, through the
        client's single queue. One match's failure is logged and the rest go on."""
        now = self.clock.now()
        new_games = errors = 0
        finished: list[int] = []
        for ctx in matches:
            assert ctx.match.agreed_time is not None
            if self._read_refused is not None:
                errors += 1  # Lichess refuses the token on every call: the TD has the fix
                continue
            try:
                games = await self._read_match(ctx)
            except LichessAuthError as exc:
                log.error("Lichess refused the token; the results poll stops: %s", exc)
                if exc.status_code == 401:
                    self._read_refused = exc
                async with transaction(self.sessions) as session:
                    await tell_td_of_auth(session, self.config, exc, now, self.lichess.token_key)
                errors += 1
                continue
            except LichessError as exc:
                log.warning("match %s: games not read from Lichess: %s", ctx.match.id, exc)
                errors += 1
                continue
            self._last_read[ctx.match.id] = now
            settled = await self.scorekeeper.ingest(ctx.match.id, games, Actor.job())
            if settled is None:
                continue
            new_games += len(settled.stored)
            if settled.finished:
                finished.append(settled.match_id)
        return PollReport(len(matches), new_games, finished, errors)

    async def _read_match(self, ctx: MatchRecord) -> list[LichessGame]:
        """The games between the two since the match's window opened, from A's export; a
        closed account's export is refused, so then from B's (the TD hears once).

        `rated` and `perfType` make Lichess answer from its search index: `since` is on the
        last move, so every game created in the window is in it (a game ends after it
        starts), and `judge` checks each game's own creation time and status."""
        since = self.rules.earliest(ctx)
        variant = self.config.tournament.variant
        clocks = self.rules.is_match_stage(ctx.stage)  # an Armageddon's bid is read from them
        if ctx.a.lichess_id not in self._closed_accounts:
            try:
                return await self.lichess.export_games(
                    ctx.a.lichess_id, vs=ctx.b.lichess_id, since=since, perf_type=variant,
                    rated=True, clocks=clocks,
                )  # fmt: skip
            except LichessNotFound:  # A's account is closed (Lichess refuses its export)
                self._closed_accounts.add(ctx.a.lichess_id)  # read B's from now on
        games = await self.lichess.export_games(
            ctx.b.lichess_id, vs=ctx.a.lichess_id, since=since, perf_type=variant, rated=True,
            clocks=clocks,
        )  # fmt: skip
        async with transaction(self.sessions) as session:
            await notify_td_once(
                session,
                self.config,
                key=f"closed:{ctx.match.id}:{ctx.a.id}",
                now=self.clock.now(),
                content=wording.closed_account_td(
                    self.rules.place(ctx), ctx.a.lichess_username, ctx.b.lichess_username
                ),
            )
        return games

    # --- the fallback: /game url: ---------------------------------------------------------------

    async def submit_game(self, *, discord_id: int, url: str) -> SubmitResult:
        """A player submits a game the poll missed; it is validated exactly like polled ones."""
        game_id = parse_game_id(url)
        if game_id is None:
            raise InvalidInput(wording.bad_link())
        now = self.clock.now()
        async with self.sessions() as session:
            player = await session.scalar(select(Player).where(Player.discord_id == discord_id))
            if player is None:
                raise NotAllowed(wording.not_a_player())
            existing = await session.scalar(select(Game).where(Game.lichess_id == game_id))
            match = await self._player_match(session, player, now)
            if existing is not None:
                if match is None or existing.match_id != match.id:
                    raise InvalidInput(wording.recorded_for_another_match(game_id))
                return SubmitResult(
                    match.id, game_id, existing.number, existing.counted, True,
                    match.score_a, match.score_b, match.state is MatchState.FINISHED,
                )  # fmt: skip
            if match is None:
                raise WrongStage(wording.no_match_under_way(await self._next_time(session, player)))
            ctx = await self.records.one(session, match.id)
        assert ctx is not None and ctx.match.agreed_time is not None
        try:
            game = await self.lichess.get_game(game_id)
        except LichessNotFound:
            raise InvalidInput(wording.no_such_lichess_game(game_id)) from None
        except LichessError as exc:
            raise ExternalServiceError(await self.lichess_failed(exc)) from exc
        verdict = judge(
            game,
            player_a=ctx.a.lichess_id,
            player_b=ctx.b.lichess_id,
            variant=self.config.tournament.variant,
            clock=self.rules.clock_for(ctx.stage, [g.result_a for g in ctx.games if g.counted]),
            earliest=self.rules.earliest(ctx),
        )
        if not verdict.counts:
            raise InvalidInput(wording.refused_reply(game_id, verdict.reason or "unknown"))
        settled = await self.scorekeeper.ingest(ctx.match.id, [game], Actor.player(discord_id))
        async with self.sessions() as session:
            row = await session.scalar(select(Game).where(Game.lichess_id == game_id))
            match_now = await session.get(Match, ctx.match.id)
        if row is None or match_now is None:
            raise WrongStage(wording.match_changed_meanwhile())
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
            raise InvalidInput(wording.void_reason_missing())
        lichess_id = parse_game_id(game_id) or game_id.strip()
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            game = await session.scalar(select(Game).where(Game.lichess_id == lichess_id))
            if game is None:
                raise InvalidInput(wording.no_recorded_game(lichess_id))
            if td_voided(game):
                raise InvalidInput(wording.already_void(lichess_id, game.voided_reason or ""))
            ctx = await self.records.one(session, game.match_id)
            assert ctx is not None
            if ctx.match.state in (MatchState.FORFEITED, MatchState.BYE):
                raise InvalidInput(wording.void_in_forfeit(self.rules.label(ctx)))
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
            settled = await self.scorekeeper.settle(session, ctx, Actor.td(td_id), now)
            if ctx.thread_id:
                enqueue_channel(
                    session,
                    channel_id=ctx.thread_id,
                    now=now,
                    content=wording.void_thread_note(lichess_id, reason),
                )
            return VoidResult(
                ctx.match.id,
                lichess_id,
                settled.score_a,
                settled.score_b,
                settled.finished,
                was_finished and not settled.finished,
                self.rules.label(ctx),
            )
