"""What the public pages may read, and nothing else (issue 33, rule VII.A: nothing private is
served).

The pages read the championship through the console's read model (`Snapshot`,
`standings.row_table`: the same tables `acwc standings` and the export compute), but fill
it themselves: the private tables (time offers, incidents, TD decisions, cheat reports,
DMs in the outbox) are never read, the audit log only for its `stage_started` entries (who
moved on by which rule: public in the stage's start post), and the private columns of the
rows that are read (Discord ids, a TD's comment or reason, the registration's problems, a
game's fair-play flag) are left unloaded with `raiseload`, so a page that reached for one
would fail its test instead of showing it.

`SiteCache` keeps one read per state of the database: a cheap fingerprint (the newest audit
entry, game and finished match) is read per request, and the whole read again only when it
changed or after `MAX_AGE` seconds (a change written without an audit entry).
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import defer

from bot.clock import Clock
from bot.config import Config
from bot.features.console.snapshot import Snapshot
from bot.features.console.stage_view import STARTED
from bot.rebuild import QUICK, off_the_loop
from bot.registration_window import WindowState, read_window
from db.models import AuditEntry, Game, Match, Player, Registration, Round, RoundState, Stage

T = TypeVar("T")
#: Seconds a read is used at most, even with an unchanged fingerprint.
MAX_AGE = 30.0

#: Columns no page may show: loading them raises (`raiseload`) instead of reading them.
PRIVATE_COLUMNS: tuple[Any, ...] = (
    Player.discord_id,
    Player.disqualification_reason,
    Player.time_zone,
    Player.tos_marked_at,
    Registration.problems,
    Registration.evidence,
    Registration.exception_reason,
    Registration.td_comment,
    Registration.decided_by,
    Round.post_channel_id,
    Round.post_message_id,
    Round.thread_id,
    Match.message_id,
    Match.thread_id,
    Match.scoreboard_message_id,
    Match.challenge_url,
    Game.voided_reason,
    Game.flagged,
)


GAME_COLUMNS = (
    Game.match_id,
    Game.number,
    Game.lichess_id,
    Game.white_player_id,
    Game.black_player_id,
    Game.status,
    Game.result_a,
    Game.counted,
)


@dataclass(frozen=True, slots=True)
class PublicGame:
    """A game as the pages show it: read as plain columns, not as a model row (a
    championship of 500 players has some 20,000 games; rows cost several times more)."""

    match_id: int
    number: int
    lichess_id: str
    white_player_id: int
    black_player_id: int
    status: str
    result_a: float
    counted: bool


@dataclass(frozen=True)
class PublicRead:
    """One consistent read of what may be shown: the console's snapshot with its private
    lists empty (and its games too: `games` has them, plainer), the registration window,
    and when it was read."""

    snapshot: Snapshot
    games: list[PublicGame]
    window: WindowState
    read_at: datetime
    etag: str


def _private_of(model: type[Any]) -> list[Any]:
    return [defer(c, raiseload=True) for c in PRIVATE_COLUMNS if c.class_ is model]


async def _all(session: AsyncSession, model: type[T], order: Any, *where: Any) -> list[T]:
    query = select(model).options(*_private_of(model)).where(*where).order_by(order)
    rows: Sequence[T] = (await session.scalars(query)).all()
    return list(rows)


async def fingerprint(session: AsyncSession) -> tuple[Any, ...]:
    """What changes when anything public changes: every state change is audited
    (`bot.audit`), a game read from Lichess is a new row, a match that ends has its time."""
    row = (
        await session.execute(
            select(
                select(func.max(AuditEntry.id)).scalar_subquery(),
                select(func.max(Game.id)).scalar_subquery(),
                select(func.count(Game.id)).where(Game.counted.is_(True)).scalar_subquery(),
                select(func.max(Match.finished_at)).scalar_subquery(),
                select(func.count(Player.id)).scalar_subquery(),
            )
        )
    ).one()
    return tuple(row)


async def read_public(
    sessions: async_sessionmaker[AsyncSession], config: Config, now: datetime
) -> PublicRead:
    """Everything the pages show, read in one transaction."""
    async with sessions() as session, session.begin():
        mark = await fingerprint(session)
        audit = (
            await session.scalars(
                select(AuditEntry).where(AuditEntry.action == STARTED).order_by(AuditEntry.id)
            )
        ).all()
        # a draft round is the TD's preview, not public until it is published
        published = select(Round.id).where(Round.state != RoundState.DRAFT)
        played = select(Match.id).where(Match.round_id.in_(published))
        snapshot = Snapshot(
            players=await _all(session, Player, Player.id),
            registrations=await _all(session, Registration, Registration.id),
            stages=await _all(session, Stage, Stage.id),
            rounds=await _all(session, Round, Round.id, Round.state != RoundState.DRAFT),
            matches=await _all(session, Match, Match.id, Match.round_id.in_(published)),
            games=[],  # the tables need none (a final's games are the pages' own)
            offers=[],
            incidents=[],
            decisions=[],
            audit=list(audit),
        )
        games = [
            PublicGame(*row)
            for row in await session.execute(
                select(*GAME_COLUMNS).where(Game.match_id.in_(played)).order_by(Game.id)
            )
        ]
        window = await read_window(session, config, now)
    return PublicRead(snapshot, games, window, now, _etag(mark, window))


def _etag(mark: tuple[Any, ...], window: WindowState) -> str:
    text = repr((mark, window.is_open, window.closed_at))
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:20]


_frozen = False


def _freeze_once() -> None:
    """Move everything alive after the first build (the imported modules, the first read)
    out of the cycle collector's sight, once per process (`gc.freeze`): a rebuild allocates
    tens of thousands of objects, which sets off a full collection, and a full collection
    walks every object alive, some 200,000 at 500 players: about 100 ms holding the GIL,
    half of a rebuild's CPU, with every request waiting. Frozen objects are still freed
    when no longer referenced; only a reference cycle among them would stay."""
    global _frozen
    if not _frozen:
        _frozen = True
        gc.freeze()


class SiteCache:
    """The newest read and what was built from it (`build`), kept while the database's
    fingerprint holds and for at most `MAX_AGE` seconds. One rebuild at a time, in a
    thread of its own with its own connection (at 500 players reading and building take
    some 100 ms of CPU, which on the event loop every request would wait behind:
    `bot.rebuild`); while one runs, a request is answered from the read before (a page is
    at most one rebuild late, and no request queues behind a slow read), unless the last
    rebuild was quick (`QUICK`: a small championship's), which it then waits for, so the
    page asked right after a change shows it."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        build: Callable[[PublicRead], Any] | None = None,
    ) -> None:
        self.sessions, self.config, self.clock = sessions, config, clock
        self._build = build
        self._mark: tuple[Any, ...] | None = None
        self._value: Any = None
        self._read_at: datetime | None = None
        self._rebuild: asyncio.Task[Any] | None = None
        self._took = 0.0  # seconds the last rebuild took

    async def get(self) -> Any:
        """The built site for the database as it is now (or one rebuild ago)."""
        now = self.clock.now()
        async with self.sessions() as session:
            mark = await fingerprint(session)
        if self._current(mark, now):
            return self._value
        if self._rebuild is None or self._rebuild.done():
            self._rebuild = asyncio.create_task(self._renew(mark, now))
        if self._read_at is None or self._took < QUICK:  # nothing to answer from, or soon
            return await asyncio.shield(self._rebuild)
        return self._value

    async def _renew(self, mark: tuple[Any, ...], now: datetime) -> Any:
        began = time.perf_counter()

        async def read_and_build(sessions: async_sessionmaker[AsyncSession]) -> Any:
            found = await read_public(sessions, self.config, now)
            return self._build(found) if self._build else found

        value = await off_the_loop(self.sessions, read_and_build)
        self._value, self._mark, self._read_at = value, mark, now
        self._took = time.perf_counter() - began
        _freeze_once()
        return value

    def _current(self, mark: tuple[Any, ...], now: datetime) -> bool:
        if self._read_at is None or mark != self._mark:
            return False
        return abs((now - self._read_at).total_seconds()) < MAX_AGE
