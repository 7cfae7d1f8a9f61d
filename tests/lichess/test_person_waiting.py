"""A person never waits out Lichess's 429 pause: a command that needs Lichess while the bot
is pausing answers at once that Lichess is busy and when to try again; the periodic jobs
still wait the full pause (docs/ARCHITECTURE.md, "Lichess")."""

from __future__ import annotations

from bot.lichess.client import LichessClient
from tests.conftest import add_player
from tests.fakes.lichess import FakeLichess
from tests.running import ALICE, RunningBot

PAUSE = 60.0


class RecordingPause:
    """A pause clock that records every wait instead of sleeping (no wall-clock in tests)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: list[float] = []

    def time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


async def test_register_during_the_pause_answers_at_once(
    running_bot: RunningBot, fake: FakeLichess
) -> None:
    add_player(fake, "Alice")
    pause = RecordingPause()
    lichess = LichessClient(
        base_url=fake.base_url, timeout=5.0, rate_limit_pause=PAUSE, pause_clock=pause
    )
    async with running_bot(lichess=lichess) as (bot, h):
        fake.fail_next("/api/user/", 429)  # a job's call meets the 429: the pause begins
        user = await bot.lichess.get_user("Alice")
        assert user.username == "Alice" and pause.waits == [PAUSE]  # a job waits it out
        fake.fail_next("/api/user/", 429)
        pause.waits.clear()
        asked = fake.count("/api/user/")
        record = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        assert record.ephemeral and "Lichess asked the bot to slow down" in record.text
        assert "try again in a minute" in record.text and "Nothing was changed" in record.text
        assert pause.waits == []  # the player was not kept waiting
        assert fake.count("/api/user/") == asked + 1  # asked once, refused, not retried

        pause.now += 10  # still inside the pause: not even one request
        again = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        assert "slow down" in again.text and fake.count("/api/user/") == asked + 1
        assert pause.waits == []

        pause.now += PAUSE  # the pause is over: the command works
        done = await h.slash("register", user=ALICE, options={"lichess_username": "Alice"})
        assert "slow down" not in done.text and "Verify" in str(done.responses), done.text
