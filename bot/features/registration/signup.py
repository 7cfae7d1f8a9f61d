"""The player's side of registration: /register, the Verify button and the Lichess login
(both end in `record_proven`), /withdraw, and the pre-seeded players entered by
configuration."""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import selectinload

from bot import stage_kinds
from bot.audit import Actor, record
from bot.clock import Clock
from bot.config import Config
from bot.errors import InvalidInput, NotAllowed, WrongStage
from bot.events import EventBus
from bot.features.discipline import service as discipline
from bot.features.registration import login_text as login_wording
from bot.features.registration import text as wording
from bot.features.registration.core import (
    ACTIVE_STATES,
    CHALLENGE_LIFETIME,
    EntryChecks,
    Registrations,
    profile_has_code,
)
from bot.features.registration.field_post import refresh_field_post
from bot.features.registration.player_check import PlayerReport, requirements
from bot.features.registration.types import (
    DECISION_VIEW,
    OwnershipStep,
    RegistrationSummary,
)
from bot.lichess.client import LichessClient
from bot.lichess.models import LichessUser
from bot.outbox_queue import enqueue_dm
from bot.rules import eligibility, withdrawals
from bot.service import Service
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import (
    OwnershipChallenge,
    Player,
    Registration,
    RegistrationState,
    Stage,
    StageState,
)


