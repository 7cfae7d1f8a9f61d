"""The /standings picture is drawn once per table, never shown stale, and drawn ahead of
time by a live bot after each change, so a 500-player picture (seconds to draw) does not
make the player who asks wait."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from bot.clock import FakeClock
from bot.config import Config
from bot.features.tables import pictures
from bot.features.tables.pictures import StandingsPictures
from bot.features.tables.render import render_png
from bot.features.tables.types import Table
from db.models import MatchState
from tests.conftest import TD_ID
from tests.fakes.lichess import FakeLichess
from tests.results_helpers import AGREED, match_row, play, swiss_match
from tests.running import RunningBot


def table(points: str) -> Table:
    return Table(title="Standings", headers=("#", "Player", "Pts"), rows=(("1", "Ann", points),))


@pytest.fixture
def drawings(monkeypatch: pytest.MonkeyPatch) -> list[Table]:
    """Every picture actually drawn, in order."""
    drawn: list[Table] = []

    def counting(t: Table) -> bytes:
        drawn.append(t)
        return render_png(t)

    monkeypatch.setattr(pictures, "render_png", counting)
    return drawn


async def test_one_table_is_drawn_once_and_a_changed_one_again(drawings: list[Table]) -> None:
    async def current() -> Table:
        return table("1")

    cache = StandingsPictures(current, keep=2)
    first = await cache.answer(table("1"))
    again = await cache.answer(table("1"))  # an equal table, built anew: no drawing
    assert first == again and len(drawings) == 1
    assert first[1] == render_png(table("1")) and "Ann" in first[0]
    changed = await cache.answer(table("2"))
    assert changed[1] == render_png(table("2")) and len(drawings) == 2
    await asyncio.gather(*(cache.answer(table("3")) for _ in range(5)))  # asked at once
    assert len(drawings) == 3
    await cache.answer(table("1"))  # only the last two are kept: drawn again
    assert len(drawings) == 4


async def test_a_failed_drawing_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def flaky(t: Table) -> bytes:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("out of memory")
        return render_png(t)

    monkeypatch.setattr(pictures, "render_png", flaky)

    async def current() -> Table:
        return table("1")

    cache = StandingsPictures(current)
    with pytest.raises(OSError):
        await cache.answer(table("1"))
    assert (await cache.answer(table("1")))[1] == render_png(table("1"))


async def test_a_live_bot_draws_the_new_table_after_a_result(
    running_bot: RunningBot,
    config: Config,
    clock: FakeClock,
    fake: FakeLichess,
    drawings: list[Table],
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        tables = bot.svc.tables
        seeded = await swiss_match(bot.sessions, config, fake)
        tables.draw_ahead(True)  # what the cog does when the bot runs its scheduler
        await tables.pictures.drawn()
        before = await tables.standings()
        assert tables.pictures.has(before)

        clock.set(AGREED)
        await bot.svc.results.run_once()
        for number in range(1, 7):
            play(fake, number)
        clock.advance(timedelta(hours=1))
        await bot.svc.results.run_once()  # the match is decided: the table changes
        assert (await match_row(bot.sessions, seeded.match_ids[0])).state is MatchState.FINISHED
        await tables.pictures.drawn()
        after = await tables.standings()
        assert after != before and tables.pictures.has(after)
        drawn = len(drawings)

        answer = await h.slash("standings", user=TD_ID)
        assert answer.response is not None and answer.response.files == ["standings.png"]
        assert len(drawings) == drawn  # the picture was ready
        text, png = await tables.standings_answer()
        assert png == render_png(after) and text == answer.text
        tables.draw_ahead(False)


async def test_a_restarted_bot_shows_the_table_as_it_is_now(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    """Nothing about the picture outlives the process, and the key is the table itself:
    after a restart and a TD's correction, the picture is the corrected table."""
    async with running_bot() as (bot, _):
        assert bot.sessions is not None
        seeded = await swiss_match(bot.sessions, config, fake)
        _, first_png = await bot.svc.tables.standings_answer()
    async with running_bot() as (bot, h):
        await h.slash(
            "td round set-score",
            user=TD_ID,
            options={"match": seeded.match_ids[0], "score_a": 6, "score_b": 0},
        )
        _, png = await bot.svc.tables.standings_answer()
        assert png != first_png and png == render_png(await bot.svc.tables.standings())
