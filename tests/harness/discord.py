"""The Discord harness lives in the simulator (`acwc_sim.harness`) so `acwc simulate` can use it."""

from acwc_sim.harness import (
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
