"""Match day through the real bot: the game link, the live scoreboard, /game and
/td results void-game."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.clock import FakeClock
from bot.config import Config
from db.models import MatchState
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.factories import ROUND_THREAD
from tests.fakes.lichess import FakeLichess
from tests.results_helpers import AGREED, PLAYERS, match_row, play, swiss_match
from tests.running import ALICE, BOB, RunningBot


async def test_match_day_from_link_to_result(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(ROUND_THREAD, "round-1")
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        for user_id, name in PLAYERS[2:]:
            h.add_member(user_id, name.lower())
        seeded = await swiss_match(bot.sessions, config, fake)
        match_id = seeded.match_ids[0]

        clock.set(AGREED)
        await bot.svc.results.run_once()
        await bot.outbox.flush()
        url = fake.challenges[0]["url"]
        start = h.in_channel(ROUND_THREAD)[-1]
        assert url in start.text and f"<@{ALICE}>" in start.text and f"<@{BOB}>" in start.text
        assert h.dms_to(ALICE) == [] and h.dms_to(BOB) == []  # the mention is their copy

        first = play(fake, 1)
        clock.advance(timedelta(minutes=15))
        await bot.svc.results.run_once()
        await bot.outbox.flush()
        board = h.in_channel(ROUND_THREAD)[-1]
        assert board.id == start.id  # the scoreboard is shown in the start post, edited
        assert "**Alice** 1–0 **Bob**" in board.text and first["id"] in board.text
        assert url in board.text

        # the poll missed game 2: Bob submits it
        second = play(fake, 2, result_a=0.5)
        rec = await h.slash(
            "game", user=BOB, options={"url": f"https://lichess.org/{second['id']}"}
        )
        assert rec.ephemeral and "game 2" in rec.text and "1.5–0.5" in rec.text, rec.text
        edited = h.message(board.id)
        assert "1.5–0.5" in edited.text and second["id"] in edited.text
        bad = await h.slash("game", user=ALICE, options={"url": "https://lichess.org/@/bob"})
        assert bad.ephemeral and "not a Lichess game link" in bad.text

        for number in range(3, 7):
            play(fake, number)
        clock.advance(timedelta(hours=1))
        await bot.svc.results.run_once()
        await bot.outbox.flush()
        assert (await match_row(bot.sessions, match_id)).state is MatchState.FINISHED
        # a match result is not stage news: the announcement channel does not carry it
        assert not [m for m in h.in_channel(ANNOUNCE_CHANNEL) if "5.5–0.5" in m.text]
        assert "final result" in h.message(board.id).text

        # the TD voids game 2: the score is recounted and the match goes on
        refused = await h.slash(
            "td results void-game", user=ALICE, options={"game": second["id"], "reason": "x"}
        )
        assert refused.ephemeral and (await match_row(bot.sessions, match_id)).score_a == 5.5
        voided = await h.slash(
            "td results void-game",
            user=TD_ID,
            options={"game": second["id"], "reason": "played twice"},
        )
        assert voided.ephemeral and "5–0" in voided.text and "no longer over" in voided.text
        assert "played twice" in h.in_channel(ROUND_THREAD)[-1].text
        assert (await match_row(bot.sessions, match_id)).state is MatchState.IN_PROGRESS


async def test_a_scoreboard_too_long_for_the_start_post_gets_a_post_of_its_own(
    running_bot: RunningBot,
    config: Config,
    clock: FakeClock,
    fake: FakeLichess,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The start post shows the games while both fit Discord's limit (here made small);
    past it, the start post goes back to the link alone and the games get their own post,
    so no game link is ever cut off."""
    import bot.features.results.reading as reading

    async with running_bot() as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(ROUND_THREAD, "round-1")
        await swiss_match(bot.sessions, config, fake)
        clock.set(AGREED)
        await bot.svc.results.run_once()
        await bot.outbox.flush()
        start = h.in_channel(ROUND_THREAD)[-1]
        link_alone = start.text
        monkeypatch.setattr(reading, "MESSAGE_LIMIT", len(link_alone) + 160)
        first = play(fake, 1)
        clock.advance(timedelta(minutes=15))
        await bot.svc.results.run_once()
        await bot.outbox.flush()
        assert first["id"] in h.message(start.id).text  # one game fits under the link
        games = [play(fake, n) for n in (2, 3, 4)]
        clock.advance(timedelta(hours=1))
        await bot.svc.results.run_once()
        await bot.outbox.flush()
        assert h.message(start.id).text == link_alone
        board = h.in_channel(ROUND_THREAD)[-1]
        assert board.id != start.id and board.text.startswith("📊 **Alice** 4–0 **Bob**")
        assert all(g["id"] in board.text for g in [first, *games])
