"""/noshow while the pair is at the board: Lichess sends a game in progress only with
`ongoing=true`, and the bot must ask for it, or a player could claim a no-show mid-game."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from bot.clock import FakeClock
from bot.config import Config
from db.models import MatchIncident
from tests.factories import ROUND_THREAD
from tests.fakes.lichess import FakeLichess
from tests.results_helpers import AGREED, play, swiss_match
from tests.running import BOB, RunningBot


async def test_a_claim_while_the_pairs_game_is_running_is_refused_with_its_link(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        h.add_text_channel(ROUND_THREAD, "round-1")
        await swiss_match(bot.sessions, config, fake)
        clock.set(AGREED)
        await bot.svc.results.run_once()
        running = play(fake, 1, status="started", winner=None)  # game 1, not over yet
        clock.set(AGREED + timedelta(minutes=6))
        rec = await h.slash("noshow", user=BOB)
        assert rec.ephemeral and "not a no-show" in rec.text, rec.text
        assert f"https://lichess.org/{running['id']} (in progress right now)" in rec.text
        assert any(q.get("ongoing") == "true" for _m, p, q in fake.requests if "games" in p)
        async with bot.sessions() as session:
            assert await session.scalar(select(func.count(MatchIncident.id))) == 0
