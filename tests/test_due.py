"""Due actions run once when due, never twice, and survive restarts and failures."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.due import MAX_ATTEMPTS, DueActionRunner, cancel, schedule
from bot.outbox import enqueue_dm
from db.engine import transaction
from db.models import DueAction, OutboxMessage


def runner_with_reminder(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock, calls: list[int]
) -> DueActionRunner:
    runner = DueActionRunner(sessions, clock)

    async def remind(session: AsyncSession, action: DueAction, now: datetime) -> None:
        calls.append(action.subject_id)
        enqueue_dm(session, user_id=action.payload["user"], now=now, content="Reminder")

    runner.register("reminder", remind)
    return runner


async def test_runs_once_when_due_even_after_a_restart(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    calls: list[int] = []
    async with transaction(sessions) as session:
        await schedule(
            session,
            kind="reminder",
            subject_type="match",
            subject_id=7,
            due_at=clock.now() + timedelta(hours=1),
            payload={"user": 5},
        )
        # scheduling the same action twice keeps one row
        await schedule(
            session,
            kind="reminder",
            subject_type="match",
            subject_id=7,
            due_at=clock.now() + timedelta(hours=1),
            payload={"user": 5},
        )
    runner = runner_with_reminder(sessions, clock, calls)
    assert await runner.sweep() == 0
    clock.advance(timedelta(hours=1))
    assert await runner.sweep() == 1
    assert await runner.sweep() == 0
    restarted = runner_with_reminder(sessions, clock, calls)
    assert await restarted.sweep() == 0
    assert calls == [7]
    async with sessions() as session:
        messages = (await session.scalars(select(OutboxMessage))).all()
    assert [m.target_id for m in messages] == [5]


async def test_a_failing_action_rolls_back_its_effects_and_is_retried(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    runner = DueActionRunner(sessions, clock)
    attempts: list[int] = []

    async def flaky(session: AsyncSession, action: DueAction, now: datetime) -> None:
        enqueue_dm(session, user_id=1, now=now, content="half done")
        attempts.append(1)
        if len(attempts) < 2:
            raise RuntimeError("transient")

    runner.register("flaky", flaky)
    async with transaction(sessions) as session:
        await schedule(
            session, kind="flaky", subject_type="match", subject_id=1, due_at=clock.now()
        )
    assert await runner.sweep() == 0
    assert await runner.sweep() == 1
    async with sessions() as session:
        assert len((await session.scalars(select(OutboxMessage))).all()) == 1
        action = await session.scalar(select(DueAction))
        assert action is not None and action.attempts == 2 and action.done_at is not None


async def test_gives_up_after_max_attempts(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    runner = DueActionRunner(sessions, clock)

    async def broken(session: AsyncSession, action: DueAction, now: datetime) -> None:
        raise RuntimeError("always")

    runner.register("broken", broken)
    async with transaction(sessions) as session:
        await schedule(session, kind="broken", subject_type="x", subject_id=1, due_at=clock.now())
    for _ in range(MAX_ATTEMPTS + 3):
        await runner.sweep()
    async with sessions() as session:
        action = await session.scalar(select(DueAction))
        assert action is not None and action.attempts == MAX_ATTEMPTS
        assert "always" in (action.last_error or "")


async def test_cancelled_actions_do_not_run(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    calls: list[int] = []
    runner = runner_with_reminder(sessions, clock, calls)
    async with transaction(sessions) as session:
        for subject in (1, 2):
            await schedule(
                session,
                kind="reminder",
                subject_type="match",
                subject_id=subject,
                due_at=clock.now(),
                payload={"user": 5},
            )
        await cancel(session, subject_type="match", subject_id=1, now=clock.now())
    assert await runner.sweep() == 1
    assert calls == [2]


async def test_sweep_steps_run_every_sweep_and_a_failing_one_does_not_stop_it(
    sessions: async_sessionmaker[AsyncSession], clock: FakeClock
) -> None:
    calls: list[int] = []
    runner = runner_with_reminder(sessions, clock, calls)
    ran: list[str] = []

    async def broken() -> None:
        ran.append("broken")
        raise RuntimeError("Lichess is down")

    async def links() -> None:
        ran.append("links")

    runner.add_step("broken", broken)
    runner.add_step("links", links)
    async with transaction(sessions) as session:
        await schedule(
            session,
            kind="reminder",
            subject_type="match",
            subject_id=3,
            due_at=clock.now(),
            payload={"user": 5},
        )
    assert await runner.sweep() == 1
    assert await runner.sweep() == 0
    assert ran == ["broken", "links", "broken", "links"]
    assert calls == [3]
