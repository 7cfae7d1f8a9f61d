"""The "Log in with Lichess" links /register hands out, as rows (`db.models.LoginLink`), so
a restart of the bot loses none and every use is decided by the database, not by memory.

A link is bound to the ownership challenge /register made, so to one Discord user and the
Lichess account they named. It is short-lived (`LINK_LIFETIME` to click it) and
single-use: the click spends it (`begin`), whatever follows; Lichess's answer must then
come within `FLOW_LIFETIME` and is taken once (`finish`). Each step claims the row with
one conditional UPDATE, so two clicks or two callbacks at the same moment cannot both pass.

Only SHA-256 hashes of the link token and of the OAuth `state` are stored.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.features.registration.login_oauth import new_secret
from db.engine import transaction
from db.models import LoginLink, OwnershipChallenge

#: From /register to the click on the link.
LINK_LIFETIME = timedelta(minutes=10)
#: From the click to Lichess's answer: time to log in at Lichess and consent.
FLOW_LIFETIME = timedelta(minutes=10)


class Refusal(enum.StrEnum):
    """Why a link or an answer from Lichess is not taken (each has its own page)."""

    UNKNOWN = "unknown"  # no such link (mistyped, or not from this bot)
    USED = "used"  # the link was clicked before, or this answer was taken before
    EXPIRED = "expired"  # too late
    STATE = "state"  # an answer from Lichess that no click here started


class Outcome(enum.StrEnum):
    """How a started login ended, kept on the row for the TD's questions."""

    DENIED = "denied"
    LICHESS_FAILED = "lichess_failed"
    OTHER_ACCOUNT = "other_account"
    REFUSED = "refused"
    REGISTERED = "registered"


@dataclass(frozen=True)
class Begun:
    """A spent link: where to send the player, and what must come back."""

    state: str
    verifier: str
    lichess_username: str


@dataclass(frozen=True)
class Pending:
    """An answer from Lichess taken for this link: who it is for and the verifier."""

    link_id: int
    discord_id: int
    lichess_id: str
    lichess_username: str
    verifier: str


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _changed(result: Any) -> int:
    return int(result.rowcount)


class LoginLinks:
    """Issue a link, spend it on the click, take Lichess's answer once."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], clock: Clock) -> None:
        self.sessions = sessions
        self.clock = clock

    async def issue(self, *, challenge_id: int) -> tuple[str, datetime]:
        """A new link token for the ownership challenge /register just made, and until when
        it may be clicked."""
        token = new_secret()
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            session.add(
                LoginLink(
                    token_hash=_hash(token),
                    challenge_id=challenge_id,
                    created_at=now,
                    expires_at=now + LINK_LIFETIME,
                )
            )
        return token, now + LINK_LIFETIME

    async def begin(self, token: str) -> Begun | Refusal:
        """The click: the link is spent, a `state` and a PKCE verifier are made for it."""
        now = self.clock.now()
        async with self.sessions() as session:
            row = await session.execute(
                select(LoginLink, OwnershipChallenge.lichess_username)
                .join(OwnershipChallenge, LoginLink.challenge_id == OwnershipChallenge.id)
                .where(LoginLink.token_hash == _hash(token))
            )
            found = row.first()
        if found is None:
            return Refusal.UNKNOWN
        link, username = found
        if link.started_at is not None:
            return Refusal.USED
        if now >= link.expires_at:
            return Refusal.EXPIRED
        state, verifier = new_secret(), new_secret()
        async with transaction(self.sessions) as session:
            claimed = await session.execute(
                update(LoginLink)
                .where(LoginLink.id == link.id, LoginLink.started_at.is_(None))
                .values(started_at=now, state_hash=_hash(state), code_verifier=verifier)
            )
        if _changed(claimed) != 1:
            return Refusal.USED  # another click won
        return Begun(state, verifier, username)

    async def finish(self, state: str) -> Pending | Refusal:
        """Lichess's answer for `state`, taken once and in time; the verifier is forgotten."""
        now = self.clock.now()
        async with self.sessions() as session:
            row = await session.execute(
                select(LoginLink, OwnershipChallenge)
                .join(OwnershipChallenge, LoginLink.challenge_id == OwnershipChallenge.id)
                .where(LoginLink.state_hash == _hash(state))
            )
            found = row.first()
        if found is None:
            return Refusal.STATE
        link, challenge = found
        if link.finished_at is not None or link.code_verifier is None:
            return Refusal.USED
        late = link.started_at is None or now >= link.started_at + FLOW_LIFETIME
        async with transaction(self.sessions) as session:
            claimed = await session.execute(
                update(LoginLink)
                .where(LoginLink.id == link.id, LoginLink.finished_at.is_(None))
                .values(
                    finished_at=now,
                    code_verifier=None,
                    outcome=Refusal.EXPIRED.value if late else None,
                )
            )
        if _changed(claimed) != 1:
            return Refusal.USED
        if late:
            return Refusal.EXPIRED
        return Pending(
            link.id,
            challenge.discord_id,
            challenge.lichess_id,
            challenge.lichess_username,
            link.code_verifier,
        )

    async def close(self, link_id: int, outcome: Outcome) -> None:
        """How the login ended, on its row."""
        async with transaction(self.sessions) as session:
            await session.execute(
                update(LoginLink).where(LoginLink.id == link_id).values(outcome=outcome.value)
            )
