"""The next Swiss round is paired after the result that completed the round has committed,
with no session open, and written in a short transaction of its own that re-checks the
state: a failed pairing leaves the result, a repeated or concurrent run pairs once, and a
bot that died between the two transactions pairs at its next sweep."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.app import ChampionshipBot
from bot.audit import Actor
from bot.clock import FakeClock
from bot.config import Config
from bot.due import DueActionRunner
from bot.events import MatchFinished
from bot.features.rounds import pairing
from bot.features.rounds.next_round import SwissNextRound
from bot.rules import swiss
from bot.wiring import register_timers
from db.engine import transaction
from db.models import Match, MatchState, OutboxMessage, Round, RoundState, Setting
from tests.conftest import ANNOUNCE_CHANNEL, TD_ALERT_CHANNEL, TD_ID
from tests.entrants import add_entrants
from tests.factories import ROUND_THREAD, SeededRound, wired
from tests.fakes.lichess import FakeLichess
from tests.harness import DiscordHarness
from tests.results_helpers import PLAYERS, swiss_match
from tests.running import RunningBot

EIGHT = [*PLAYERS, (106, "Eve"), (107, "Fay"), (108, "Gus"), (109, "Hal")]
REAL_PAIR_ROUND = swiss.pair_round
NOW = datetime(2019, 9, 20, tzinfo=UTC)


async def eight_player_swiss(
    bot: ChampionshipBot, h: DiscordHarness, config: Config, fake: FakeLichess
) -> SeededRound:
    assert bot.sessions is not None
    h.add_text_channel(ROUND_THREAD, "round-1")
    h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
    h.add_text_channel(TD_ALERT_CHANNEL, "td-alerts")
    return await swiss_match(bot.sessions, config, fake, players=EIGHT)


async def set_scores(h: DiscordHarness, match_ids: Sequence[int]) -> None:
    for match in match_ids:
        score = {"match": match, "score_a": 6, "score_b": 0}
        done = await h.slash("td round set-score", user=TD_ID, options=score)
        assert done.ephemeral and "recorded" in done.text, done.text


async def finish_by_event(bot: ChampionshipBot, match_id: int) -> None:
    """What the results feature does when Lichess has the last game: the match's result
    and `MatchFinished` in one transaction (the rounds service answers inside it)."""
    assert bot.sessions is not None
    now = datetime(2019, 10, 3, 12, 0, tzinfo=UTC)
    async with transaction(bot.sessions) as session:
        match = await session.get(Match, match_id)
        assert match is not None
        match.state, match.finished_at = MatchState.FINISHED, now
        match.score_a, match.score_b, match.points_a, match.points_b = 6.0, 0.0, 1.0, 0.0
        finished = MatchFinished(Actor.job(), match_id=match.id, round_id=match.round_id)
        await bot.svc.rounds.events.publish(session, finished, now)


async def round_numbers(sessions: async_sessionmaker[AsyncSession]) -> list[int]:
    async with sessions() as session:
        return list((await session.scalars(select(Round.number).order_by(Round.number))).all())


async def test_the_pairing_runs_after_the_result_commits_with_no_session_open(
    running_bot: RunningBot,
    config: Config,
    fake: FakeLichess,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From inside the pairing, a second session sees the result committed and can write
    the very row the result's transaction wrote: no transaction holds its lock."""
    seen: list[tuple[MatchState, RoundState]] = []
    async with running_bot(config) as (bot, h):
        sessions = bot.sessions
        assert sessions is not None
        seeded = await eight_player_swiss(bot, h, config, fake)
        loop = asyncio.get_running_loop()
        last = seeded.match_ids[-1]

        async def second_session() -> None:
            async with asyncio.timeout(2), transaction(sessions) as session:
                match = await session.get(Match, last)
                round_ = await session.get(Round, seeded.round_id)
                assert match is not None and round_ is not None
                seen.append((match.state, round_.state))
                await session.execute(
                    update(Round).where(Round.id == round_.id).values(thread_id=Round.thread_id)
                )

        def probing_pair_round(*args: object, **kwargs: object) -> list[swiss.Pair]:
            # the worker thread: the probe runs on the bot's loop, which is free meanwhile
            asyncio.run_coroutine_threadsafe(second_session(), loop).result(timeout=5)
            return REAL_PAIR_ROUND(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(pairing.swiss, "pair_round", probing_pair_round)
        await set_scores(h, seeded.match_ids[:-1])
        assert seen == []  # the round is not complete yet: nothing paired
        await finish_by_event(bot, last)
        assert seen == [(MatchState.FINISHED, RoundState.FINISHED)]
        assert await round_numbers(sessions) == [1, 2]


async def test_a_failed_pairing_after_a_lichess_result_leaves_it_and_is_told_once(
    running_bot: RunningBot,
    config: Config,
    fake: FakeLichess,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The result read from Lichess stands; the TD is told what to do; the sweep does not
    try again every minute (the TD's /td round publish does)."""
    calls: list[int] = []

    def no_valid_pairing(*_: object, **__: object) -> list[swiss.Pair]:
        calls.append(1)
        raise ValueError("every remaining pair has met")

    monkeypatch.setattr(pairing.swiss, "pair_round", no_valid_pairing)
    async with running_bot(config) as (bot, h):
        assert bot.sessions is not None and bot.due is not None and bot.outbox is not None
        seeded = await eight_player_swiss(bot, h, config, fake)
        await set_scores(h, seeded.match_ids[:-1])
        await finish_by_event(bot, seeded.match_ids[-1])
        await bot.due.sweep()
        await bot.due.sweep()
        await bot.outbox.flush()
        async with bot.sessions() as session:
            states = (await session.scalars(select(Match.state).order_by(Match.id))).all()
        assert list(states) == [MatchState.FINISHED] * 4  # the results stand
        assert await round_numbers(bot.sessions) == [1]
        assert calls == [1]
        told = [m.content for m in h.dms_to(TD_ID) if "could not be paired" in m.content]
        assert len(told) == 1, told
        assert "Round 2 could not be paired: no valid pairing exists" in told[0]
        assert "/td round publish" in told[0]
        monkeypatch.setattr(pairing.swiss, "pair_round", REAL_PAIR_ROUND)
        done = await h.slash("td round publish", user=TD_ID)
        assert "Published Swiss round 2" in done.text, done.text
        assert await round_numbers(bot.sessions) == [1, 2]


async def test_a_bot_that_died_before_pairing_pairs_once_after_the_restart(
    running_bot: RunningBot,
    config: Config,
    fake: FakeLichess,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The result committed, then the process died before the pairing: the next bot's
    sweep pairs round 2, once, however many sweeps and runs meet it."""

    async def died(self: SwissNextRound, round_id: int, actor: Actor) -> None:
        return None

    async with running_bot(config) as (bot, h):
        assert bot.sessions is not None
        sessions = bot.sessions
        seeded = await eight_player_swiss(bot, h, config, fake)
        with monkeypatch.context() as patch:
            patch.setattr(SwissNextRound, "pair_after", died)
            await set_scores(h, seeded.match_ids)
        assert await round_numbers(sessions) == [1]

    async with running_bot(config) as (bot, h):
        assert bot.sessions is not None and bot.due is not None and bot.outbox is not None
        next_round = bot.svc.rounds.next_round
        await asyncio.gather(bot.due.sweep(), next_round.pair_waiting(), bot.due.sweep())
        await bot.due.sweep()
        assert await round_numbers(bot.sessions) == [1, 2]
        async with bot.sessions() as session:
            round2 = await session.scalar(select(Round.id).where(Round.number == 2))
            matches = await session.scalar(
                select(func.count()).select_from(Match).where(Match.round_id == round2)
            )
            out = (
                await session.scalars(
                    select(OutboxMessage.content).where(
                        OutboxMessage.target_id == ANNOUNCE_CHANNEL,
                        OutboxMessage.content.contains("round 2"),
                    )
                )
            ).all()
        assert matches == 4
        assert len(out) == 1, out


async def test_round_one_is_paired_in_a_worker_thread_with_no_transaction_open(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The preview and the start of the Swiss pair round 1 off the event loop, and no
    transaction is open meanwhile: a second session can write."""
    rounds = wired(sessions, config, clock).rounds
    await add_entrants(sessions, clock, 8)
    loop = asyncio.get_running_loop()
    threads: list[bool] = []

    async def second_session() -> None:
        async with asyncio.timeout(2), transaction(sessions) as session:
            session.add(Setting(key="probe", value=str(len(threads)), updated_at=NOW))
        async with transaction(sessions) as session:
            await session.delete(await session.get(Setting, "probe"))

    def probing_pair_round(*args: object, **kwargs: object) -> list[swiss.Pair]:
        in_worker = threading.current_thread() is not threading.main_thread()
        threads.append(in_worker)
        if in_worker:  # from the loop's own thread this would wait on itself
            asyncio.run_coroutine_threadsafe(second_session(), loop).result(timeout=5)
        return REAL_PAIR_ROUND(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pairing.swiss, "pair_round", probing_pair_round)
    start = await rounds.preview_start()
    published = await rounds.start(td_id=TD_ID)
    assert threads == [True, True]
    assert start.preview is not None and published.lines == start.preview.lines
    assert await round_numbers(sessions) == [1]


async def test_the_monday_pairs_a_round_left_unpaired_after_its_transaction_commits(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rule IV.E: the pairing failed when the round completed (the TD was told); on the
    Monday after, the due action pairs it, once its own transaction has committed."""
    services = wired(sessions, config, clock)
    runner = DueActionRunner(sessions, clock)
    register_timers(services, runner)
    await add_entrants(sessions, clock, 8)
    await services.rounds.start(td_id=TD_ID)
    async with sessions() as session:
        first = (await session.scalars(select(Match.id).order_by(Match.id))).all()

    def no_valid_pairing(*_: object, **__: object) -> list[swiss.Pair]:
        raise ValueError("every remaining pair has met")

    with monkeypatch.context() as patch:
        patch.setattr(pairing.swiss, "pair_round", no_valid_pairing)
        for match_id in first:
            done = await services.rounds.set_score(
                td_id=TD_ID, match_id=match_id, score_a=6, score_b=4, reason=None
            )
        assert done.round_finished and done.next_round is None
        await runner.sweep()  # the sweep does not try again: the TD was told
    assert await round_numbers(sessions) == [1]
    clock.set(datetime(2019, 10, 7, 0, 0, 1, tzinfo=UTC))  # the Monday after round 1
    await runner.sweep()
    await runner.sweep()
    assert await round_numbers(sessions) == [1, 2]
    async with sessions() as session:
        alerts = (
            await session.scalars(
                select(OutboxMessage.content).where(OutboxMessage.target_id == TD_ID)
            )
        ).all()
    assert sum("Round 2 could not be paired" in a for a in alerts) == 1


async def test_the_td_hears_back_at_once_while_a_slow_pairing_runs(
    running_bot: RunningBot,
    config: Config,
    fake: FakeLichess,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pairing a late round of a big field takes a second or two (benchmarks/pairing.py), and
    Discord drops an interaction not answered within 3 s: the TD's /td round set-score and
    /td round publish defer before they pair ("thinking"), then answer in the followup."""
    seen: list[list[str]] = []

    def watched(*args: object, **kwargs: object) -> list[swiss.Pair]:
        seen.append([r.kind for r in h.responses])  # what the TD has seen while it pairs
        return REAL_PAIR_ROUND(*args, **kwargs)  # type: ignore[arg-type]

    async def died(self: SwissNextRound, round_id: int, actor: Actor) -> None:
        return None

    monkeypatch.setattr(pairing.swiss, "pair_round", watched)
    async with running_bot(config) as (bot, h):
        seeded = await eight_player_swiss(bot, h, config, fake)
        await set_scores(h, seeded.match_ids[:-1])
        last = {"match": seeded.match_ids[-1], "score_a": 6, "score_b": 0}
        done = await h.slash("td round set-score", user=TD_ID, options=last)
        assert [r.kind for r in done.responses] == ["deferred", "followup"]
        assert "recorded. Round 2 was paired and published" in done.text, done.text
        assert seen and seen[-1][-1] == "deferred"
        assert await round_numbers(bot.sessions) == [1, 2]
        assert bot.sessions is not None
        async with transaction(bot.sessions) as session:  # round 2 done: the TD publishes 3
            for match in (await session.scalars(select(Match))).all():
                if match.state != MatchState.BYE:
                    match.state, match.points_a, match.points_b = MatchState.FINISHED, 1.0, 0.0
        with monkeypatch.context() as patch:
            patch.setattr(SwissNextRound, "pair_after", died)
            del seen[:]
            published = await h.slash("td round publish", user=TD_ID)
        assert [r.kind for r in published.responses][:2] == ["deferred", "followup"]
        assert "Published Swiss round 3" in published.text, published.text
        assert seen and seen[-1][-1] == "deferred"
