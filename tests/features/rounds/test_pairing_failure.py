"""A round the bot cannot pair on its own (no valid pairing, or not within
`swiss.pairing_timeout_seconds`) never undoes the result that completed the round before:
the result stands, nothing is published, and the TD is told what to do."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from sqlalchemy import select

from bot.config import Config
from bot.features.rounds import pairing
from db.models import Match, MatchState, Round
from tests.conftest import ANNOUNCE_CHANNEL, TD_ALERT_CHANNEL, TD_ID
from tests.factories import ROUND_THREAD
from tests.fakes.lichess import FakeLichess
from tests.results_helpers import PLAYERS, swiss_match
from tests.running import RunningBot


def no_valid_pairing(*_: object, **__: object) -> list[tuple[str, str | None]]:
    raise ValueError("every remaining pair has met")


def too_slow(*_: object, **__: object) -> list[tuple[str, str | None]]:
    time.sleep(0.5)
    return []


@pytest.mark.parametrize(
    ("pair", "why"),
    [
        (no_valid_pairing, "no valid pairing exists (every remaining pair has met)"),
        (too_slow, "no pairing within 0.05 s (swiss.pairing_timeout_seconds)"),
    ],
)
async def test_an_unpairable_round_leaves_the_result_and_tells_the_td(
    running_bot: RunningBot,
    config: Config,
    fake: FakeLichess,
    monkeypatch: pytest.MonkeyPatch,
    pair: Callable[..., list[tuple[str, str | None]]],
    why: str,
) -> None:
    swiss = config.swiss.model_copy(update={"pairing_timeout_seconds": 0.05})
    config = config.model_copy(update={"swiss": swiss})
    monkeypatch.setattr(pairing.swiss, "pair_round", pair)
    async with running_bot(config) as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(ROUND_THREAD, "round-1")
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        h.add_text_channel(TD_ALERT_CHANNEL, "td-alerts")
        eight = [*PLAYERS, (106, "Eve"), (107, "Fay"), (108, "Gus"), (109, "Hal")]  # a Swiss
        seeded = await swiss_match(bot.sessions, config, fake, players=eight)
        for match in seeded.match_ids:
            score = {"match": match, "score_a": 6, "score_b": 0}
            done = await h.slash("td round set-score", user=TD_ID, options=score)
            assert done.ephemeral and "recorded" in done.text, done.text
            assert "published" not in done.text
        await bot.outbox.flush()
        async with bot.sessions() as session:
            states = (await session.scalars(select(Match.state).order_by(Match.id))).all()
            rounds = (await session.scalars(select(Round.number))).all()
        assert list(states) == [MatchState.FINISHED] * 4  # the results stand
        assert list(rounds) == [1]  # nothing published
        alerts = [m.content for m in h.dms_to(TD_ID)]  # every TD, by DM
        assert any(f"Round 2 could not be paired: {why}" in a for a in alerts), alerts
        assert any("/td round publish" in a for a in alerts)
