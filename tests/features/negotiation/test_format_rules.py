"""The negotiation deadlines ask the format: the week's days (a 2021 week: offers due by
Friday 23:59:59, checked at Saturday 00:00), what both players' missing offers give
(`format.no_offers`) and what nobody at fault gives (`format.no_fault`)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config, with_preset
from bot.due import DueActionRunner, DueKind
from bot.errors import WrongStage
from bot.features.discipline.common import count_forfeits
from bot.wiring import Services
from db.models import (
    AuditEntry,
    DueAction,
    Match,
    MatchState,
    OutboxMessage,
    Player,
    Round,
    RoundState,
)
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.factories import ROUND_THREAD, SeededRound, seed_round, wired

ALICE, BOB, CAROL, DAVE = 101, 102, 103, 104
PLAYERS = [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")]
WEEK_2024: dict[str, Any] = {
    "start": "tuesday",
    "round_end": {"weekday": "monday", "time": "23:59:59"},
    "offers_due": {"weekday": "friday", "time": "23:59:59"},
    "weekend": {"weekday": "saturday", "time": "00:00"},
}
TUESDAY = datetime(2019, 10, 1, tzinfo=UTC)
NEXT_MONDAY_END = datetime(2019, 10, 7, 23, 59, 59, tzinfo=UTC)
MONDAY = datetime(2019, 9, 30, tzinfo=UTC)
SUNDAY_END = datetime(2019, 10, 6, 23, 59, 59, tzinfo=UTC)


def with_format(config: Config, **changes: Any) -> Config:
    """The test config (its Discord ids, database, fake Lichess) over the 2019 preset with
    these format changes."""
    fresh = Config.model_validate(with_preset({"preset": "acwc-2019", "format": changes}))
    return fresh.model_copy(
        update={"discord": config.discord, "database": config.database, "lichess": config.lichess}
    )


async def setup(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    *,
    starts_at: datetime = MONDAY,
    deadline: datetime = SUNDAY_END,
) -> tuple[Services, DueActionRunner, SeededRound]:
    clock.set(starts_at)
    services = wired(sessions, config, clock)
    runner = DueActionRunner(sessions, clock)
    for kind, handler in services.deadlines.due_handlers().items():
        runner.register(kind, handler)
    seeded = await seed_round(sessions, config, PLAYERS, starts_at=starts_at, deadline=deadline)
    return services, runner, seeded


async def outbox(sessions: async_sessionmaker[AsyncSession]) -> list[OutboxMessage]:
    async with sessions() as session:
        return list((await session.scalars(select(OutboxMessage).order_by(OutboxMessage.id))).all())


async def posts(sessions: async_sessionmaker[AsyncSession], target: int) -> list[str]:
    return [m.content for m in await outbox(sessions) if m.target_id == target]


async def match(sessions: async_sessionmaker[AsyncSession], match_id: int) -> Match:
    async with sessions() as session:
        row = await session.get(Match, match_id)
        assert row is not None
        return row


async def forfeits_of(sessions: async_sessionmaker[AsyncSession], player_id: int) -> int:
    async with sessions() as session:
        return await count_forfeits(session, player_id)


# --- the week ----------------------------------------------------------------------------------


async def test_a_2021_week_checks_the_offers_at_saturday(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    config = with_format(config, week=WEEK_2024)
    services, runner, seeded = await setup(
        sessions, config, clock, starts_at=TUESDAY, deadline=NEXT_MONDAY_END
    )
    async with sessions() as session:
        due = {
            a.kind: a.due_at
            for a in await session.scalars(
                select(DueAction).where(DueAction.subject_id == seeded.match_ids[0])
            )
        }
    saturday = datetime(2019, 10, 5, tzinfo=UTC)
    assert due[DueKind.OFFERS_DUE] == saturday and due[DueKind.WEEKEND_CHECK] == saturday
    # Friday's last second still counts: nothing is decided yet
    clock.set(datetime(2019, 10, 4, 23, 59, 59, tzinfo=UTC))
    await runner.sweep()
    assert not (await match(sessions, seeded.match_ids[0])).td_assigns
    # Thursday 00:00, the 2019 deadline, was not one: an offer on Friday still counts
    await services.offers.offer(discord_id=ALICE, text="sat 10:00, sat 18:00, sun 12:00")
    clock.set(saturday)
    await runner.sweep()
    m = await match(sessions, seeded.match_ids[0])
    assert m.chooser_id == seeded.player_ids["Alice"]  # Bob missed them (rule V.E)
    assert (await match(sessions, seeded.match_ids[1])).td_assigns  # both missed: 2019's V.F


async def test_the_weekend_alert_names_the_formats_weekend(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    week = {**WEEK_2024, "weekend": {"weekday": "sunday", "time": "12:00"}}
    config = with_format(config, week=week)
    services, runner, _seeded = await setup(
        sessions, config, clock, starts_at=TUESDAY, deadline=NEXT_MONDAY_END
    )
    await services.offers.offer(discord_id=ALICE, text="sat 10:00, sat 18:00, sun 18:00")
    await services.offers.offer(discord_id=BOB, text="sat 08:00, sat 20:00, sun 20:00")
    clock.set(datetime(2019, 10, 6, 12, 0, 5, tzinfo=UTC))
    await runner.sweep()
    td = [t for t in await posts(sessions, TD_ID) if "/td negotiation fault" in t]
    assert len(td) == 1 and "no time agreed by Sunday 12:00 UTC" in td[0]


# --- both made no offers (format.no_offers) ----------------------------------------------------


async def test_2019_both_missing_the_offers_leaves_the_time_to_the_td(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    config = with_format(config)
    _services, runner, seeded = await setup(sessions, config, clock)
    clock.set(datetime(2019, 10, 3, 0, 0, 5, tzinfo=UTC))
    await runner.sweep()
    m = await match(sessions, seeded.match_ids[0])
    assert m.td_assigns and m.state is MatchState.NEGOTIATING
    assert await forfeits_of(sessions, seeded.player_ids["Alice"]) == 0


async def test_no_offers_is_a_draw_with_a_forfeit_each(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    config = with_format(config, no_offers="draw_both_forfeit_a_game")
    _services, runner, seeded = await setup(sessions, config, clock)
    clock.set(datetime(2019, 10, 3, 0, 0, 5, tzinfo=UTC))
    await runner.sweep()
    m = await match(sessions, seeded.match_ids[0])
    assert m.state is MatchState.FINISHED and not m.td_assigns
    assert (m.score_a, m.score_b, m.points_a, m.points_b) == (5.0, 5.0, 0.5, 0.5)
    thread = await posts(sessions, ROUND_THREAD)
    said = [t for t in thread if "draw" in t and f"<@{ALICE}>" in t and f"<@{BOB}>" in t]
    assert len(said) == 1
    assert "both players will count as having forfeited a game" in said[0]
    assert "5-5" in said[0] and "rule VI.F" in said[0]
    for name in ("Alice", "Bob", "Carol", "Dave"):
        assert await forfeits_of(sessions, seeded.player_ids[name]) == 1
    td = "\n".join(await posts(sessions, TD_ID))
    assert "Alice now has 1 forfeit(s)" in td and "Bob now has 1 forfeit(s)" in td
    # both matches decided: the round closes as for any result
    async with sessions() as session:
        round_ = await session.get(Round, seeded.round_id)
        assert round_ is not None and round_.state is not RoundState.PUBLISHED
    # the weekend check has nothing left to do
    clock.set(datetime(2019, 10, 5, 0, 0, 5, tzinfo=UTC))
    before = len(await posts(sessions, TD_ID))
    await runner.sweep()
    assert len(await posts(sessions, TD_ID)) == before


async def test_a_second_forfeit_disqualifies(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    config = with_format(config, no_offers="draw_both_forfeit_a_game")
    _services, runner, seeded = await setup(sessions, config, clock)
    alice, carol = seeded.player_ids["Alice"], seeded.player_ids["Carol"]
    async with sessions() as session, session.begin():
        # an earlier match Alice lost by forfeit (rule VI.F counts it)
        session.add(
            Match(
                round_id=seeded.round_id,
                board=9,
                player_a_id=alice,
                player_b_id=carol,
                state=MatchState.FORFEITED,
                forfeit_winner_id=carol,
                points_a=0.0,
                points_b=1.0,
                score_a=0.0,
                score_b=0.0,
                td_assigns=False,
            )
        )
    assert await forfeits_of(sessions, alice) == 1
    clock.set(datetime(2019, 10, 3, 0, 0, 5, tzinfo=UTC))
    await runner.sweep()
    assert await forfeits_of(sessions, alice) == 2
    async with sessions() as session:
        player = await session.get(Player, alice)
        bob = await session.get(Player, seeded.player_ids["Bob"])
        assert player is not None and player.disqualified_at is not None
        assert bob is not None and bob.disqualified_at is None
    announced = "\n".join(await posts(sessions, ANNOUNCE_CHANNEL))
    assert "Alice" in announced and "forfeited 2 matches (rule VI.F)" in announced
    m = await match(sessions, seeded.match_ids[0])
    assert m.state is MatchState.FINISHED and (m.points_a, m.points_b) == (0.5, 0.5)


async def test_a_score_set_after_the_ruled_draw_takes_its_forfeits_back(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    config = with_format(config, no_offers="draw_both_forfeit_a_game")
    _services, runner, seeded = await setup(sessions, config, clock)
    clock.set(datetime(2019, 10, 3, 0, 0, 5, tzinfo=UTC))
    await runner.sweep()
    alice = seeded.player_ids["Alice"]
    assert await forfeits_of(sessions, alice) == 1
    async with sessions() as session, session.begin():
        ruled = await session.scalar(
            select(AuditEntry).where(AuditEntry.action == "match_ruled_draw")
        )
        assert ruled is not None
        session.add(
            AuditEntry(
                at=datetime(2019, 10, 4, tzinfo=UTC),
                actor_type="td",
                actor_id=TD_ID,
                action="score_set",
                subject_type="match",
                subject_id=ruled.subject_id,
                details={},
            )
        )
    assert await forfeits_of(sessions, alice) == 0


# --- nobody at fault (format.no_fault) ---------------------------------------------------------


async def test_nobody_at_fault_is_a_draw_when_the_format_says_so(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    config = with_format(config, no_fault="draw")
    services, _runner, seeded = await setup(sessions, config, clock)
    match_id = seeded.match_ids[0]
    ruling = await services.rulings.rule_fault(td_id=TD_ID, match_id=match_id, player_name="nobody")
    assert ruling.drawn and ruling.at_fault is None and ruling.chooser is None
    m = await match(sessions, match_id)
    assert m.state is MatchState.FINISHED and not m.td_assigns
    assert (m.score_a, m.score_b, m.points_a, m.points_b) == (5.0, 5.0, 0.5, 0.5)
    said = [t for t in await posts(sessions, ROUND_THREAD) if "nobody is at fault" in t]
    assert len(said) == 1 and f"<@{ALICE}>" in said[0] and f"<@{BOB}>" in said[0]
    assert "if no player is at fault then the match will be ruled as a draw" in said[0]
    assert "no forfeit is counted" in said[0]
    assert await forfeits_of(sessions, seeded.player_ids["Alice"]) == 0
    assert not any("assign-time" in t for t in await posts(sessions, TD_ID))
    with pytest.raises(WrongStage):  # the match is over
        await services.rulings.rule_fault(td_id=TD_ID, match_id=match_id, player_name="nobody")


async def test_2019_nobody_at_fault_still_leaves_the_time_to_the_td(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    config = with_format(config)
    services, _runner, seeded = await setup(sessions, config, clock)
    match_id = seeded.match_ids[0]
    ruling = await services.rulings.rule_fault(td_id=TD_ID, match_id=match_id, player_name="nobody")
    assert not ruling.drawn
    m = await match(sessions, match_id)
    assert m.td_assigns and m.state is MatchState.NEGOTIATING
