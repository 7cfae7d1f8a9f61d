"""Lichess misbehaving: the full 429 pause on a fake clock, a stalled answer, a cut stream."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from bot.clock import FakeClock, FakeClockPause
from bot.lichess import LichessClient, LichessError, LichessUnavailable
from tests.fakes.lichess import fake_lichess

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


async def test_the_429_pause_is_a_full_minute_on_a_fake_clock_and_costs_no_real_time() -> None:
    clock = FakeClock(T0)
    async with fake_lichess() as fake:
        fake.time_source = lambda: clock.now().timestamp()
        client = LichessClient(
            base_url=fake.base_url, rate_limit_pause=60.0, pause_clock=FakeClockPause(clock)
        )
        try:
            fake.add_user("Alice", created_at=T0)
            fake.fail_next("/api/user/", 429, times=2)
            loop = asyncio.get_running_loop()
            started = loop.time()
            calls = await asyncio.gather(
                client.get_user("alice"), client.export_games("alice"), return_exceptions=True
            )
            real = loop.time() - started
        finally:
            await client.aclose()
    # Request 1 is refused and the retry waits 60 s; the retry is refused too, so the call
    # gives up, and the other call still waits out the second pause before it goes.
    assert fake.statuses == [429, 429, 200]
    gaps = [b - a for a, b in zip(fake.request_times, fake.request_times[1:], strict=False)]
    assert all(gap >= 60.0 for gap in gaps), gaps
    assert (clock.now() - T0).total_seconds() >= 120.0
    assert fake.max_in_flight == 1
    assert isinstance(calls[0], LichessError) and calls[1] == []
    assert real < 30.0  # far below the two minutes waited on the fake clock


async def test_a_stalled_answer_is_a_timeout_and_the_next_call_works() -> None:
    async with fake_lichess() as fake:
        client = LichessClient(base_url=fake.base_url, timeout=0.3)
        try:
            fake.add_user("Alice", created_at=T0)
            fake.stall_next("/api/games/user", 1.0)
            with pytest.raises(LichessUnavailable):
                await client.export_games("alice")
            assert await client.export_games("alice") == []
        finally:
            await client.aclose()
    assert fake.count("/api/games/user") == 2
    assert fake.max_in_flight == 1  # the stalled request ended when the client hung up


@pytest.mark.parametrize("games", [0, 1, 5])
async def test_a_stream_cut_off_mid_line_is_an_error_not_a_shorter_list(games: int) -> None:
    async with fake_lichess() as fake:
        client = LichessClient(base_url=fake.base_url, timeout=2.0)
        try:
            fake.add_user("Alice", created_at=T0)
            fake.add_user("Bob", created_at=T0)
            for _ in range(games):
                fake.add_game(white="alice", black="bob", created_at=T0)
            fake.truncate_next("/api/games/user")
            with pytest.raises(LichessError):
                await client.export_games("alice")
            assert len(await client.export_games("alice")) == games
        finally:
            await client.aclose()
    assert fake.statuses == [None, 200]
