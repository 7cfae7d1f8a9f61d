"""Test harnesses. See :mod:`tests.harness.discord` for the offline Discord driver."""

from tests.harness.discord import (
    DiscordHarness,
    InteractionRecord,
    RecordedMessage,
    RecordedRequest,
    RecordedResponse,
    discord_harness,
    render_text,
)

__all__ = [
    "DiscordHarness",
    "InteractionRecord",
    "RecordedMessage",
    "RecordedRequest",
    "RecordedResponse",
    "discord_harness",
    "render_text",
]
