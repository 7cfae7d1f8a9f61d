"""Registration (rule II): what the players' and the TD's use cases share, each a plain
class `bot.wiring` gives them: `Registrations` (the window, reading registrations) and
`EntryChecks` (the Lichess checks, one account per player).

Lichess is called before any transaction opens; each transaction is short and writes the
state change, its audit row and its messages together.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import selectinload

from bot.audit import Actor, record
from bot.clock import Clock
from bot.config import Config
from bot.errors import ExternalServiceError, InvalidInput, ReportedAttempt, WrongStage
from bot.features.registration import text as wording
from bot.features.registration.player_check import PlayerReport, check_player
from bot.features.registration.types import (
    RegistrationSummary,
    WindowState,
)
from bot.lichess.errors import LichessError, LichessNotFound
from bot.lichess.models import LichessUser
from bot.message_text import quote
from bot.registration_window import WINDOW_OVERRIDE_KEY, read_window, swiss_stage, td_named
from bot.rules import eligibility
from bot.service import Service
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import (
    Player,
    Registration,
    RegistrationState,
)

__all__ = [
    "ACTIVE_STATES",
    "CHALLENGE_LIFETIME",
    "WINDOW_OVERRIDE_KEY",
    "EntryChecks",
    "Registrations",
]

CHALLENGE_LIFETIME = timedelta(hours=2)
ACTIVE_STATES = (RegistrationState.PENDING, RegistrationState.APPROVED)


class Registrations:
    """Reading registration: the window, whether entries are taken, the registrations."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], config: Config, clock: Clock
    ) -> None:
        self.sessions = sessions
        self.config = config
        self.clock = clock

    async def window(self) -> WindowState:
        async with self.sessions() as session:
            return await read_window(session, self.config, self.clock.now())

    async def require_open(self, session: AsyncSession | None = None) -> None:
        """Entries are refused once the qualification has started (round 1 is out: a late
        entrant would never be paired) and whenever the window is closed."""
        if session is None:
            async with self.sessions() as fresh:
                return await self.require_open(fresh)
        now = self.clock.now()
        swiss = await swiss_stage(session, self.config)
        if swiss is not None:
            raise WrongStage(wording.qualification_started(swiss.started_at, td_named(self.config)))
        state = await read_window(session, self.config, now)
        if not state.is_open:
            raise WrongStage(wording.window_closed(state, now, td_named(self.config)))

    # --- reading ----------------------------------------------------------------------------

    async def get(self, registration_id: int) -> RegistrationSummary:
        async with self.sessions() as session:
            registration = await session.get(
                Registration, registration_id, options=[selectinload(Registration.player)]
            )
        if registration is None:
            raise InvalidInput(wording.no_such_registration(registration_id))
        return RegistrationSummary.of(registration)

    async def status(self, *, discord_id: int) -> RegistrationSummary | None:
        async with self.sessions() as session:
            registration = await session.scalar(
                select(Registration)
                .join(Player)
                .where(Player.discord_id == discord_id)
                .options(selectinload(Registration.player))
            )
        return RegistrationSummary.of(registration) if registration else None

    async def all(self) -> list[RegistrationSummary]:
        """Every registration, best seed first (unrated last), then by registration time."""
        async with self.sessions() as session:
            rows = await session.execute(_LISTING.join(Player, Registration.player_id == Player.id))
        summaries = [_listed(row) for row in rows]
        return sorted(
            summaries,
            key=lambda s: (
                s.seeding_rating is None,
                -(s.seeding_rating or 0.0),
                s.created_at,
                s.id,
            ),
        )


