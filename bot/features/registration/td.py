"""The TD's side of registration: open or close the window, approve or reject (rule II.B)."""

from __future__ import annotations

from sqlalchemy.orm import selectinload

from bot.audit import Actor, record, record_td_decision
from bot.errors import InvalidInput, WrongStage
from bot.features.registration import text as wording
from bot.features.registration.core import (
    WINDOW_OVERRIDE_KEY,
    RegistrationCore,
)
from bot.features.registration.types import (
    RegistrationSummary,
    WindowState,
)
from bot.outbox import enqueue_dm
from db.engine import transaction
from db.models import (
    Registration,
    RegistrationState,
    Setting,
)


class Decisions(RegistrationCore):
    """The TD's registration use cases."""

    async def set_window(self, *, td_id: int, open_: bool) -> WindowState:
        """The TD opens or closes registration by hand, overriding the configured window."""
        now = self.clock.now()
        value = "open" if open_ else "closed"
        async with transaction(self.sessions) as session:
            setting = await session.get(Setting, WINDOW_OVERRIDE_KEY)
            if setting is None:
                session.add(Setting(key=WINDOW_OVERRIDE_KEY, value=value, updated_at=now))
            else:
                setting.value, setting.updated_at = value, now
            record(
                session,
                at=now,
                actor=Actor.td(td_id),
                action=f"registration_{value}",
                subject_type="settings",
                subject_id=None,
            )
        return await self.window()

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
                raise InvalidInput(f"There is no registration #{registration_id}.")
            if registration.state is not RegistrationState.PENDING:
                who = f" by <@{registration.decided_by}>" if registration.decided_by else ""
                raise WrongStage(
                    f"Registration #{registration_id} "
                    f"({registration.player.lichess_username}) is already "
                    f"{registration.state.value}{who}; nothing was changed."
                )
            if approve and registration.problems and not reason:
                raise InvalidInput(
                    "This registration failed "
                    f"{', '.join(registration.problems)}: approving it is an "
                    "exception (rule II.B) and needs a reason."
                )
            if not approve and not reason:
                raise InvalidInput("A rejection needs a comment for the player.")
            registration.state = (
                RegistrationState.APPROVED if approve else RegistrationState.REJECTED
            )
            if approve:
                registration.exception_reason = reason if registration.problems else None
                registration.td_comment = None if registration.problems else reason
            else:
                registration.td_comment = reason
            registration.decided_by, registration.decided_at = td_id, now
            registration.updated_at = now
            decision = "approved" if approve else "rejected"
            record_td_decision(
                session,
                at=now,
                td_id=td_id,
                kind="registration",
                subject_type="registration",
                subject_id=registration.id,
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
        return summary
