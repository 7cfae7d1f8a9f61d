"""The Discord harness lives in the package (`bot.sim.harness`) so `acwc simulate` can use it."""

from bot.sim.harness import (
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