class EntryChecks(Service):
    """The checks of an entry against Lichess (the account, the entry rules, the seeding
    rating) and the one-account-per-player rule (II.C.4)."""

    async def lichess_user(self, name: str) -> LichessUser:
        try:
            return await self.lichess.get_user(name)
        except LichessNotFound:
            raise InvalidInput(wording.no_such_account(name)) from None
        except LichessError as exc:
            raise ExternalServiceError(await self.lichess_failed(exc)) from exc

    async def check(self, name: str) -> PlayerReport:
        try:
            return await check_player(self.lichess, self.config, name)
        except LichessError as exc:
            raise ExternalServiceError(await self.lichess_failed(exc)) from exc

    @staticmethod
    def hard_problems(user: LichessUser) -> list[str]:
        return eligibility.account_hard_problems(closed=user.disabled, is_bot=user.is_bot)

    async def check_unique(
        self, session: AsyncSession, *, discord_id: int, user: LichessUser, now: datetime
    ) -> None:
        """One Lichess account per Discord user and vice versa (rule II.C.4, decided by
        `bot.rules.eligibility.double_entry`): refuse with the reason; a second account
        is reported to the TD."""
        mine = await session.scalar(
            select(Player)
            .where(Player.discord_id == discord_id)
            .options(selectinload(Player.registration))
        )
        theirs = await session.scalar(
            select(Player)
            .where(Player.lichess_id == user.id)
            .options(selectinload(Player.registration))
        )
        problem = eligibility.double_entry(
            discord_id=discord_id,
            lichess_id=user.id,
            mine=_holder(mine),
            theirs=_holder(theirs),
        )
        if problem is None:
            return
        if problem == "second_account":
            assert mine is not None
            await self._alert_double_entry(discord_id, mine.lichess_username, user, now)
            raise ReportedAttempt(wording.second_account(mine.lichess_username, user.username))
        if problem == "rejected_with_other_account":
            assert mine is not None
            raise WrongStage(wording.rejected_other_account(mine.lichess_username))
        assert theirs is not None
        if problem == "pre_seeded":
            raise InvalidInput(wording.pre_seeded_account(user.username))
        if problem == "account_of_another_user":
            await self._alert_double_entry(
                discord_id, user.username, user, now, other_discord_id=theirs.discord_id
            )
            raise ReportedAttempt(wording.account_of_another_user(user.username))
        assert theirs.registration is not None
        if problem == "already_registered":
            raise WrongStage(
                wording.already_registered(user.username, theirs.registration.state.value)
            )
        comment = quote(theirs.registration.td_comment or "", 300)
        raise WrongStage(wording.rejected_account(user.username, comment))

    async def _alert_double_entry(
        self,
        discord_id: int,
        first: str,
        user: LichessUser,
        now: datetime,
        other_discord_id: int | None = None,
    ) -> None:
        """Committed on its own: the refusal that follows must not roll the alert back."""
        async with transaction(self.sessions) as session:
            content = wording.double_entry_alert(discord_id, first, user.username, other_discord_id)
            notify_td(session, self.config, now=now, content=content)
            record(
                session,
                at=now,
                actor=Actor.player(discord_id),
                action="double_entry_attempt",
                subject_type="player",
                subject_id=None,
                details={
                    "registered": first,
                    "attempted": user.username,
                    "other_discord_id": other_discord_id,
                },
            )


def _holder(player: Player | None) -> eligibility.EntryHolder | None:
    """A player row as rule II.C.4's function reads it."""
    if player is None:
        return None
    registration = player.registration
    return eligibility.EntryHolder(
        lichess_id=player.lichess_id,
        discord_id=player.discord_id,
        pre_seeded=player.pre_seeded_stage is not None,
        state=registration.state.value if registration is not None else None,
    )


def profile_has_code(user: LichessUser, code: str) -> bool:
    needle = code.lower()
    return needle in user.bio.lower() or needle in user.location.lower()


# The listing of every entrant reads plain columns, and of the evidence only the problems'
# texts (the rest is each player's whole Lichess report): 500 entrants are one query of
# small rows, not 1,000 ORM objects with their reports.
_LISTING = select(
    Registration.id,
    Player.discord_id,
    Player.lichess_username,
    Registration.state,
    Registration.problems,
    Registration.evidence["problem_texts"].label("problem_texts"),
    Registration.account_created_at,
    Registration.rated_games_before_cutoff,
    Registration.rating_at_cutoff,
    Registration.rating_at_cutoff_game,
    Registration.peak_rating,
    Registration.peak_rating_game,
    Registration.seeding_rating,
    Registration.exception_reason,
    Registration.td_comment,
    Registration.decided_by,
    Registration.decided_at,
    Registration.created_at,
)


def _listed(row: Row[Any]) -> RegistrationSummary:
    """A `_LISTING` row as the summary `RegistrationSummary.of` makes of the ORM objects."""
    fields = row._asdict()
    fields["problems"] = list(fields["problems"] or [])
    fields["problem_texts"] = list(fields["problem_texts"] or [])
    return RegistrationSummary(
        **fields, profile_url=f"https://lichess.org/@/{fields['lichess_username']}"
    )
