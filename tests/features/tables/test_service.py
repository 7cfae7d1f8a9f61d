"""Standings and pairings read from the database, and the post after each round."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from PIL import Image
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor
from bot.clock import FakeClock
from bot.config import Config
from bot.errors import InvalidInput, WrongStage
from bot.events import RoundComplete
from bot.features.tables import text as wording
from bot.features.tables.render import render_png
from bot.rules import swiss_table as swiss_rules
from bot.wiring import Services
from db.engine import transaction
from db.models import (
    Game,
    Match,
    MatchState,
    OutboxMessage,
    Player,
    Round,
    RoundState,
    Stage,
    StageKind,
    StageState,
)
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.factories import (
    ROUND_START,
    SeededRound,
    open_stage,
    seed_round,
    wired,
)

FOUR = [(101, "Alice"), (102, "Bob"), (104, "Carol"), (105, "Dave")]
AGREED = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)


@pytest.fixture
def services(sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock):
    clock.set(datetime(2019, 10, 5, 12, 0, tzinfo=UTC))
    return wired(sessions, config, clock)


async def announced(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    async with sessions() as session:
        rows = await session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.target_id == ANNOUNCE_CHANNEL)
            .order_by(OutboxMessage.id)
        )
        return [m.content for m in rows]


async def add_games(
    sessions: async_sessionmaker[AsyncSession],
    match_id: int,
    results_a: list[float],
    *,
    voided: int | None = None,
    prefix: str = "g",
) -> list[str]:
    """Games of the match, colours alternating from player a; game `voided` not counted."""
    async with transaction(sessions) as session:
        match = await session.get(Match, match_id)
        assert match is not None and match.player_b_id is not None
        ids = []
        for number, result in enumerate(results_a, start=1):
            a_white = number % 2 == 1
            lichess_id = f"{prefix}{match_id:03d}{number:02d}"
            ids.append(lichess_id)
            session.add(
                Game(
                    match_id=match.id,
                    lichess_id=lichess_id,
                    number=number,
                    white_player_id=match.player_a_id if a_white else match.player_b_id,
                    black_player_id=match.player_b_id if a_white else match.player_a_id,
                    status="variantEnd",
                    result_a=result,
                    counted=number != voided,
                    voided_reason="played twice" if number == voided else None,
                    created_at=AGREED,
                )
            )
    return ids


async def test_swiss_standings_are_the_rules_table_and_post_after_the_round(
    services: Services, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    seeded = await seed_round(sessions, config, FOUR)
    first, second = seeded.match_ids
    await services.rounds.set_score(
        td_id=TD_ID, match_id=first, score_a=5.5, score_b=1, reason=None
    )
    table = await services.tables.standings()
    assert table.title == "Qualification standings · ACWC 2019, round 1 of 5 in progress"
    # Bob ahead of Carol and Dave on Median-Buchholz (he met Alice); Carol and Dave, still to
    # play each other (a bare number), are equal on everything.
    assert table.rows == (
        ("1", "Alice", "1", "0", "0", "+2"),
        ("2", "Bob", "0", "0", "1", "-1"),
        ("3", "Carol", "0", "0", "0", "4"),
        ("4", "Dave", "0", "0", "0", "3"),
    )
    assert "Shared ranks (equal on every tiebreak): No 3-4." in table.footnote
    assert not any("Qualification standings" in c for c in await announced(sessions))

    await services.rounds.set_score(td_id=TD_ID, match_id=second, score_a=3, score_b=7, reason=None)
    # One post after round 1, though round 2 was paired in the same transaction.
    posts = [c for c in await announced(sessions) if "Qualification standings" in c]
    assert len(posts) == 1
    post = posts[0]
    assert post.startswith("**Qualification standings · ACWC 2019, after round 1 of 5**\n```")
    assert len(post) <= 2000
    results = [("alice", "bob", 1.0, 0.0), ("carol", "dave", 0.0, 1.0)]
    expected = swiss_rules.standings(["alice", "bob", "carol", "dave"], results)
    names = {"alice": "Alice", "bob": "Bob", "carol": "Carol", "dave": "Dave"}
    header, _, *lines = post.split("```")[1].strip("\n").splitlines()
    assert header.split() == ["No", "Player", "Pts", "WvT", "MBH", "R1"]  # round 2 not yet
    assert [line[2:].split()[1:6] for line in lines] == [  # after the "* " mark column
        [names[s.player], f"{s.points:g}", str(s.wins_vs_tied), f"{s.median_buchholz:g}", cell]
        for s, cell in zip(expected, ["+3", "+4", "-1", "-2"], strict=True)
    ]
    now = await services.tables.standings()
    assert "round 2 of 5 in progress" in now.title and now.headers[-1] == "R2"


async def test_the_picture_of_the_standings(
    services: Services, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await seed_round(sessions, config, FOUR)
    image = Image.open(io.BytesIO(render_png(await services.tables.standings())))
    assert image.format == "PNG" and 800 <= image.width <= 1600 and 200 < image.height < 800


async def test_stages_that_have_not_started(services: Services, sessions, config) -> None:
    with pytest.raises(WrongStage, match="has not started yet"):
        await services.tables.standings()
    with pytest.raises(WrongStage, match="has not started yet"):
        await services.tables.pairings()
    await seed_round(sessions, config, FOUR)
    with pytest.raises(WrongStage, match="The Candidates have not started yet"):
        await services.tables.standings(StageKind.CANDIDATES)
    with pytest.raises(WrongStage, match="The Final has not started yet"):
        await services.tables.standings(StageKind.FINAL)
    assert wording.not_started("final") == "The Final has not started yet."


async def stage_with_round(
    sessions: async_sessionmaker[AsyncSession],
    kind: StageKind,
    names: list[str],
    pairs: list[tuple[int, int, MatchState, float, float]],
    *,
    forfeit_winner: dict[int, int] | None = None,
) -> tuple[dict[str, int], list[int]]:
    """A stage of `kind` with one finished round of the given boards (indices into names)."""
    async with transaction(sessions) as session:
        swiss = await session.scalar(select(Stage).where(Stage.kind == StageKind.SWISS))
        if swiss is not None:
            swiss.state = StageState.FINISHED
        players = [
            Player(lichess_id=n.lower(), lichess_username=n, created_at=ROUND_START) for n in names
        ]
        session.add_all(players)
        await session.flush()
        round_ = await open_stage(
            session,
            kind,
            [p.id for p in players],
            total_rounds=3,
            round_state=RoundState.FINISHED,
        )
        matches = []
        for board, (a, b, state, score_a, score_b) in enumerate(pairs, start=1):
            winner = (forfeit_winner or {}).get(board)
            matches.append(
                Match(
                    round_id=round_.id,
                    board=board,
                    player_a_id=players[a].id,
                    player_b_id=players[b].id,
                    state=state,
                    score_a=score_a,
                    score_b=score_b,
                    points_a=None if state is MatchState.FORFEITED and winner is None else 1,
                    points_b=None if state is MatchState.FORFEITED and winner is None else 0,
                    forfeit_winner_id=players[winner].id if winner is not None else None,
                    agreed_time=AGREED,
                    td_assigns=False,
                )
            )
        session.add_all(matches)
        await session.flush()
        return {p.lichess_username: p.id for p in players}, [m.id for m in matches]


async def test_candidates_crosstable_from_the_database(
    services: Services, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await seed_round(sessions, config, FOUR)
    await stage_with_round(
        sessions,
        StageKind.CANDIDATES,
        ["Ann", "Cid", "Eve", "Ogul1"],
        [
            (0, 3, MatchState.FINISHED, 6, 4),
            (1, 2, MatchState.FORFEITED, 0, 0),  # disregarded: no winner (rule VIII.B)
        ],
    )
    table = await services.tables.standings()  # the current stage: the Candidates
    assert table.title == "Candidates crosstable · ACWC 2019, after round 1 of 3"
    assert table.rows == (
        ("1", "Ann", "x", "6", "", "", "1", "6"),
        ("2", "Ogul1", "4", "x", "", "", "0", "4"),
        ("3", "Cid", "", "", "x", "", "0", "0"),
        ("4", "Eve", "", "", "", "x", "0", "0"),
    )
    assert table.highlight == (True, False, False, False)
    assert "Shared ranks (equal on every tiebreak): No 3-4." in table.footnote
    swiss = await services.tables.standings(StageKind.SWISS)  # an earlier stage on request
    assert swiss.title.startswith("Qualification standings")


async def test_a_forfeit_with_a_winner_counts_as_every_game(services: Services, sessions) -> None:
    await stage_with_round(
        sessions,
        StageKind.CANDIDATES,
        ["Ann", "Cid"],
        [(0, 1, MatchState.FORFEITED, 0, 0)],
        forfeit_winner={1: 1},
    )
    table = await services.tables.standings(StageKind.CANDIDATES)
    assert table.rows[0][:2] == ("1", "Cid") and table.rows[0][-2:] == ("1", "10")


async def test_final_game_by_game_from_the_database(
    services: Services, sessions: async_sessionmaker[AsyncSession]
) -> None:
    _, [match_id] = await stage_with_round(
        sessions, StageKind.FINAL, ["Arimakat", "Chal"], [(0, 1, MatchState.IN_PROGRESS, 0, 0)]
    )
    # 7-5 after 12 games (rule III.G.2), with a voided game between the third and fourth.
    counted = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.5, 0.5, 1.0]
    await add_games(sessions, match_id, [*counted[:3], 1.0, *counted[3:]], voided=4)
    table = await services.tables.standings()
    assert table.title == "Final · ACWC 2019: Arimakat vs Chal"
    assert len(table.rows) == 13 and table.rows[-1] == ("", "", "", "", "Total", "7-5")
    assert table.rows[0] == ("1", "2+5", "Arimakat", "Chal", "1-0", "1-0")
    # the voided game is left out: the fourth counted game was the fifth played
    assert table.rows[3] == ("4", "2+5", "Arimakat", "Chal", "0-1", "2-2")
    assert table.rows[11] == ("12", "2+5", "Arimakat", "Chal", "1-0", "7-5")
    assert {row[1] for row in table.rows[:-1]} == {"2+5"}
    assert "Arimakat wins the Final." in table.footnote
    assert table == await services.tables.standings(StageKind.FINAL)


async def test_pairings_with_times_results_and_game_links(
    services: Services, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    seeded: SeededRound = await seed_round(sessions, config, [*FOUR, (106, "Eve")])
    first, second, _bye = seeded.match_ids
    async with transaction(sessions) as session:
        scheduled = await session.get(Match, second)
        assert scheduled is not None
        scheduled.agreed_time, scheduled.state = AGREED, MatchState.SCHEDULED
    games = await add_games(sessions, first, [1.0] * 6, voided=2)
    async with transaction(sessions) as session:
        done = await session.get(Match, first)
        assert done is not None
        done.state, done.score_a, done.score_b = MatchState.FINISHED, 5.0, 0.0
        done.points_a, done.points_b = 1.0, 0.0
    view = await services.tables.pairings()
    assert (view.stage, view.number, view.total_rounds, view.finished) == ("Swiss", 1, 5, False)
    assert [b.games for b in view.boards] == [tuple(g for g in games if g != games[1]), (), ()]
    text = wording.pairings_text(view)
    assert text.startswith("**Swiss round 1 of 5** · until <t:")
    assert "1. **Alice** vs **Bob** · **5–0** · games [1](<https://lichess.org/" in text
    for game in games:
        assert (f"https://lichess.org/{game}" in text) is (game != games[1])
    assert f"2. **Carol** vs **Dave** · <t:{int(AGREED.timestamp())}:F>" in text
    assert "3. **Eve**: bye" in text
    assert len(text) < 2000
    assert await services.tables.pairings(1) == view
    with pytest.raises(InvalidInput, match="no round 2"):
        await services.tables.pairings(2)


async def test_long_pairings_stay_under_discords_limit(services: Services, sessions, config):
    field = [(None, f"Player_{i:02d}_with_a_long_name") for i in range(40)]
    seeded = await seed_round(sessions, config, field)
    for match_id in seeded.match_ids:
        await add_games(sessions, match_id, [1.0] * 6, prefix="x")
    text = wording.pairings_text(await services.tables.pairings())
    assert len(text) <= 2000
    assert "Player\\_00\\_with\\_a\\_long\\_name" in text  # names escaped for Markdown
    # too long with the links: the game counts instead, then the last boards give way
    assert "https://lichess.org/" not in text and "· 6 game(s)" in text
    assert text.endswith("more boards (see the round's pairings post).")


async def test_a_table_that_cannot_be_built_never_undoes_the_round(
    services: Services, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """A Final round closed without its match (set up by hand): no post, no error."""
    await stage_with_round(sessions, StageKind.FINAL, ["Arimakat", "Chal"], [])
    async with sessions() as session:
        stage = await session.scalar(select(Stage).where(Stage.kind == StageKind.FINAL))
        round_ = await session.scalar(select(Round))
    assert stage is not None and round_ is not None
    async with transaction(sessions) as session:
        event = RoundComplete(Actor.job(), round_id=round_.id, stage_id=stage.id)
        await services.tables.events.publish(session, event, datetime(2019, 10, 7, tzinfo=UTC))
    assert await announced(sessions) == []
