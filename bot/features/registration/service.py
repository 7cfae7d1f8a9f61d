"""The registration service (rule II): the players' sign-up and the TD's decisions, each
written in its own module of this package."""

from __future__ import annotations

from bot.features.registration.core import ACTIVE_STATES, CHALLENGE_LIFETIME, WINDOW_OVERRIDE_KEY
from bot.features.registration.signup import SignUp
from bot.features.registration.td import Decisions
from bot.features.registration.types import (
    DECISION_VIEW,
    OwnershipStep,
    RegistrationSummary,
    WindowState,
)

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


class RegistrationService(SignUp, Decisions):
    """Rule II end to end."""
