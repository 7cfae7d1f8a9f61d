"""Which errors become which private replies."""

from __future__ import annotations

from discord import app_commands
from sqlalchemy.exc import DBAPIError, OperationalError

from cogs.errors import CONFLICT, message_for


class _DriverError(Exception):
    def __init__(self, message: str, sqlstate: str | None = None) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


def test_a_deadlock_or_serialization_failure_asks_to_try_again() -> None:
    for state in ("40P01", "40001"):
        error = DBAPIError("UPDATE matches", {}, _DriverError("conflict", state))
        assert message_for(error) == CONFLICT
        wrapped = app_commands.CommandInvokeError.__new__(app_commands.CommandInvokeError)
        wrapped.original = error
        assert message_for(wrapped) == CONFLICT


def test_sqlite_busy_asks_to_try_again_but_other_database_errors_are_bugs() -> None:
    assert message_for(OperationalError("x", {}, _DriverError("database is locked"))) == CONFLICT
    assert message_for(OperationalError("x", {}, _DriverError("no such table: players"))) is None
    assert message_for(DBAPIError("x", {}, _DriverError("unique violation", "23505"))) is None
