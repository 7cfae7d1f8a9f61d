"""The negotiation tests run with two match reminders, a day and an hour before (the default
is the hour only): they cover reminders that come more than once per match. The default is
run by the simulation's message-plan test (tests/sim/test_message_plan.py)."""

from __future__ import annotations

import pytest

from bot.config import Config


@pytest.fixture
def config(config: Config) -> Config:
    two = config.negotiation.model_copy(update={"match_reminders_hours": (24.0, 1.0)})
    return config.model_copy(update={"negotiation": two})
