"""Approved entrants written straight into the database, for tests of the later stages.

Registration is closed with them (the TD's override, as `/td registration close` writes
it, without its audit row or the public field post): round 1 is only published once
registration is closed, and these tests are about what comes after."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import ColumnElement, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.registration_window import WINDOW_OVERRIDE_KEY
from db.engine import transaction
from db.models import (
    Match,
    MatchState,
    Player,
    Registration,
    RegistrationState,
    Round,
    Setting,
    Stage,
)
from tests.conftest import TD_ID

if TYPE_CHECKING:
    from bot.app import ChampionshipBot
    from tests.harness import DiscordHarness


async def add_entrants(
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
    count: int,
    *,
    first_discord_id: int = 500,
    top_rating: float = 2400.0,
    close_registration: bool = True,
) -> list[Player]:
    """`count` approved players, P01 best seeded, with Discord ids from `first_discord_id`;
    registration closed unless `close_registration` is false."""
    now = clock.now()
    players = []
    async with transaction(sessions) as session:
        for index in range(count):
            rating = top_rating - 10 * index
            player = Player(
                lichess_id=f"p{index + 1:02d}",
                lichess_username=f"P{index + 1:02d}",
                discord_id=first_discord_id + index,
                seeding_rating=rating,
                created_at=now,
            )
            session.add(player)
            await session.flush()
            session.add(
                Registration(
                    player_id=player.id,
                    state=RegistrationState.APPROVED,
                    problems=[],
                    evidence={},
                    seeding_rating=rating,
                    created_at=now,
                    updated_at=now,
                )
            )
            players.append(player)
        if close_registration and await session.get(Setting, WINDOW_OVERRIDE_KEY) is None:
            session.add(Setting(key=WINDOW_OVERRIDE_KEY, value="closed", updated_at=now))
    return players


async def publish_round_one(
    bot: ChampionshipBot, h: DiscordHarness, clock: Clock, count: int
) -> None:
    """`count` entrants in, then the TD starts the Swiss through `/td round start` and
    presses Publish: round 1 is out."""
    assert bot.sessions is not None
    await add_entrants(bot.sessions, clock, count)
    preview = await h.slash("td round start", user=TD_ID)
    await h.press(h.buttons(preview.last)[0]["custom_id"], user=TD_ID, message=preview.last)


async def unplayed_matches(
    sessions: async_sessionmaker[AsyncSession], *stage: ColumnElement[bool]
) -> list[tuple[int, str, str]]:
    """(match id, player a, player b) of the matches still to be played in the one stage
    row `stage` selects (by kind, or by key and pool), in round and board order."""
    async with sessions() as session:
        row = await session.scalar(select(Stage).where(*stage))
        assert row is not None, stage
        rows = (
            await session.scalars(
                select(Match)
                .join(Round, Match.round_id == Round.id)
                .where(Round.stage_id == row.id, Match.state == MatchState.NEGOTIATING)
                .order_by(Round.number, Match.board)
            )
        ).all()
        names = {p.id: p.lichess_username for p in await session.scalars(select(Player))}
    return [(m.id, names[m.player_a_id], names[m.player_b_id or 0]) for m in rows]