class SignUp(Service):
    """Ownership proof, entry checks and the seeding rating, then the registration."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        registrations: Registrations,
        checks: EntryChecks,
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        super().__init__(sessions, config, clock, lichess=lichess, events=events)
        self.registrations = registrations
        self.checks = checks

    # --- step 1: /register ------------------------------------------------------------

    async def start(self, *, discord_id: int, lichess_username: str, is_td: bool) -> OwnershipStep:
        """Check what can be checked without ownership, then hand out a one-time code."""
        name = lichess_username.strip().removeprefix("@")
        if not eligibility.may_enter(is_td=is_td):
            raise NotAllowed(wording.td_cannot_register())
        if not eligibility.looks_like_username(name):
            raise InvalidInput(wording.not_a_username(lichess_username))
        await self.registrations.require_open()
        stage = self.config.pre_seeded_stage(name)
        if stage:
            raise InvalidInput(wording.pre_seeded_name(name, stage))
        user = await self.checks.lichess_user(name)
        hard = self.checks.hard_problems(user)
        if hard:
            raise InvalidInput(wording.refusal(hard, user))
        now = self.clock.now()
        code = f"{self.config.registration.verification_code_prefix}{secrets.token_hex(4)}"
        async with transaction(self.sessions) as session:
            await self.checks.check_unique(session, discord_id=discord_id, user=user, now=now)
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
            raise InvalidInput(wording.verification_gone())
        if challenge.discord_id != discord_id:
            raise NotAllowed(wording.not_your_verify_button())
        if challenge.verified_at is not None:
            existing = await self.registrations.status(discord_id=discord_id)
            if existing is not None:
                return existing
        await self.registrations.require_open()  # registration may have closed since /register
        if now >= challenge.expires_at:
            raise InvalidInput(wording.code_expired())
        user = await self.checks.lichess_user(challenge.lichess_username)
        if user.id != challenge.lichess_id:
            raise InvalidInput(wording.account_changed())
        if not profile_has_code(user, challenge.code):
            async with transaction(self.sessions) as session:
                row = await session.get(OwnershipChallenge, challenge_id)
                if row is not None:
                    row.attempts += 1
            raise InvalidInput(wording.code_missing(challenge.code, user))
        return await self.record_proven(discord_id=discord_id, user=user, challenge_id=challenge_id)

    async def register_verified(self, discord_id: int, lichess_username: str) -> str:
        """The Lichess login's registration (issue 33): Lichess's OAuth proved that
        `discord_id` holds the account, so it is recorded exactly as the profile code's is
        (`record_proven`: the same entry checks, the same TD decision), the player told in
        a DM; returns what the login's page says. The challenge /register made for the
        account is marked verified, as the Verify button marks it."""
        user = await self.checks.lichess_user(lichess_username)
        async with self.sessions() as session:
            challenge_id = await session.scalar(
                select(OwnershipChallenge.id)
                .where(
                    OwnershipChallenge.discord_id == discord_id,
                    OwnershipChallenge.lichess_id == user.id,
                )
                .order_by(OwnershipChallenge.id.desc())
                .limit(1)
            )
        summary = await self.record_proven(
            discord_id=discord_id, user=user, challenge_id=challenge_id, tell=True
        )
        return login_wording.registered_page(summary)

    async def record_proven(
        self,
        *,
        discord_id: int,
        user: LichessUser,
        challenge_id: int | None,
        tell: bool = False,
    ) -> RegistrationSummary:
        """The account is proven to be `discord_id`'s (the profile code, or the Lichess
        login): the entry checks (rule II), one account per player (II.C.4), then the
        registration with its TD decision, in one transaction that re-checks the window.
        `tell`: the player hears the outcome in a DM (the login has no Discord reply)."""
        await self.registrations.require_open()
        report = await self.checks.check(user.username)
        hard = eligibility.hard_problems(report.problems)
        if hard:
            raise InvalidInput(wording.refusal(hard, report.user))
        now = self.clock.now()
        try:
            async with transaction(self.sessions) as session:
                await self.registrations.require_open(
                    session
                )  # again: it may have closed during the checks
                await self.checks.check_unique(session, discord_id=discord_id, user=user, now=now)
                if challenge_id is not None:
                    row = await session.get(OwnershipChallenge, challenge_id)
                    if row is None:
                        raise InvalidInput(wording.verification_gone())
                    row.verified_at = now
                registration = await self._save_registration(session, discord_id, report, now)
                await refresh_field_post(session, self.config, now)
                summary = RegistrationSummary.of(registration)
                if tell:
                    enqueue_dm(
                        session,
                        user_id=discord_id,
                        now=now,
                        content=login_wording.after_login_dm(summary),
                        embeds=[wording.registration_embed(summary)],
                    )
        except IntegrityError:
            # A simultaneous press won the race; show what it recorded.
            existing = await self.registrations.status(discord_id=discord_id)
            if existing is None:
                raise WrongStage(wording.registered_by_someone_else(user.username)) from None
            return existing
        return summary

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
                content=wording.td_review_heading(summary),
                embeds=[wording.registration_embed(summary, for_td=True)],
                view=(DECISION_VIEW, {"registration_id": registration.id}),
            )
        return registration

    async def withdrawal_effect(self, *, discord_id: int) -> str:
        """What withdrawing now would do, for the confirmation the player sees first."""
        async with self.sessions() as session:
            rows = (
                await session.scalars(
                    select(Stage)
                    .where(Stage.state == StageState.RUNNING)
                    .order_by(Stage.started_at.desc())
                )
            ).all()
            player = await session.scalar(select(Player).where(Player.discord_id == discord_id))
        if not rows or player is None:
            return wording.withdraw_before_start()
        # the stage they play (the Grand Final and the Third Place Playoff run together)
        running = next((r for r in rows if player.id in r.seeding), rows[0])
        return wording.withdraw_effect(
            running.kind,
            player.id in running.seeding,
            seat_kept=stage_kinds.keeps_a_seat(self.config.format, running),
        )

    async def withdraw(self, *, discord_id: int) -> RegistrationSummary:
        """A player withdraws: before the qualification their registration ends; once a
        stage runs, rule VIII applies to their results as the confirmation said."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            registration = await session.scalar(
                select(Registration)
                .join(Player)
                .where(Player.discord_id == discord_id)
                .options(selectinload(Registration.player))
            )
            if registration is None or registration.state not in ACTIVE_STATES:
                raise WrongStage(wording.nothing_to_withdraw())
            swiss = await stage_kinds.swiss_row(session, self.config.format)
            registration.state = RegistrationState.WITHDRAWN
            registration.updated_at = now
            if withdrawals.leaves_the_championship(swiss.state.value if swiss else None):
                await discipline.withdraw(
                    session,
                    self.config,
                    self.events,
                    player_id=registration.player.id,
                    actor=Actor.player(discord_id),
                    now=now,
                )
                return RegistrationSummary.of(registration)
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
                content=wording.withdrawn_td(registration.player.lichess_username),
            )
            await refresh_field_post(session, self.config, now)
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
                player.pre_seeded_stage = stage_kinds.engine_kind(self.config.format, entry.stage)
                if entry.discord_id is not None:
                    player.discord_id = entry.discord_id
