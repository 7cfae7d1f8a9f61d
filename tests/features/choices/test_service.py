"""The TD's pick lists: what each entry is called, what it stands for, filtering, the limits."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.features.choices.service import LIMIT, ChoicesService
from bot.lichess.client import LichessClient
from db.engine import transaction
from db.models import (
    IncidentKind,
    IncidentState,
    MatchState,
    Player,
    RegistrationState,
    ReportState,
    StageKind,
)
from tests.factories import seed_round, wired
from tests.fakes.lichess import FakeLichess
from tests.features.choices.rows import (
    add_game,
    add_incident,
    add_match,
    add_registration,
    add_report,
)
from tests.results_helpers import AGREED, play, swiss_match

FIVE = [(101, "Alice"), (102, "Bob"), (None, "Carol"), (None, "Dave"), (None, "Eve")]


@pytest.fixture
def choices(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> ChoicesService:
    return wired(sessions, config, clock).choices


async def test_matches_are_named_by_round_board_and_players_without_the_bye(
    choices: ChoicesService, sessions, config
) -> None:
    seeded = await seed_round(sessions, config, FIVE)
    first, second, bye = seeded.match_ids
    assert await choices.matches("") == [
        ("Swiss round 1, board 1: Alice vs Bob (negotiating)", first),
        ("Swiss round 1, board 2: Carol vs Dave (negotiating)", second),
    ]
    assert bye not in [value for _, value in await choices.matches("eve")]
    assert await choices.matches("eve") == []
    assert await choices.matches("  cAROL ") == [
        ("Swiss round 1, board 2: Carol vs Dave (negotiating)", second)
    ]
    assert await choices.matches("alice vs") == [
        ("Swiss round 1, board 1: Alice vs Bob (negotiating)", first)
    ]


async def test_a_match_is_found_by_its_place_never_its_row_id(
    choices: ChoicesService, sessions, config
) -> None:
    """Issue 32: no text shows a match's row id, so typing one finds nothing by it; the TD
    types the round, the board or a player."""
    seeded = await seed_round(sessions, config, FIVE)
    first, second, bye = seeded.match_ids
    assert [value for _, value in await choices.matches("round 1")] == [first, second]
    assert [value for _, value in await choices.matches("board 2")] == [second]
    assert await choices.matches(f"#{first}") == []  # no name holds a row id
    assert all(str(bye) not in name for name, _ in await choices.matches(""))


async def test_every_stage_is_labelled_and_the_newest_round_comes_first(
    choices: ChoicesService, sessions, config
) -> None:
    seeded = await seed_round(sessions, config, FIVE)
    tiebreak = await add_match(sessions, StageKind.TIEBREAK, 1, "Alice", "Bob", weeks_later=5)
    in_progress = MatchState.IN_PROGRESS
    candidates = await add_match(
        sessions, StageKind.CANDIDATES, 2, "Carol", "Dave", state=in_progress, weeks_later=8
    )
    final = await add_match(
        sessions, StageKind.FINAL, 1, "Alice", "Carol", state=MatchState.SCHEDULED, weeks_later=12
    )
    swiss_two = await add_match(sessions, StageKind.SWISS, 2, "Bob", "Eve", board=3)
    assert await choices.matches("") == [
        ("Final: Alice vs Carol (scheduled)", final),
        ("Candidates round 2, board 1: Carol vs Dave (in progress)", candidates),
        ("Tiebreak round 1, board 1: Alice vs Bob (negotiating)", tiebreak),
        ("Swiss round 2, board 3: Bob vs Eve (negotiating)", swiss_two),
        ("Swiss round 1, board 1: Alice vs Bob (negotiating)", seeded.match_ids[0]),
        ("Swiss round 1, board 2: Carol vs Dave (negotiating)", seeded.match_ids[1]),
    ]
    assert [value for _, value in await choices.matches("final")] == [final]


async def test_at_most_25_names_of_at_most_100_characters(
    choices: ChoicesService, sessions, config
) -> None:
    players = [(None, f"player{index:02d}") for index in range(60)]
    seeded = await seed_round(sessions, config, players)
    found = await choices.matches("")
    assert len(found) == LIMIT == 25
    assert [value for _, value in found] == seeded.match_ids[:25]  # board order
    assert len(await choices.matches("player")) == 25
    assert len(await choices.players("")) == 25
    assert [value for _, value in await choices.matches("player59")] == [seeded.match_ids[29]]

    long_a, long_b = "a" * 30, "b" * 30  # Lichess names are at most 30 characters
    ident = await add_match(
        sessions, StageKind.TIEBREAK, 10, long_a, long_b, board=10, state=MatchState.IN_PROGRESS
    )
    (name, value), *_ = await choices.matches(long_a)
    assert value == ident and len(name) == 100 and name.endswith("…")
    assert name.startswith(f"Tiebreak round 10, board 10: {long_a} vs {long_b}")


async def test_players_by_name_with_where_they_stand(
    choices: ChoicesService, sessions, config, clock: FakeClock
) -> None:
    seeded = await seed_round(sessions, config, FIVE)
    async with transaction(sessions) as session:
        bob = await session.get(Player, seeded.player_ids["Bob"])
        dave = await session.get(Player, seeded.player_ids["Dave"])
        assert bob is not None and dave is not None
        bob.disqualified_at = clock.now()
        dave.withdrawn_at = clock.now()
    await add_registration(sessions, "Zed")
    await add_registration(sessions, "Carol", RegistrationState.APPROVED)
    assert await choices.players("") == [
        ("Alice · registered", "Alice"),
        ("Bob · disqualified", "Bob"),
        ("Carol · registered", "Carol"),
        ("Dave · withdrawn", "Dave"),
        ("Eve · registered", "Eve"),
        ("Zed · registration pending", "Zed"),
    ]
    assert await choices.players("DISQ") == [("Bob · disqualified", "Bob")]
    assert await choices.players("ev") == [("Eve · registered", "Eve")]


async def test_registrations_pending_first_with_their_seed(
    choices: ChoicesService, sessions
) -> None:
    approved = await add_registration(sessions, "alice", RegistrationState.APPROVED, 2210.4)
    pending = await add_registration(sessions, "bob", seed=2150.0)
    unseeded = await add_registration(sessions, "carol", seed=None)
    assert await choices.registrations("") == [
        (f"registration {pending}: bob (pending, seed 2150)", pending),
        (f"registration {unseeded}: carol (pending)", unseeded),
        (f"registration {approved}: alice (approved, seed 2210)", approved),
    ]
    assert await choices.registrations("ALI") == [
        (f"registration {approved}: alice (approved, seed 2210)", approved)
    ]
    assert (await choices.registrations(str(unseeded)))[0][1] == unseeded


async def test_reports_name_the_accused_and_never_the_reporter(
    choices: ChoicesService, sessions, config
) -> None:
    await seed_round(sessions, config, FIVE)
    dismissed = await add_report(sessions, 101, "Bob", ReportState.DISMISSED)
    open_ = await add_report(sessions, 101, "Carol", ReportState.OPEN)
    looked_at = await add_report(sessions, 102, "Dave", ReportState.INVESTIGATING)
    found = await choices.reports("")
    assert found == [
        (f"cheat report {looked_at}: against Dave (investigating)", looked_at),
        (f"cheat report {open_}: against Carol (open)", open_),
        (f"cheat report {dismissed}: against Bob (dismissed)", dismissed),
    ]
    names = " ".join(name for name, _ in found)
    assert "Alice" not in names and "101" not in names and "102" not in names
    assert await choices.reports("alice") == []  # the reporter cannot be searched for
    carol = [(f"cheat report {open_}: against Carol (open)", open_)]
    assert await choices.reports("carol") == carol


async def test_games_read_from_lichess_newest_first(
    sessions, config, clock: FakeClock, fake: FakeLichess, lichess: LichessClient
) -> None:
    services = wired(sessions, config, clock, lichess)
    await swiss_match(sessions, config, fake)
    first, second = play(fake, 1), play(fake, 2, result_a=0.5)
    clock.set(AGREED + timedelta(minutes=40))
    assert (await services.results.poll()).new_games == 2
    found = await services.choices.games("")
    assert found == [
        (f"{second['id']}: Bob–Alice game 2 (Swiss round 1, board 1)", second["id"]),
        (f"{first['id']}: Alice–Bob game 1 (Swiss round 1, board 1)", first["id"]),
    ]
    partial = first["id"].upper()
    assert [value for _, value in await services.choices.games(partial)] == [first["id"]]
    assert await services.choices.games("carol") == []


async def test_a_voided_game_says_so(choices: ChoicesService, sessions, config) -> None:
    seeded = await seed_round(sessions, config, FIVE)
    match_id = seeded.match_ids[1]
    await add_game(sessions, match_id, "voidGAME", 1, at=AGREED, counted=False)
    assert await choices.games("void") == [
        ("voidGAME: Carol–Dave game 1 (Swiss round 1, board 2, voided)", "voidGAME")
    ]


async def test_incidents_by_kind_and_players(choices: ChoicesService, sessions, config) -> None:
    seeded = await seed_round(sessions, config, FIVE)
    first, second, _ = seeded.match_ids
    no_show = await add_incident(sessions, first, IncidentKind.NO_SHOW)
    left = await add_incident(sessions, second, IncidentKind.LEFT, IncidentState.RESOLVED)
    claim = await add_incident(sessions, second, IncidentKind.FORFEIT_CLAIM)
    assert await choices.incidents("") == [
        ("forfeit claim by Carol against Dave, Swiss round 1, board 2 (open)", claim),
        ("left-the-match claim by Carol against Dave, Swiss round 1, board 2 (resolved)", left),
        ("no-show claim by Alice against Bob, Swiss round 1, board 1 (open)", no_show),
    ]
    assert await choices.incidents("NO-SHOW") == [
        ("no-show claim by Alice against Bob, Swiss round 1, board 1 (open)", no_show)
    ]
    assert await choices.incidents(f"#{left}") == []  # no name holds a row id (issue 32)
