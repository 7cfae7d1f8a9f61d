"""A player leaving a knock-out or a final match under way (issue 31), driven through the
services: the 2024 rules' "the other players below them in their Candidate pool move up one
position in their placement in the Semifinal Matches" and "... below them in the Semifinals
and Candidates move up one position in their placement in the Final Matches", the 2020
Knock-Out, a knock-out match under way (the opponent wins it), the cascade from the Grand
Final into the Third Place Playoff, and a stage not started yet (nothing to do).

Who moves where is derived from the pools' places and the Swiss ranking the championship
produced, by the rules' words, not copied from the bot's output.
"""

from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.wiring import Services
from db.engine import transaction
from db.models import (
    AuditEntry,
    DueAction,
    Game,
    Match,
    MatchState,
    OutboxMessage,
    Player,
    Round,
    Setting,
    Stage,
    StageState,
)
from tests.conftest import TD_ID
from tests.features.rounds.test_format_flow import (
    NOW,
    SWISS_10,
    announcements,
    decide_final,
    open_matches,
    play_pool,
    preset,
    swiss_2024_played,
    swiss_won_in_seed_order,
)

DISCORD = 7000  # a player's Discord id is DISCORD + their player id


async def link_discord(sessions: async_sessionmaker[AsyncSession]) -> None:
    """Every player gets a Discord id, so that what they are told can be read."""
    async with transaction(sessions) as session:
        for player in await session.scalars(select(Player)):
            player.discord_id = DISCORD + player.id


async def player(sessions: async_sessionmaker[AsyncSession], name: str) -> Player:
    async with sessions() as session:
        found = await session.scalar(select(Player).where(Player.lichess_username == name))
        assert found is not None, name
        return found


async def withdraw(
    services: Services, sessions: async_sessionmaker[AsyncSession], name: str
) -> None:
    """The player's own /withdraw (rule VIII applies once the championship runs)."""
    await services.registration.withdraw(discord_id=DISCORD + (await player(sessions, name)).id)


async def dms(sessions: async_sessionmaker[AsyncSession], name: str) -> list[str]:
    target = DISCORD + (await player(sessions, name)).id
    async with sessions() as session:
        rows = await session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.target_id == target)
            .order_by(OutboxMessage.id)
        )
        return [r.content for r in rows]


