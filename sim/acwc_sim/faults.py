"""Faults the simulation can inject, to show that nothing is lost: Lichess answering 500 or
429 (rate limit), not answering in time, or cutting a games stream off mid-line; Discord
refusing one player's DMs (403, code 50007), failing a channel post with a 5xx now and then
or rate-limiting one (429 with `retry_after`, handled by discord.py's own rate limiter).
The bot must get every result and every message through in the end, and after each 429 it
must send Lichess nothing for the full pause (on the simulation's clock)."""

from __future__ import annotations

import random
from typing import Any

from acwc_sim.fake_lichess import FakeLichess
from acwc_sim.harness import DiscordHarness, RecordedRequest, _http_error

POST = ("POST", "/channels/{channel_id}/messages")


class Faults:
    """Decides, from its own seeded generator, which requests fail."""

    def __init__(self, h: DiscordHarness, fake: FakeLichess, seed: int, closed_dm_user: int):
        self.h, self.fake = h, fake
        self.rng = random.Random(seed * 7919 + 1)
        self.closed_dm_channel = h._dm_channel_id(closed_dm_user)
        self.injected: dict[str, int] = {}
        self.rounds = 0
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
            # The next post is rate-limited: Discord answers 429 with `retry_after`, and
            # discord.py's own rate limiter waits and sends again.
            self._count("discord 429 retry_after")
            self.h.rate_limit_next(*POST, retry_after=0.05)
        return self.h._default_rest(req, [])

    #: Lichess stalls longer than the simulation's client timeout in the first rounds only:
    #: each one costs that much real time.
    STALLED_ROUNDS = 2
    STALL_SECONDS = 3.0
    #: A burst of 429s: the client's one retry after the pause is refused too, so the call
    #: gives up (the poll reads that match again next time) and the next call waits again.
    RATE_LIMIT_BURST = 3

    def each_round(self) -> None:
        """Lichess fails the next few games reads of the round with 500s, answers a burst of
        429s (the client must pause before each next request; the poll reads again later),
        cuts one games stream off mid-line, and in the first rounds leaves one read
        unanswered past the client's timeout."""
        self.rounds += 1
        self.fake.fail_next("/api/games/user", 500, times=2)
        self._count("lichess 500")
        self.fake.fail_next("/api/games/user", 429, times=self.RATE_LIMIT_BURST)
        self._count("lichess 429")
        self.fake.truncate_next("/api/games/user")
        self._count("lichess truncated stream")
        if self.rounds <= self.STALLED_ROUNDS:
            self.fake.stall_next("/api/games/user", self.STALL_SECONDS)
            self._count("lichess timeout")

    def observed(self) -> dict[str, float | int]:
        """How the bot treated Lichess under these faults, read off the fake server."""
        fake = self.fake
        after_429 = [
            fake.request_times[i + 1] - fake.request_times[i]
            for i, status in enumerate(fake.statuses[:-1])
            if status == 429
        ]
        return {
            "discord 429 retried by discord.py": len(self.h.rate_limited),
            "lichess requests at once (most)": fake.max_in_flight,
            "lichess 429 answered": len(after_429),
            "shortest pause after a 429 (s)": min(after_429) if after_429 else 0.0,
        }
