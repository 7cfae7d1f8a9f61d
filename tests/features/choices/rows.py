"""Rows the pick lists read, put straight into the DB: more rounds, registrations, reports,
games and incidents beside the round `tests.factories.seed_round` seeds."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.engine import transaction
from db.models import (
    CheatReport,
    Game,
    IncidentKind,
    IncidentState,
    Match,
    MatchIncident,
    MatchState,
    Player,
    Registration,
    RegistrationState,
    ReportState,
    Round,
    RoundState,
    Stage,
    StageKind,
    StageState,
)
from tests.factories import ROUND_DEADLINE, ROUND_START, stage_row

Sessions = async_sessionmaker[AsyncSession]


async def player(session: AsyncSession, name: str) -> Player:
    """The player of that name, created when the DB has none."""
    found = await session.scalar(select(Player).where(Player.lichess_id == name.lower()))
    if found is None:
        found = Player(lichess_id=name.lower(), lichess_username=name, created_at=ROUND_START)
        session.add(found)
        await session.flush()
    return found


async def add_match(
    sessions: Sessions,
    kind: StageKind,
    number: int,
    a: str,
    b: str,
    *,
    board: int = 1,
    state: MatchState = MatchState.NEGOTIATING,
    weeks_later: int = 1,
) -> int:
    """A match in round `number` of the `kind` stage (created if need be), `weeks_later`
    weeks after the seeded round."""
    starts_at = ROUND_START + timedelta(weeks=weeks_later)
    async with transaction(sessions) as session:
        stage = await session.scalar(select(Stage).where(Stage.kind == kind))
        if stage is None:
            stage = stage_row(kind, state=StageState.RUNNING, seeding=[], started_at=starts_at)
            session.add(stage)
            await session.flush()
        round_ = await session.scalar(
            select(Round).where(Round.stage_id == stage.id, Round.number == number)
        )
        if round_ is None:
            round_ = Round(
                stage_id=stage.id,
                number=number,
                state=RoundState.PUBLISHED,
                starts_at=starts_at,
                deadline=ROUND_DEADLINE + timedelta(weeks=weeks_later),
            )
            session.add(round_)
            await session.flush()
        match = Match(
            round_id=round_.id,
            player_a_id=(await player(session, a)).id,
            player_b_id=(await player(session, b)).id,
            board=board,
            state=state,
            td_assigns=False,
            score_a=0.0,
            score_b=0.0,
        )
        session.add(match)
        await session.flush()
        return match.id


async def add_registration(
    sessions: Sessions,
    name: str,
    state: RegistrationState = RegistrationState.PENDING,
    seed: float | None = 2150.0,
) -> int:
    async with transaction(sessions) as session:
        row = Registration(
            player_id=(await player(session, name)).id,
            state=state,
            problems=[],
            evidence={},
            seeding_rating=seed,
            created_at=ROUND_START,
            updated_at=ROUND_START,
        )
        session.add(row)
        await session.flush()
        return row.id


async def add_report(
    sessions: Sessions, reporter_discord_id: int, accused: str, state: ReportState
) -> int:
    async with transaction(sessions) as session:
        row = CheatReport(
            reporter_discord_id=reporter_discord_id,
            accused_player_id=(await player(session, accused)).id,
            game_links="https://lichess.org/abcdEFGH",
            description="too accurate",
            state=state,
            created_at=ROUND_START,
            updated_at=ROUND_START,
        )
        session.add(row)
        await session.flush()
        return row.id


async def add_game(
    sessions: Sessions,
    match_id: int,
    lichess_id: str,
    number: int,
    *,
    at: datetime,
    counted: bool = True,
) -> None:
    """Game `number` of the match, the first player white in odd games."""
    async with transaction(sessions) as session:
        match = await session.get(Match, match_id)
        assert match is not None and match.player_b_id is not None
        a, b = match.player_a_id, match.player_b_id
        white, black = (a, b) if number % 2 else (b, a)
        session.add(
            Game(
                match_id=match_id,
                lichess_id=lichess_id,
                number=number,
                white_player_id=white,
                black_player_id=black,
                status="variantEnd",
                winner="white",
                result_a=1.0 if white == a else 0.0,
                counted=counted,
                created_at=at,
                ended_at=at + timedelta(minutes=8),
            )
        )


async def add_incident(
    sessions: Sessions,
    match_id: int,
    kind: IncidentKind,
    state: IncidentState = IncidentState.OPEN,
) -> int:
    async with transaction(sessions) as session:
        match = await session.get(Match, match_id)
        assert match is not None
        row = MatchIncident(
            match_id=match_id,
            kind=kind,
            state=state,
            reporter_id=match.player_a_id,
            against_id=match.player_b_id,
            created_at=ROUND_START,
            details={},
        )
        session.add(row)
        await session.flush()
        return row.id
