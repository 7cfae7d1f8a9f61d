"""Results within seconds: Lichess's game stream for the players with a match under way or
due soon (docs/ARCHITECTURE.md, "Results: the stream and the poll").

The players are watched in groups of pairs (a game is sent only when **both** its players
are on one stream), at most 300 ids a stream (`bot.lichess.game_stream.STREAM_IDS`) and
`MAX_STREAMS` streams; a pair that fits nowhere is left to the poll. When the watched set
changes, only the streams whose ids change are reopened, the new connection opened before
the old one closes, so no event falls between them.

- A start event: the match's game in progress is remembered (`matches.live_games`), so
  `/match` shows it and the no-show check knows the players met.
- A finish event: the game is stored exactly as the poll stores it (`Scorekeeper.ingest`
  judges variant, rated, clock, the two players, created after the match time), from the
  event itself: no request. Its end time is the event's arrival (the stream sends no last
  move). In a knock-out or final match the game is read first (`GET /game/export/{id}`, one
  request in the queue) for its clock record, which the Armageddon's bid is checked on.
  The posts go out at once.
- A connection that breaks: reconnected after 1, 2, 4... s (at most a minute, with jitter);
  once open again, every match under way of that stream is read back from the export once
  (what finished in the gap is never sent by Lichess), and ingesting is idempotent: nothing
  is lost or counted twice.
- A stream Lichess refuses (400, 401, 403, 404): its pairs are read by the poll, and the
  stream is tried again after `REFUSED_RETRY` seconds; a 429 pauses every request a minute
  (the client's pause) and the stream opens after it.

A match the stream covers is still read by the poll every `jobs.results_stream_check_minutes`,
a safety net; one it does not cover is polled as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

import aiohttp
from sqlalchemy import event as sa_event
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor
from bot.clock import Clock
from bot.config import Config
from bot.features.matches.live_games import game_began, game_ended
from bot.features.results.reading import Scorekeeper
from bot.features.results.records import MatchRecords
from bot.features.results.stage_rules import MatchRecord, StageRules
from bot.lichess.client import LichessClient
from bot.lichess.errors import LichessError, LichessRateLimited, LichessUnavailable
from bot.lichess.game_stream import SILENCE_LIMIT, STREAM_IDS, StreamedGame, games_by_users
from db.engine import transaction

log = logging.getLogger(__name__)

#: Lichess allows 4 event streams per IP at once; one is kept free so that a stream can be
#: replaced (the new one opened before the old one closes).
MAX_STREAMS = 3
#: Seconds before a refused stream is tried again (meanwhile the poll reads its matches).
REFUSED_RETRY = 600.0
#: The reconnect backoff: the first wait and the longest (seconds).
BACKOFF_FIRST, BACKOFF_LONGEST = 1.0, 60.0

Pair = frozenset[str]
ReadMatches = Callable[[Sequence[MatchRecord]], Awaitable[object]]


@dataclass(eq=False)
class _Stream:
    """One connection and the pairs it watches."""

    pairs: set[Pair]
    task: asyncio.Task[None] | None = None
    open: bool = False
    refused_until: float = 0.0
    replaced: _Stream | None = None  # closed once this one is open
    broke: bool = False  # the connection broke: read back once it is open again
    new_pairs: set[Pair] = field(default_factory=set)  # read back once it is open

    @property
    def ids(self) -> frozenset[str]:
        return frozenset().union(*self.pairs) if self.pairs else frozenset()


class ResultStream:
    """The game stream's connections and what their events do."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        lichess: LichessClient,
        rules: StageRules,
        records: MatchRecords,
        scorekeeper: Scorekeeper,
        read: ReadMatches,
    ) -> None:
        self.sessions = sessions
        self.config = config
        self.clock = clock
        self.lichess = lichess
        self.rules = rules
        self.records = records
        self.scorekeeper = scorekeeper
        self.read = read
        #: told after a game was stored from the stream: the bot delivers its posts at once
        self.on_news: Callable[[], Awaitable[None]] | None = None
        self.silence_limit = SILENCE_LIMIT  # seconds without a byte: the connection is dead
        self._running = False
        self._http: aiohttp.ClientSession | None = None
        self._streams: list[_Stream] = []
        self._matches: dict[Pair, MatchRecord] = {}
        self._stale: set[int] = set()  # matches the poll should read (a failed stream read)
        self._handled: deque[str] = deque(maxlen=2000)  # finished games already read
        self._refresh_lock = asyncio.Lock()
        self._chores: set[asyncio.Task[None]] = set()  # read-backs after an opening

    # --- the poll's view ---------------------------------------------------------------------

    def covers(self, ctx: MatchRecord) -> bool:
        """Whether an open stream watches this match's pair (the poll may then wait)."""
        pair = frozenset({ctx.a.lichess_id, ctx.b.lichess_id})
        return any(s.open and pair in s.pairs for s in self._streams)

    def take_stale(self, match_id: int) -> bool:
        """Whether the poll should read this match now: a game of it failed to load."""
        if match_id in self._stale:
            self._stale.discard(match_id)
            return True
        return False

    @property
    def connections(self) -> list[frozenset[str]]:
        """The id sets of the open streams (for `/td status`, tests and benchmarks)."""
        return [s.ids for s in self._streams if s.open]

    # --- life --------------------------------------------------------------------------------

    async def start(self) -> None:
        """From now on `refresh` opens streams (a live bot; the simulation polls instead)."""
        if not self.config.jobs.results_stream or self._running:
            return
        self._running = True
        self._http = aiohttp.ClientSession()
        await self.refresh()

    async def stop(self) -> None:
        """Close every stream."""
        self._running = False
        streams, self._streams = self._streams, []
        for stream in streams:
            await _cancel(stream)
        for chore in list(self._chores):
            chore.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await chore
        if self._http is not None:
            await self._http.close()
            self._http = None

    async def refresh(self) -> None:
        """Watch the players with a match under way or due within the lead time: streams
        whose pairs change are replaced, the others stay open."""
        if not self._running:
            return
        async with self._refresh_lock:
            now = self.clock.now()
            lead = timedelta(minutes=self.config.jobs.results_stream_lead_minutes)
            watched = await self.records.watched(now, now + lead)
            self._matches = {frozenset({c.a.lichess_id, c.b.lichess_id}): c for c in watched}
            wanted = {pair for pair in self._matches if len(pair) == 2}
            layout = _assign([s.pairs for s in self._streams], wanted)
            loop = asyncio.get_running_loop()
            kept: list[_Stream] = []
            for index, pairs in enumerate(layout):
                old = self._streams[index] if index < len(self._streams) else None
                if old is not None and old.pairs == pairs:
                    if old.task is None or old.task.done():
                        if old.refused_until <= loop.time():
                            self._launch(old)
                    kept.append(old)
                    continue
                stream = _Stream(set(pairs))
                stream.new_pairs = set(pairs) - (old.pairs if old is not None else set())
                if old is not None and old.replaced is not None and not old.open:
                    # replaced again before it opened: it goes, the open one it was to replace
                    # stays until this one opens (and its new pairs are still to read back)
                    stream.new_pairs |= old.new_pairs
                    stream.replaced, old.replaced = old.replaced, None
                    await _cancel(old)
                elif old is not None:
                    stream.replaced = old
                if pairs:
                    self._launch(stream)
                elif old is not None:
                    await _cancel(old)
                    continue
                kept.append(stream)
            for old in self._streams[len(layout) :]:
                await _cancel(old)
            self._streams = [s for s in kept if s.pairs]

    def refresh_after(self, session: AsyncSession) -> None:
        """Refresh once `session`'s transaction has committed: a match agreed at short notice
        ("now", in ten minutes) is watched at once, not at the next minute's sweep."""
        if not self._running:
            return

        def committed(_session: object) -> None:
            chore = asyncio.get_running_loop().create_task(self.refresh())
            self._chores.add(chore)
            chore.add_done_callback(self._chores.discard)

        sa_event.listen(session.sync_session, "after_commit", committed, once=True)

    def _launch(self, stream: _Stream) -> None:
        stream.task = asyncio.create_task(self._run(stream), name="acwc-game-stream")

    # --- one connection ---------------------------------------------------------------------

    async def _run(self, stream: _Stream) -> None:
        """Keep one stream open: reconnect after a break, give up (to the poll) on a refusal."""
        try:
            await self._keep_open(stream)
        finally:
            stream.open = False  # whatever ended it, the poll reads its matches again

    async def _keep_open(self, stream: _Stream) -> None:
        assert self._http is not None
        backoff = BACKOFF_FIRST
        loop = asyncio.get_running_loop()
        while self._running:
            try:
                async for game in games_by_users(
                    self.lichess,
                    self._http,
                    stream.ids,
                    with_current_games=True,
                    on_open=lambda: self._opened(stream),
                    silence_limit=self.silence_limit,
                ):
                    backoff = BACKOFF_FIRST
                    try:
                        await self._event(game)
                    except Exception:  # one event's failure (the database, say) is the poll's
                        log.exception("game %s from the stream not handled", game.id)
                        failed = self._matches.get(game.pair)
                        if failed is not None:
                            self._stale.add(failed.match.id)
                log.info("the Lichess game stream ended; reconnecting")
            except (LichessUnavailable, LichessRateLimited) as exc:
                log.warning("the Lichess game stream: %s; reconnecting", exc)
            except LichessError as exc:
                log.error("Lichess refused the game stream (%s): the poll reads its matches", exc)
                stream.open = False
                stream.refused_until = loop.time() + REFUSED_RETRY
                await self._close_replaced(stream)
                return
            stream.open, stream.broke = False, True
            await asyncio.sleep(backoff * random.uniform(0.8, 1.2))
            backoff = min(backoff * 2, BACKOFF_LONGEST)

    def _opened(self, stream: _Stream) -> None:
        """Lichess accepted: the replaced stream closes; what may have been missed is read."""
        stream.open = True
        chore = asyncio.get_running_loop().create_task(self._after_open(stream))
        self._chores.add(chore)
        chore.add_done_callback(self._chores.discard)

    async def _after_open(self, stream: _Stream) -> None:
        await self._close_replaced(stream)
        missed = set(stream.pairs) if stream.broke else set(stream.new_pairs)
        stream.broke, stream.new_pairs = False, set()
        now = self.clock.now()
        due = [
            ctx
            for pair, ctx in self._matches.items()
            if pair in missed
            and ctx.match.agreed_time is not None
            and self.rules.earliest(ctx) <= now
        ]
        if due:
            await self.read(due)
            await self._tell()

    async def _close_replaced(self, stream: _Stream) -> None:
        old, stream.replaced = stream.replaced, None
        if old is not None:
            await _cancel(old)

    # --- events ------------------------------------------------------------------------------

    async def _event(self, game: StreamedGame) -> None:
        ctx = self._matches.get(game.pair)
        if ctx is None or game.variant != self.config.tournament.variant or not game.rated:
            return  # not a match game: judged nowhere, read never
        now = self.clock.now()
        if not game.ended:
            if game.created_at >= self.rules.earliest(ctx):
                async with transaction(self.sessions) as session:
                    await game_began(session, ctx.match.id, game.id, game.created_at, now)
            return
        if game.id in self._handled:
            return  # the same finish on two streams (one replacing the other)
        self._handled.append(game.id)
        async with transaction(self.sessions) as session:
            await game_ended(session, ctx.match.id, game.id)
        if not game.played_out:
            return  # aborted, never started: nothing to count
        finished = game.as_game(ended_at=now)
        if self.rules.is_match_stage(ctx.stage):
            # A knock-out or final match: its Armageddon's bid is checked on the clock
            # record, which only the game itself holds (one request in the queue).
            try:
                finished = await self.lichess.get_game(game.id)
            except LichessError as exc:
                log.warning("game %s ended but was not read: %s; the poll reads it", game.id, exc)
                self._stale.add(ctx.match.id)
                return
        if await self.scorekeeper.ingest(ctx.match.id, [finished], Actor.job()) is not None:
            await self._tell()

    async def _tell(self) -> None:
        if self.on_news is not None:
            await self.on_news()


def _assign(current: Sequence[set[Pair]], wanted: set[Pair]) -> list[set[Pair]]:
    """The pairs of each stream: a pair stays where it is, a new one goes to the first
    stream with room for its ids (or a new stream, up to `MAX_STREAMS`); what fits nowhere
    is left to the poll."""
    layout = [set(pairs) & wanted for pairs in current]
    placed = set().union(*layout) if layout else set()
    for pair in sorted(wanted - placed, key=sorted):
        for pairs in layout:
            ids = frozenset().union(*pairs, pair)
            if len(ids) <= STREAM_IDS:
                pairs.add(pair)
                break
        else:
            if len(layout) < MAX_STREAMS:
                layout.append({pair})
    return layout


async def _cancel(stream: _Stream) -> None:
    """Close the stream, and the one it was to replace if it never opened."""
    stream.open = False
    if stream.task is not None and not stream.task.done():
        stream.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await stream.task
    if stream.replaced is not None:
        old, stream.replaced = stream.replaced, None
        await _cancel(old)


__all__ = ["MAX_STREAMS", "ResultStream"]
