"""Errors a user can fix: the central handler turns each into a clear ephemeral reply."""

from __future__ import annotations


class UserFacingError(Exception):
    """Something the person did or asked for cannot happen; the message says why and what to do.

    Raising one never changes state: services raise before they write, or inside the
    transaction so that it rolls back.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotAllowed(UserFacingError):
    """The person may not do this (wrong user, not the TD)."""


class ReportedAttempt(NotAllowed):
    """Refused, and the attempt itself is on record because a rule asks the TD to hear of it
    (rule II.C.4: a second account). Only its audit entry and the TD's message are written,
    in their own transaction; nothing the person asked for happens."""


class WrongStage(UserFacingError):
    """The command is valid, but not at this point of the championship."""


class InvalidInput(UserFacingError):
    """The input is ill-formed or refers to something that does not exist."""


class ExternalServiceError(UserFacingError):
    """Lichess could not be reached; nothing was changed, try again later."""
