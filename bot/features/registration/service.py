"""The registration service (rule II), `bot.svc.registration`: the one object the cogs
reach. It holds the players' sign-up (`signup.SignUp`), the TD's decisions
(`td.Decisions`) and the reading of registrations (`core.Registrations`), which
`bot.wiring` builds and gives it, and hands each command to the one that does it; its own
job is what ties registration to the bot's timers and events: the configured close, and
the field post kept up to date."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import due
from bot.clock import Clock
from bot.config import Config
from bot.due import DueKind, Handler
from bot.events import EventBus, PlayerLeft, PlayerReinstated
from bot.features.registration.core import (
    ACTIVE_STATES,
    CHALLENGE_LIFETIME,
    WINDOW_OVERRIDE_KEY,
    Registrations,
)
from bot.features.registration.field_post import refresh_field_post
from bot.features.registration.login_links import LoginLinks
from bot.features.registration.login_oauth import start_url
from bot.features.registration.signup import SignUp
from bot.features.registration.td import Decisions
from bot.features.registration.types import (
    DECISION_VIEW,
    OwnershipStep,
    RegistrationSummary,
    WindowState,
)
from bot.lichess.client import LichessClient
from bot.service import Service, Subscription
from db.engine import transaction
from db.models import DueAction

__all__ = [
    "ACTIVE_STATES",
    "CHALLENGE_LIFETIME",
    "DECISION_VIEW",
    "WINDOW_OVERRIDE_KEY",
    "OwnershipStep",
    "RegistrationService",
    "RegistrationSummary",
    "WindowState",
]

CLOSE_SUBJECT = "registration_window"


class RegistrationService(Service):
    """Rule II as the cogs reach it, and the close of registration on its timer."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        registrations: Registrations,
        signup: SignUp,
        decisions: Decisions,
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        super().__init__(sessions, config, clock, lichess=lichess, events=events)
        self.registrations = registrations
        self.signup = signup
        self.decisions = decisions
        # Each command is its collaborator's own method.
        self.window = registrations.window
        self.get = registrations.get
        self.status = registrations.status
        self.all = registrations.all
        self.start = signup.start
        self.verify = signup.verify
        # The Lichess login (issue 33): the web's `register_verified`, and the links.
        self.register_verified = signup.register_verified
        self.login_links = LoginLinks(sessions, clock)
        self.withdrawal_effect = signup.withdrawal_effect
        self.withdraw = signup.withdraw
        self.ensure_pre_seeded = signup.ensure_pre_seeded
        self.set_window = decisions.set_window
        self.decide = decisions.decide
        self.pending = decisions.pending
        self.drop_pending = decisions.drop_pending

    async def login_link(self, *, challenge_id: int) -> tuple[str, datetime] | None:
        """The "Log in with Lichess" address for the ownership challenge /register just
        made, and until when it works; None when the web server does not run (the profile
        code is then the only way)."""
        if not self.config.web.enabled:
            return None
        token, until = await self.login_links.issue(challenge_id=challenge_id)
        return start_url(self.config, token), until

    async def schedule_close(self) -> None:
        """At start-up: a due action at the configured `registration.closes_at`, so the
        field goes public when the window closes by itself. One row per close time (a
        restart finds it; the sweep runs it once)."""
        async with transaction(self.sessions) as session:
            await due.schedule(
                session,
                kind=DueKind.REGISTRATION_CLOSE,
                subject_type=CLOSE_SUBJECT,
                subject_id=0,
                due_at=self.config.registration.closes_at,
            )

    def due_handlers(self) -> dict[DueKind, Handler]:
        return {DueKind.REGISTRATION_CLOSE: self._on_configured_close}

    def subscriptions(self) -> list[Subscription]:
        return [(PlayerLeft, self._on_field_changed), (PlayerReinstated, self._on_field_changed)]

    async def _on_configured_close(
        self, session: AsyncSession, action: DueAction, now: datetime
    ) -> None:
        """The configured close has come: the field goes public, unless the TD keeps
        registration open (then their own close does it) or round 1 is out already."""
        await refresh_field_post(session, self.config, now)

    async def _on_field_changed(
        self, session: AsyncSession, event: PlayerLeft | PlayerReinstated, now: datetime
    ) -> None:
        """A disqualification or a reinstatement before round 1 changes the public field."""
        await refresh_field_post(session, self.config, now)
