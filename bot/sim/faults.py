"""Faults the simulation can inject, to show that nothing is lost: Lichess answering 500 or
429 (rate limit), Discord refusing one player's DMs (403, code 50007), failing a
channel post with a 5xx or a 429 now and then. The bot must get every result and every
message through in the end."""

from __future__ import annotations

import random
from typing import Any

from bot.sim.fake_lichess import FakeLichess
from bot.sim.harness import DiscordHarness, RecordedRequest, _http_error

POST = ("POST", "/channels/{channel_id}/messages")


class Faults:
    """Decides, from its own seeded generator, which requests fail."""

    def __init__(self, h: DiscordHarness, fake: FakeLichess, seed: int, closed_dm_user: int):
        self.h, self.fake = h, fake
        self.rng = random.Random(seed * 7919 + 1)
        self.closed_dm_channel = h._dm_channel_id(closed_dm_user)
        self.injected: dict[str, int] = {}
        h.on_request(*POST, self._post)

    def _count(self, kind: str) -> None:
        self.injected[kind] = self.injected.get(kind, 0) + 1

    def _post(self, req: RecordedRequest) -> Any:
        if req.params.get("channel_id") == str(self.closed_dm_channel):
            self._count("discord 403 closed DMs")
            raise _http_error(403, 50007, "Cannot send messages to this user")
        roll = self.rng.random()
        if roll < 0.03:
            self._count("discord 503")
            raise _http_error(503, 0, "Service Unavailable")
        if roll < 0.05:
            self._count("discord 429")
            raise _http_error(429, 0, "You are being rate limited.")
        return self.h._default_rest(req, [])

    def each_round(self) -> None:
        """Lichess fails the next few games reads of the round with 500s, then rate-limits
        one (the poll must retry; the client must pause before its next request)."""
        self.fake.fail_next("/api/games/user", 500, times=2)
        self._count("lichess 500")
        self.fake.fail_next("/api/games/user", 429, times=1)
        self._count("lichess 429")
