"""The TD's side of registration: open or close the window, approve or reject (rule II.B)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import selectinload

from bot.audit import Actor, record, record_td_decision
from bot.clock import Clock
from bot.config import Config
from bot.errors import InvalidInput, WrongStage
from bot.events import EventBus
from bot.features.registration import text as wording
from bot.features.registration.core import (
    WINDOW_OVERRIDE_KEY,
    Registrations,
)
from bot.features.registration.field_post import refresh_field_post
from bot.features.registration.types import (
    RegistrationSummary,
    WindowState,
)
from bot.lichess.client import LichessClient
from bot.outbox import enqueue_dm
from bot.registration_window import read_window, swiss_stage, td_named
from bot.rules import eligibility
from bot.service import Service
from db.engine import transaction
from db.models import (
    Registration,
    RegistrationState,
    Setting,
)


class Decisions(Service):
    """The TD's registration use cases."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        registrations: Registrations,
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        super().__init__(sessions, config, clock, lichess=lichess, events=events)
        self.registrations = registrations

    async def set_window(self, *, td_id: int, open_: bool) -> WindowState:
        """The TD opens or closes registration by hand, overriding the configured window.
        Closing makes the field public (`field_post.py`); once the qualification has
        started, registration cannot reopen (a late entrant would never be paired)."""
        now = self.clock.now()
        value = "open" if open_ else "closed"
        async with transaction(self.sessions) as session:
            swiss = await swiss_stage(session, self.config)
            if open_ and swiss is not None:
                raise WrongStage(wording.no_reopen(swiss.started_at))
            before = await read_window(session, self.config, now)
            # Closing a window that is already closed keeps the time it closed (the public
            # field post says it); otherwise the TD's action is the time.
            since = (before.closed_at if not (open_ or before.is_open) else None) or now
            setting = await session.get(Setting, WINDOW_OVERRIDE_KEY)
            if setting is None:
                session.add(Setting(key=WINDOW_OVERRIDE_KEY, value=value, updated_at=since))
            else:
                setting.value, setting.updated_at = value, since
            record(
                session,
                at=now,
                actor=Actor.td(td_id),
                action=f"registration_{value}",
                subject_type="settings",
                subject_id=None,
            )
            await refresh_field_post(session, self.config, now)
        return await self.registrations.window()

    # --- the TD's decision ---------------------------------------------------------------

    async def decide(
        self, *, registration_id: int, td_id: int, approve: bool, reason: str | None
    ) -> RegistrationSummary:
        """Approve (an exception needs a reason, rule II.B) or reject (with a comment)."""
        reason = (reason or "").strip() or None
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            registration = await session.get(
                Registration, registration_id, options=[selectinload(Registration.player)]
            )
            if registration is None:
                raise InvalidInput(wording.no_such_registration(registration_id))
            problem = eligibility.td_decision_problem(
                state=registration.state.value,
                approve=approve,
                problems=registration.problems,
                reason=reason,
            )
            if problem == "already_decided":
                raise WrongStage(
                    wording.already_decided(
                        registration_id,
                        registration.player.lichess_username,
                        registration.state.value,
                        registration.decided_by,
                    )
                )
            if problem == "exception_needs_reason":
                raise InvalidInput(wording.exception_needs_reason(list(registration.problems)))
            if problem == "rejection_needs_comment":
                raise InvalidInput(wording.rejection_needs_comment())
            registration.state = (
                RegistrationState.APPROVED if approve else RegistrationState.REJECTED
            )
            if approve:
                registration.exception_reason = reason if registration.problems else None
                registration.td_comment = None if registration.problems else reason
            else:
                registration.td_comment = reason
            decision = "approved" if approve else "rejected"
            _decided(
                session,
                registration,
                td_id=td_id,
                now=now,
                decision=decision,
                reason=reason,
                action=f"registration_{decision}",
                details={"reason": reason, "problems": list(registration.problems)},
            )
            summary = RegistrationSummary.of(registration)
            if registration.player.discord_id is not None:
                enqueue_dm(
                    session,
                    user_id=registration.player.discord_id,
                    now=now,
                    content=wording.outcome_message(summary),
                )
            await refresh_field_post(session, self.config, now)
        return summary

    async def pending(self) -> list[RegistrationSummary]:
        """The registrations still waiting for the TD, oldest first."""
        return sorted(
            (s for s in await self.registrations.all() if s.state is RegistrationState.PENDING),
            key=lambda s: (s.created_at, s.id),
        )

    async def drop_pending(self, *, td_id: int) -> list[RegistrationSummary]:
        """Registration is closed and round 1 is next: every registration the TD has not
        decided is rejected, and each player told why (the TD chose not to decide them).
        Only once registration is closed and before round 1."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            if await swiss_stage(session, self.config) is not None:
                raise WrongStage(wording.qualification_already_started())
            if (await read_window(session, self.config, now)).is_open:
                raise WrongStage(wording.close_first())
            rows = (
                await session.scalars(
                    select(Registration)
                    .where(Registration.state == RegistrationState.PENDING)
                    .options(selectinload(Registration.player))
                    .order_by(Registration.created_at, Registration.id)
                )
            ).all()
            dropped = []
            for registration in rows:
                registration.state = RegistrationState.REJECTED
                registration.td_comment = wording.DROPPED_COMMENT
                _decided(
                    session,
                    registration,
                    td_id=td_id,
                    now=now,
                    decision="rejected",
                    reason=wording.DROPPED_COMMENT,
                    action="registration_dropped",
                    details={"reason": "pending when registration closed"},
                )
                summary = RegistrationSummary.of(registration)
                dropped.append(summary)
                if registration.player.discord_id is not None:
                    enqueue_dm(
                        session,
                        user_id=registration.player.discord_id,
                        now=now,
                        content=wording.dropped_message(summary, td_named(self.config)),
                    )
            await refresh_field_post(session, self.config, now)
        return dropped


def _decided(
    session: AsyncSession,
    registration: Registration,
    *,
    td_id: int,
    now: datetime,
    decision: str,
    reason: str | None,
    action: str,
    details: dict[str, Any],
) -> None:
    """The TD decided `registration`: who and when on the row, and the audit entry."""
    registration.decided_by, registration.decided_at = td_id, now
    registration.updated_at = now
    record_td_decision(
        session,
        at=now,
        td_id=td_id,
        kind="registration",
        subject_type="registration",
        subject_id=registration.id,
        decision=decision,
        reason=reason,
        action=action,
        details=details,
    )
