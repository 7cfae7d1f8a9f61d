"""Registration use cases: ownership proof, entry checks, seeding, and the TD's decision.

Each public method is one use case. Lichess is called before any transaction opens; each
transaction is short and writes the state change, its audit row and its outbox messages
together, so nothing accepted is lost and nothing half-done is left behind.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot.audit import Actor, record, record_td_decision
from bot.errors import ExternalServiceError, InvalidInput, NotAllowed, WrongStage
from bot.features.registration import text
from bot.features.registration.player_check import PlayerReport, check_player, requirements
from bot.features.registration.types import (
    DECISION_VIEW,
    OwnershipStep,
    RegistrationSummary,
    WindowState,
)
from bot.lichess.errors import LichessError, LichessNotFound
from bot.lichess.models import LichessUser
from bot.outbox import enqueue_dm
from bot.rules import eligibility
from bot.service import Service
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import (
    OwnershipChallenge,
    Player,
    Registration,
    RegistrationState,
    Setting,
    Stage,
    StageKind,
    StageState,
)

CHALLENGE_LIFETIME = timedelta(hours=2)
WINDOW_OVERRIDE_KEY = "registration_override"
ACTIVE_STATES = (RegistrationState.PENDING, RegistrationState.APPROVED)


class RegistrationService(Service):
    # --- the registration window -------------------------------------------------------

    async def window(self) -> WindowState:
        async with self.sessions() as session:
            setting = await session.get(Setting, WINDOW_OVERRIDE_KEY)
        reg = self.config.registration
        override = setting.value if setting else None
        if override is None:
            now = self.clock.now()
            is_open = reg.opens_at <= now < reg.closes_at
        else:
            is_open = override == "open"
        return WindowState(is_open, override, reg.opens_at, reg.closes_at)

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

    async def _require_open(self) -> None:
        state = await self.window()
        if not state.is_open:
            raise WrongStage(text.window_closed(state.opens_at, state.closes_at, self.clock.now()))

    # --- step 1: /register ------------------------------------------------------------

    async def start(self, *, discord_id: int, lichess_username: str, is_td: bool) -> OwnershipStep:
        """Check what can be checked without ownership, then hand out a one-time code."""
        name = lichess_username.strip().removeprefix("@")
        if is_td:
            raise NotAllowed(
                "The tournament director cannot take part in the championship "
                "(rule I.D), so the TD cannot register."
            )
        if not eligibility.looks_like_username(name):
            raise InvalidInput(
                f"`{lichess_username}` is not a valid Lichess username: 2 to 30 "
                "letters, digits, `_` or `-`."
            )
        await self._require_open()
        if self.config.pre_seeded_stage(name):
            raise InvalidInput(
                f"{name} is pre-seeded into the {self.config.pre_seeded_stage(name)}"
                " by the rules; they do not register for the qualification."
            )
        user = await self._lichess_user(name)
        hard = [p for p in self._hard_problems(user)]
        if hard:
            raise InvalidInput(text.refusal(hard, user))
        now = self.clock.now()
        code = f"{self.config.registration.verification_code_prefix}{secrets.token_hex(4)}"
        async with transaction(self.sessions) as session:
            await self._check_unique(session, discord_id=discord_id, user=user, now=now)
            challenge = OwnershipChallenge(
                discord_id=discord_id,
                lichess_id=user.id,
                lichess_username=user.username,
                code=code,
                created_at=now,
                expires_at=now + CHALLENGE_LIFETIME,
                attempts=0,
            )
            session.add(challenge)
            await session.flush()
            record(
                session,
                at=now,
                actor=Actor.player(discord_id),
                action="ownership_challenge",
                subject_type="ownership_challenge",
                subject_id=challenge.id,
                details={"lichess": user.username},
            )
        return OwnershipStep(challenge.id, code, user.username, user.url, challenge.expires_at)

    # --- step 2: the Verify button ----------------------------------------------------------

    async def verify(self, *, discord_id: int, challenge_id: int) -> RegistrationSummary:
        """Match the code in the profile, run the entry checks, and record the registration."""
        now = self.clock.now()
        async with self.sessions() as session:
            challenge = await session.get(OwnershipChallenge, challenge_id)
        if challenge is None:
            raise InvalidInput("This verification no longer exists. Run /register again.")
        if challenge.discord_id != discord_id:
            raise NotAllowed("This Verify button belongs to another player's registration.")
        if challenge.verified_at is not None:
            existing = await self.status(discord_id=discord_id)
            if existing is not None:
                return existing
        if now >= challenge.expires_at:
            raise InvalidInput("This code has expired. Run /register again for a new one.")
        user = await self._lichess_user(challenge.lichess_username)
        if user.id != challenge.lichess_id:
            raise InvalidInput("That Lichess account has changed. Run /register again.")
        if not _profile_has_code(user, challenge.code):
            async with transaction(self.sessions) as session:
                row = await session.get(OwnershipChallenge, challenge_id)
                if row is not None:
                    row.attempts += 1
            raise InvalidInput(text.code_missing(challenge.code, user))
        report = await self._check(user.username)
        hard = [p for p in report.problems if p in eligibility.HARD_REFUSALS]
        if hard:
            raise InvalidInput(text.refusal(hard, report.user))
        try:
            async with transaction(self.sessions) as session:
                await self._check_unique(session, discord_id=discord_id, user=user, now=now)
                row = await session.get(OwnershipChallenge, challenge_id)
                if row is None:
                    raise InvalidInput("This verification no longer exists. Run /register again.")
                row.verified_at = now
                registration = await self._save_registration(session, discord_id, report, now)
        except IntegrityError:
            # A simultaneous press won the race; show what it recorded.
            existing = await self.status(discord_id=discord_id)
            if existing is None:
                raise WrongStage(f"{user.username} was just registered by someone else.") from None
            return existing
        return RegistrationSummary.of(registration)

    async def _save_registration(
        self, session: AsyncSession, discord_id: int, report: PlayerReport, now: datetime
    ) -> Registration:
        user = report.user
        assert user is not None
        player = await session.scalar(select(Player).where(Player.lichess_id == user.id))
        previous = await session.scalar(select(Player).where(Player.discord_id == discord_id))
        if previous is not None and previous is not player:
            previous.discord_id = None  # a withdrawn entry with another account: unlink it
            await session.flush()
        if player is None:
            player = Player(
                lichess_id=user.id,
                lichess_username=user.username,
                discord_id=discord_id,
                created_at=now,
            )
            session.add(player)
            await session.flush()
        player.discord_id, player.lichess_username = discord_id, user.username
        player.withdrawn_at = None
        clean = not report.problems
        state = (
            RegistrationState.APPROVED
            if clean and self.config.registration.auto_approve
            else RegistrationState.PENDING
        )
        facts = eligibility.AccountFacts(
            exists=True,
            is_bot=user.is_bot,
            tos_violation=user.tos_violation,
            created_at=user.created_at,
            rated_games_before_cutoff=report.rated_games_before_cutoff,
        )
        req = requirements(self.config)
        registration = await session.scalar(
            select(Registration).where(Registration.player_id == player.id)
        )
        if registration is None:
            registration = Registration(player_id=player.id, created_at=now)
            session.add(registration)
        seeding = report.seeding
        registration.state = state
        registration.problems = list(report.problems)
        registration.evidence = {
            "problem_texts": [eligibility.describe(p, facts, req) for p in report.problems],
            "report": report.to_json(),
        }
        registration.account_created_at = user.created_at
        registration.rated_games_before_cutoff = report.rated_games_before_cutoff
        registration.rating_at_cutoff = seeding.rating_at_cutoff
        registration.rating_at_cutoff_game = seeding.rating_at_cutoff_game
        registration.peak_rating = seeding.peak_rating
        registration.peak_rating_game = seeding.peak_rating_game
        registration.seeding_rating = seeding.seeding_rating
        registration.exception_reason = registration.td_comment = None
        registration.decided_by = registration.decided_at = None
        registration.updated_at = now
        player.seeding_rating = seeding.seeding_rating
        registration.player = player
        await session.flush()
        record(
            session,
            at=now,
            actor=Actor.player(discord_id),
            action="registered",
            subject_type="registration",
            subject_id=registration.id,
            details={
                "lichess": user.username,
                "state": state.value,
                "problems": list(report.problems),
            },
        )
        summary = RegistrationSummary.of(registration)
        if state is RegistrationState.PENDING:
            notify_td(
                session,
                self.config,
                now=now,
                content=text.td_review_heading(summary),
                embeds=[text.registration_embed(summary, for_td=True)],
                view=(DECISION_VIEW, {"registration_id": registration.id}),
            )
        return registration

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
                    content=text.outcome_message(summary),
                )
        return summary

    # --- reading ----------------------------------------------------------------------------

    async def get(self, registration_id: int) -> RegistrationSummary:
        async with self.sessions() as session:
            registration = await session.get(
                Registration, registration_id, options=[selectinload(Registration.player)]
            )
        if registration is None:
            raise InvalidInput(f"There is no registration #{registration_id}.")
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
            rows = (
                await session.scalars(
                    select(Registration).options(selectinload(Registration.player))
                )
            ).all()
        summaries = [RegistrationSummary.of(r) for r in rows]
        return sorted(
            summaries,
            key=lambda s: (
                s.seeding_rating is None,
                -(s.seeding_rating or 0.0),
                s.created_at,
                s.id,
            ),
        )

    async def withdraw(self, *, discord_id: int) -> RegistrationSummary:
        """A player withdraws their registration before the qualification starts."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            registration = await session.scalar(
                select(Registration)
                .join(Player)
                .where(Player.discord_id == discord_id)
                .options(selectinload(Registration.player))
            )
            if registration is None or registration.state not in ACTIVE_STATES:
                raise WrongStage("You have no active registration to withdraw.")
            swiss = await session.scalar(select(Stage).where(Stage.kind == StageKind.SWISS))
            if swiss is not None and swiss.state is not StageState.PLANNED:
                raise WrongStage("The qualification has started: ask the TD to withdraw you.")
            registration.state = RegistrationState.WITHDRAWN
            registration.updated_at = now
            registration.player.withdrawn_at = now
            record(
                session,
                at=now,
                actor=Actor.player(discord_id),
                action="registration_withdrawn",
                subject_type="registration",
                subject_id=registration.id,
            )
            notify_td(
                session,
                self.config,
                now=now,
                content=f"{registration.player.lichess_username} withdrew their registration.",
            )
            return RegistrationSummary.of(registration)

    async def ensure_pre_seeded(self) -> None:
        """Pre-seeded players are entered by configuration, not through registration."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            for entry in self.config.players.pre_seeded:
                player = await session.scalar(
                    select(Player).where(Player.lichess_id == entry.lichess.lower())
                )
                if player is None:
                    player = Player(
                        lichess_id=entry.lichess.lower(),
                        lichess_username=entry.lichess,
                        created_at=now,
                    )
                    session.add(player)
                player.pre_seeded_stage = StageKind(entry.stage)
                if entry.discord_id is not None:
                    player.discord_id = entry.discord_id

    # --- helpers ---------------------------------------------------------------------------

    async def _lichess_user(self, name: str) -> LichessUser:
        try:
            return await self.lichess.get_user(name)
        except LichessNotFound:
            raise InvalidInput(
                f"There is no Lichess account named `{name}`. Check the "
                "spelling (https://lichess.org/@/" + name + ")."
            ) from None
        except LichessError as exc:
            raise ExternalServiceError(_lichess_down(exc)) from exc

    async def _check(self, name: str) -> PlayerReport:
        try:
            return await check_player(self.lichess, self.config, name)
        except LichessError as exc:
            raise ExternalServiceError(_lichess_down(exc)) from exc

    @staticmethod
    def _hard_problems(user: LichessUser) -> list[str]:
        if user.disabled:
            return [eligibility.CLOSED_ACCOUNT]
        return [eligibility.BOT_ACCOUNT] if user.is_bot else []

    async def _check_unique(
        self, session: AsyncSession, *, discord_id: int, user: LichessUser, now: datetime
    ) -> None:
        """One Lichess account per Discord user and vice versa (rule II.C.4)."""
        mine = await session.scalar(
            select(Player)
            .where(Player.discord_id == discord_id)
            .options(selectinload(Player.registration))
        )
        if mine is not None and mine.lichess_id != user.id and mine.registration is not None:
            state = mine.registration.state
            if state in ACTIVE_STATES:
                await self._alert_double_entry(discord_id, mine.lichess_username, user, now)
                raise NotAllowed(text.second_account(mine.lichess_username, user.username))
            if state is RegistrationState.REJECTED:
                raise WrongStage(
                    f"Your registration as {mine.lichess_username} was rejected by the TD; "
                    "you cannot enter with another account. Contact the TD."
                )
        theirs = await session.scalar(
            select(Player)
            .where(Player.lichess_id == user.id)
            .options(selectinload(Player.registration))
        )
        if theirs is None:
            return
        if theirs.pre_seeded_stage is not None:
            raise InvalidInput(f"{user.username} is pre-seeded by the rules and does not register.")
        if theirs.discord_id is not None and theirs.discord_id != discord_id:
            await self._alert_double_entry(
                discord_id, user.username, user, now, other_discord_id=theirs.discord_id
            )
            raise NotAllowed(
                f"The Lichess account {user.username} is already registered by "
                "another Discord user. The TD has been told."
            )
        if theirs.registration is not None:
            state = theirs.registration.state
            if state in ACTIVE_STATES:
                raise WrongStage(
                    f"You are already registered as {user.username} "
                    f"(state: {state.value}). Use /status to see it."
                )
            if state is RegistrationState.REJECTED:
                raise WrongStage(
                    f"Your registration as {user.username} was rejected by the TD"
                    f" ({theirs.registration.td_comment}). Contact the TD."
                )

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
            content = text.double_entry_alert(discord_id, first, user.username, other_discord_id)
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


def _profile_has_code(user: LichessUser, code: str) -> bool:
    needle = code.lower()
    return needle in user.bio.lower() or needle in user.location.lower()


def _lichess_down(exc: LichessError) -> str:
    return (
        "Lichess could not be reached just now "
        f"({type(exc).__name__}). Nothing was changed; please try again in a minute."
    )
