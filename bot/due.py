"""Due actions: deadlines, reminders and grace periods as database rows (see
docs/ARCHITECTURE.md, "Timers: due actions").

A service schedules an action in its own transaction. The periodic sweep runs every due
action in a transaction of its own that also marks it done, so its effects (state changes,
outbox messages) and the "done" mark commit together: a restart at any moment neither loses
nor repeats an action.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from db.engine import transaction
from db.models import DueAction

log = logging.getLogger(__name__)

Handler = Callable[[AsyncSession, DueAction, datetime], Awaitable[None]]


class DueKind(enum.StrEnum):
    """Every kind of due action the bot schedules, in one place; the value is stored."""

    # negotiation (rule V)
    OFFER_UNANSWERED = "offer_unanswered"  # remind the opponent of an unanswered offer
    OFFERS_DUE = "offers_due"  # end of Wednesday: who made their offers (V.C, V.E, V.F)
    WEEKEND_CHECK = "weekend_check"  # Saturday: no agreement goes to the TD (V.H)
    MATCH_REMINDER = "match_reminder"  # before the agreed time (negotiation.match_reminders_hours)
    # registration (rule II)
    REGISTRATION_CLOSE = "registration_close"  # the configured close: the field goes public
    # rounds (rule IV)
    ROUND_DEADLINE = "round_deadline"  # Sunday night: matches without a result to the TD
    NEXT_ROUND = "next_round"  # the Monday after: pair the next round
    # incidents (rule VI)
    NOSHOW_CHECK = "incident_noshow_check"  # end of the no-show grace period (VI.D)
    RESCHEDULE_DEADLINE = "incident_reschedule_deadline"  # no new time after a no-show
    BREAK_END = "incident_break_end"  # a break is over (VI.A)
    LEFT_END = "incident_left_end"  # the return period after /left is over (VI.E)


# A step the sweep also runs, outside any transaction: work that is due by a time stored on
# another row (a match's agreed time opens its game link) and needs I/O such as Lichess.
SweepStep = Callable[[], Awaitable[object]]
MAX_ATTEMPTS = 5


async def schedule(
    session: AsyncSession,
    *,
    kind: DueKind,
    subject_type: str,
    subject_id: int,
    due_at: datetime,
    payload: dict[str, Any] | None = None,
) -> DueAction:
    """Add an action unless the same one (kind, subject, time) is already scheduled."""
    existing = await session.scalar(
        select(DueAction).where(
            DueAction.kind == kind,
            DueAction.subject_type == subject_type,
            DueAction.subject_id == subject_id,
            DueAction.due_at == due_at,
        )
    )
    if existing is not None:
        return existing
    action = DueAction(
        kind=kind,
        subject_type=subject_type,
        subject_id=subject_id,
        due_at=due_at,
        payload=payload or {},
        attempts=0,
    )
    session.add(action)
    await session.flush()
    return action


async def cancel(
    session: AsyncSession,
    *,
    subject_type: str,
    subject_id: int | Sequence[int],
    now: datetime,
    kinds: tuple[DueKind, ...] | None = None,
) -> None:
    """Cancel the pending actions of a subject, or of several in one statement (all, or
    only some kinds)."""
    ids = [subject_id] if isinstance(subject_id, int) else list(subject_id)
    if not ids:
        return
    statement = update(DueAction).where(
        DueAction.subject_type == subject_type,
        DueAction.subject_id.in_(ids) if len(ids) > 1 else DueAction.subject_id == ids[0],
        DueAction.done_at.is_(None),
        DueAction.cancelled_at.is_(None),
    )
    if kinds is not None:
        statement = statement.where(DueAction.kind.in_(kinds))
    await session.execute(statement.values(cancelled_at=now))


class DueActionRunner:
    """Runs due actions once each; a failing action is retried a few times, then left for the TD."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], clock: Clock) -> None:
        self.sessions = sessions
        self.clock = clock
        self.handlers: dict[str, Handler] = {}
        self.steps: dict[str, SweepStep] = {}

    def register(self, kind: DueKind, handler: Handler) -> None:
        if kind in self.handlers:
            raise ValueError(f"two handlers for due action kind {kind!r}")
        self.handlers[kind] = handler

    def add_step(self, name: str, step: SweepStep) -> None:
        """Run `step` at every sweep, before the due actions; it must be idempotent."""
        self.steps[name] = step

    async def sweep(self, limit: int = 200) -> int:
        """Run the steps, then every action due now, oldest first; returns how many actions
        ran. A failing step is logged and retried at the next sweep."""
        for name, step in self.steps.items():
            try:
                await step()
            except Exception:
                log.exception("sweep step %s failed; it runs again at the next sweep", name)
        now = self.clock.now()
        async with self.sessions() as session:
            due = (
                await session.scalars(
                    select(DueAction.id)
                    .where(
                        DueAction.done_at.is_(None),
                        DueAction.cancelled_at.is_(None),
                        DueAction.due_at <= now,
                        DueAction.attempts < MAX_ATTEMPTS,
                    )
                    .order_by(DueAction.due_at, DueAction.id)
                    .limit(limit)
                )
            ).all()
        ran = 0
        for action_id in due:
            ran += await self._run(action_id, now)
        return ran

    async def _run(self, action_id: int, now: datetime) -> int:
        try:
            async with transaction(self.sessions) as session:
                action = await session.get(DueAction, action_id)
                if action is None or action.done_at or action.cancelled_at:
                    return 0
                handler = self.handlers.get(action.kind)
                if handler is None:
                    raise LookupError(f"no handler for due action kind {action.kind!r}")
                await handler(session, action, now)
                action.done_at = now
                action.attempts += 1
            return 1
        except Exception as exc:
            log.exception("due action %s failed", action_id)
            async with transaction(self.sessions) as session:
                action = await session.get(DueAction, action_id)
                if action is not None:
                    action.attempts += 1
                    action.last_error = f"{type(exc).__name__}: {exc}"[:500]
            return 0