async def td_notes(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    async with sessions() as session:
        rows = await session.scalars(
            select(OutboxMessage).where(OutboxMessage.target_id == TD_ID).order_by(OutboxMessage.id)
        )
        return [r.content for r in rows]


async def matches_of(
    sessions: async_sessionmaker[AsyncSession], key: str
) -> list[tuple[int, int, str, str, MatchState, str | None]]:
    """(round, board, a, b, state, forfeit winner) of every match of the row, in order."""
    async with sessions() as session:
        names = {p.id: p.lichess_username for p in await session.scalars(select(Player))}
        rows = await session.execute(
            select(Match, Round.number)
            .join(Round, Match.round_id == Round.id)
            .join(Stage, Round.stage_id == Stage.id)
            .where(Stage.key == key)
            .order_by(Round.number, Match.board)
        )
        return [
            (
                number,
                m.board,
                names[m.player_a_id],
                names[m.player_b_id or 0],
                m.state,
                names.get(m.forfeit_winner_id or 0),
            )
            for m, number in rows
        ]


async def saved(sessions: async_sessionmaker[AsyncSession], key: str) -> dict[str, object]:
    async with sessions() as session:
        row = await session.get(Setting, "stage_outcome:" + key)
        return json.loads(row.value) if row is not None else {}


def pairs(found: list[tuple[int, str, str]]) -> list[tuple[str, str]]:
    return [(a, b) for _, a, b in found]


async def pool_places(sessions: async_sessionmaker[AsyncSession], pool: str) -> list[str]:
    """A finished pool's places (lichess ids as saved), as usernames."""
    order = (await saved(sessions, "candidates"))["pool_orders"]
    assert isinstance(order, dict)
    async with sessions() as session:
        names = {p.lichess_id: p.lichess_username for p in await session.scalars(select(Player))}
    return [names[n] for n in order[pool]]


async def to_semifinals(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> tuple[Services, dict[str, list[str]]]:
    """A 2024 championship through the Swiss and both pools (seed order wins every match):
    the Semifinals are out. Returns the services and each pool's places."""
    services = await swiss_won_in_seed_order(sessions, config, clock, SWISS_10)
    await link_discord(sessions)
    async with sessions() as session:
        names = {p.id: p.lichess_username for p in await session.scalars(select(Player))}
        rows = (await session.scalars(select(Stage).where(Stage.key == "candidates"))).all()
    for row in rows:
        await play_pool(services, sessions, "candidates", row.pool, [names[i] for i in row.seeding])
    places = {pool: await pool_places(sessions, pool) for pool in ("upper", "lower")}
    upper, lower = places["upper"], places["lower"]
    # Semifinal 1: upper winner v lower runner-up; Semifinal 2: lower winner v upper runner-up.
    assert pairs(await open_matches(sessions, "semifinals")) == [
        (upper[0], lower[1]),
        (lower[0], upper[1]),
    ]
    return services, places


async def test_a_pool_winner_leaves_the_semifinals_before_any_game(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    """The upper pool's winner withdraws: its runner-up is the upper winner now (Semifinal
    1), and the upper third takes the runner-up's place (Semifinal 2). Both old matches are
    voided, the new ones published in round 2 of the Semifinals."""
    config = preset(config, "acwc-2024")
    services, places = await to_semifinals(sessions, config, clock)
    upper, lower = places["upper"], places["lower"]
    old = await open_matches(sessions, "semifinals")
    async with sessions() as session:
        first = await session.scalar(
            select(Round).join(Stage, Round.stage_id == Stage.id).where(Stage.key == "semifinals")
        )
        assert first is not None
    clock.set(first.starts_at + timedelta(days=2))  # the Semifinals' week has begun

    await withdraw(services, sessions, upper[0])

    assert pairs(await open_matches(sessions, "semifinals")) == [
        (upper[1], lower[1]),
        (lower[0], upper[2]),
    ]
    stored = await matches_of(sessions, "semifinals")
    assert [(r, board, state, winner) for r, board, _, _, state, winner in stored] == [
        (1, 1, MatchState.FORFEITED, None),
        (1, 2, MatchState.FORFEITED, None),
        (2, 1, MatchState.NEGOTIATING, None),
        (2, 2, MatchState.NEGOTIATING, None),
    ]
    async with sessions() as session:
        semis = await session.scalar(select(Stage).where(Stage.key == "semifinals"))
        assert semis is not None and semis.total_rounds == 2
        names = {p.id: p.lichess_username for p in await session.scalars(select(Player))}
        assert [names[i] for i in semis.seeding] == [upper[1], lower[1], lower[0], upper[2]]
        pending = await session.scalars(
            select(DueAction.subject_id).where(
                DueAction.subject_type == "match",
                DueAction.subject_id.in_([m for m, _, _ in old]),
                DueAction.done_at.is_(None),
                DueAction.cancelled_at.is_(None),
            )
        )
        assert pending.all() == []  # the voided matches' deadlines are cancelled
        scheduled = await session.scalars(
            select(DueAction.subject_id).where(
                DueAction.subject_type == "match", DueAction.cancelled_at.is_(None)
            )
        )
        new_ids = {m for m, _, _ in await open_matches(sessions, "semifinals")}
        assert new_ids <= set(scheduled.all())  # the new ones have theirs
    async with sessions() as session:
        second = await session.scalar(
            select(Round)
            .join(Stage, Round.stage_id == Stage.id)
            .where(Stage.key == "semifinals", Round.number == 2)
        )
    # The new pairs get a week of their own: the next one.
    assert second is not None and second.starts_at == first.starts_at + timedelta(days=7)
    said = await announcements(sessions)
    assert (
        f"🔁 **Semifinals** changes: **{upper[0]}** withdrew, and the players below move up.\n"
        f"Semifinal 1: **{upper[1]}** vs **{lower[1]}**\n"
        f"Semifinal 2: **{lower[0]}** vs **{upper[2]}**"
    ) in said
    moved = await dms(sessions, upper[2])
    assert any(
        d.startswith(f"⬆️ **{upper[0]}** withdrew, and you move up into the **Semifinals**")
        and f"Semifinal 2 against **{lower[0]}**" in d
        for d in moved
    ), moved
    note = next(n for n in await td_notes(sessions) if "re-seated" in n)
    # each voided match by its name and players, never its row id (issue 32)
    voided = "; ".join(f"Semifinal {n} ({a} vs {b})" for n, (_, a, b) in enumerate(old, start=1))
    assert f"Voided (no winner): {voided}." in note, note
    # /standings shows each Semifinal once, as it is now played.
    table = await services.tables.standings("semifinals")
    assert [row[1:3] for row in table.rows] == [(upper[1], lower[1]), (lower[0], upper[2])]

    # The new Semifinals route on as ever: the first named wins each.
    for match_id, _, _ in await open_matches(sessions, "semifinals"):
        await services.rounds.set_score(
            td_id=TD_ID, match_id=match_id, score_a=6.0, score_b=4.0, reason=None
        )
    assert pairs(await open_matches(sessions, "grand_final")) == [(upper[1], lower[0])]
    assert pairs(await open_matches(sessions, "third_place")) == [(lower[1], upper[2])]
    async with sessions() as session:
        semis = await session.scalar(select(Stage).where(Stage.key == "semifinals"))
        assert semis is not None and semis.state is StageState.FINISHED
        states = {
            r.state.value
            for r in await session.scalars(select(Round).where(Round.stage_id == semis.id))
        }
    assert states == {"finished"}


async def test_a_semifinalist_leaving_with_a_game_played_gives_the_match_away(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    """A game of Semifinal 1 is recorded, then the lower runner-up withdraws: the rules are
    silent; the upper winner wins it by forfeit (as a Swiss match, rule VIII.A.1) and
    reaches the Grand Final; the Third Place Playoff takes the next below the leaver in
    the lower pool."""
    config = preset(config, "acwc-2024")
    services, places = await to_semifinals(sessions, config, clock)
    upper, lower = places["upper"], places["lower"]
    (first, a, b), (second, _, _) = await open_matches(sessions, "semifinals")
    async with transaction(sessions) as session:
        match = await session.get(Match, first)
        assert match is not None
        match.score_a, match.state = 1.0, MatchState.IN_PROGRESS
        session.add(
            Game(
                match_id=first,
                lichess_id="game0001",
                number=1,
                white_player_id=match.player_a_id,
                black_player_id=match.player_b_id or 0,
                status="mate",
                winner="white",
                result_a=1.0,
                counted=True,
                created_at=NOW,
            )
        )

    await withdraw(services, sessions, b)

    stored = await matches_of(sessions, "semifinals")
    assert stored[0][4:] == (MatchState.FORFEITED, a)  # the upper winner wins by forfeit
    assert len(stored) == 2  # nothing re-seated, no new round
    assert not any(s.startswith("🔁") for s in await announcements(sessions))
    told = await dms(sessions, a)
    assert any(
        d == f"**{b}** withdrew: you win Semifinal 1 by forfeit, as the match "
        "was under way, and go on."
        for d in told
    ), told
    assert any(
        "the opponent wins it" in n and f"Semifinal 1: {a} wins" in n
        for n in await td_notes(sessions)
    )

    await services.rounds.set_score(
        td_id=TD_ID, match_id=second, score_a=6.0, score_b=4.0, reason=None
    )
    assert pairs(await open_matches(sessions, "grand_final")) == [(upper[0], lower[0])]
    # The loser's slot: the next below the leaver (lower runner-up) in the lower pool.
    assert pairs(await open_matches(sessions, "third_place")) == [(lower[2], upper[1])]


async def finals(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> tuple[Services, dict[str, list[str]]]:
    """Through the Semifinals: the second named wins Semifinal 1, the first Semifinal 2;
    Grand Final: lower runner-up v lower winner; Third Place: upper winner v upper runner-up."""
    services, places = await to_semifinals(sessions, config, clock)
    upper, lower = places["upper"], places["lower"]
    (one, _, _), (two, _, _) = await open_matches(sessions, "semifinals")
    await services.rounds.set_score(
        td_id=TD_ID, match_id=one, score_a=4.0, score_b=6.0, reason=None
    )
    await services.rounds.set_score(
        td_id=TD_ID, match_id=two, score_a=6.0, score_b=4.0, reason=None
    )
    assert pairs(await open_matches(sessions, "grand_final")) == [(lower[1], lower[0])]
    assert pairs(await open_matches(sessions, "third_place")) == [(upper[0], upper[1])]
    return services, places


async def test_a_grand_finalist_leaving_the_semifinal_opponent_and_the_pool_move_up(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    """The lower runner-up (Semifinal 1's winner) leaves the Grand Final: Semifinal 1's loser
    (the upper winner) moves up into it; the Third Place Playoff, which held them, gets the
    next below the leaver in the lower pool who plays no Semifinal (the lower third)."""
    config = preset(config, "acwc-2024")
    services, places = await finals(sessions, config, clock)
    upper, lower = places["upper"], places["lower"]
    ((grand_before, _, _),) = await open_matches(sessions, "grand_final")

    await withdraw(services, sessions, lower[1])

    assert pairs(await open_matches(sessions, "grand_final")) == [(upper[0], lower[0])]
    assert pairs(await open_matches(sessions, "third_place")) == [(lower[2], upper[1])]
    grand = await matches_of(sessions, "grand_final")
    assert [(r, state) for r, _, _, _, state, _ in grand] == [
        (1, MatchState.FORFEITED),
        (2, MatchState.NEGOTIATING),
    ]
    assert grand[0][5] is None  # voided: nobody wins it
    said = await announcements(sessions)
    assert (
        f"🔁 **Grand Final** changes: **{lower[1]}** withdrew, and the players below move up.\n"
        f"Grand Final: **{upper[0]}** vs **{lower[0]}**"
    ) in said
    assert (
        f"🔁 **Third Place Playoff** changes: **{lower[1]}** withdrew, and the players below "
        f"move up.\nThird Place Playoff: **{lower[2]}** vs **{upper[1]}**"
    ) in said
    assert any("move up into the **Grand Final**" in d for d in await dms(sessions, upper[0]))
    assert any(
        "move up into the **Third Place Playoff**" in d for d in await dms(sessions, lower[2])
    )
    async with sessions() as session:
        entries = (
            await session.scalars(select(AuditEntry).where(AuditEntry.action == "stage_reseated"))
        ).all()
    assert [e.details["key"] for e in entries] == ["grand_final", "third_place"]
    assert entries[0].details["voided"] == [grand_before]

    # /standings shows the Grand Final as it is now played, not the voided match.
    table = await services.tables.standings("grand_final")
    assert upper[0] in table.title + "".join("".join(r) for r in table.rows)
    assert lower[1] not in table.title + "".join("".join(r) for r in table.rows)

    # The new Grand Final crowns its winner as any.
    ((grand_now, _, _),) = await open_matches(sessions, "grand_final")
    await decide_final(services, sessions, grand_now, 7.0, 5.0)
    assert any(
        f"🏆👑 **{upper[0]}** is the Antichess World Championship 2024 champion!" in s
        for s in await announcements(sessions)
    )


async def test_a_third_place_player_disqualified_the_next_in_their_pool_steps_in(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    """The upper runner-up (Semifinal 2's loser) is disqualified by the TD: the next below
    in the upper pool who plays no Semifinal steps into the Third Place Playoff; the Grand
    Final stays."""
    config = preset(config, "acwc-2024")
    services, places = await finals(sessions, config, clock)
    upper, lower = places["upper"], places["lower"]

    await services.discipline.td_disqualify(
        td_id=TD_ID, player_name=upper[1], reason="abusive chat", engine=False
    )

    assert pairs(await open_matches(sessions, "third_place")) == [(upper[0], upper[2])]
    assert pairs(await open_matches(sessions, "grand_final")) == [(lower[1], lower[0])]
    assert len(await matches_of(sessions, "grand_final")) == 1
    said = await announcements(sessions)
    assert (
        f"🔁 **Third Place Playoff** changes: **{upper[1]}** was disqualified, and the players "
        f"below move up.\nThird Place Playoff: **{upper[0]}** vs **{upper[2]}**"
    ) in said
    assert any(
        d.startswith(
            f"⬆️ **{upper[1]}** was disqualified, and you move up into the **Third Place Playoff**"
        )
        for d in await dms(sessions, upper[2])
    )


async def test_a_stage_not_started_yet_reads_who_left_at_its_start(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    """The upper pool is over, the lower pool still runs: its winner withdraws before the
    Semifinals exist. Nothing is re-seated; the Semifinals start without them."""
    config, services = await swiss_2024_played(sessions, config, clock)
    await link_discord(sessions)
    async with sessions() as session:
        names = {p.id: p.lichess_username for p in await session.scalars(select(Player))}
        rows = {
            r.pool: [names[i] for i in r.seeding]
            for r in await session.scalars(select(Stage).where(Stage.key == "candidates"))
        }
    await play_pool(services, sessions, "candidates", "upper", rows["upper"])
    upper = await pool_places(sessions, "upper")
    await withdraw(services, sessions, upper[0])
    async with sessions() as session:
        assert await session.scalar(select(Stage).where(Stage.key == "semifinals")) is None
    await play_pool(services, sessions, "candidates", "lower", rows["lower"])
    lower = await pool_places(sessions, "lower")

    assert pairs(await open_matches(sessions, "semifinals")) == [
        (upper[1], lower[1]),
        (lower[0], upper[2]),
    ]
    assert len(await matches_of(sessions, "semifinals")) == 2
    assert not any(s.startswith("🔁") for s in await announcements(sessions))


async def test_2020_a_knockout_player_leaving_before_playing_the_players_below_move_up(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    """2020: Swiss 5-12 play the Knock-Out (5 v 12, 6 v 11, 7 v 10, 8 v 9). Swiss 6
    withdraws before a game: everyone below moves up one seat (Swiss 13 comes in), so
    every match is paired again: 5 v 13, 7 v 12, 8 v 11, 9 v 10."""
    config = preset(config, "acwc-2020")
    names = [f"Q{i:02}" for i in range(1, 15)]
    services = await swiss_won_in_seed_order(sessions, config, clock, names)
    await link_discord(sessions)
    ranking = (await saved(sessions, "swiss"))["ranking"]
    assert isinstance(ranking, list)
    by_id = {n.lower(): n for n in names}
    place = [by_id[p] for p in ranking]  # place[0] is Swiss 1
    assert pairs(await open_matches(sessions, "knockout")) == [
        (place[4], place[11]),
        (place[5], place[10]),
        (place[6], place[9]),
        (place[7], place[8]),
    ]

    async with sessions() as session:
        first = await session.scalar(
            select(Round).join(Stage, Round.stage_id == Stage.id).where(Stage.key == "knockout")
        )
        assert first is not None
    clock.set(first.starts_at - timedelta(days=1))  # before the Knock-Out's week

    await withdraw(services, sessions, place[5])

    assert pairs(await open_matches(sessions, "knockout")) == [
        (place[4], place[12]),
        (place[6], place[11]),
        (place[7], place[10]),
        (place[8], place[9]),
    ]
    assert any(
        "move up into the **Knock-Out**" in d and f"Knock-Out 1 against **{place[4]}**" in d
        for d in await dms(sessions, place[12])
    )
    # The Knock-Out's week has not begun: the new pairs play in it.
    async with sessions() as session:
        second = await session.scalar(
            select(Round)
            .join(Stage, Round.stage_id == Stage.id)
            .where(Stage.key == "knockout", Round.number == 2)
        )
    assert second is not None
    assert (second.starts_at, second.deadline) == (first.starts_at, first.deadline)
