"""The stages after the Swiss as the format has them, driven through the services: the
2024 format from the end of the Swiss to the champion (two pools placed by the table,
Semifinals crossing the pools, the Grand Final and the Third Place Playoff started
together, the crowning), and the 2020 Knock-Out into the pools.

Scores are the TD's (`/td round set-score`'s use case); a final match is decided as the
results feature decides it (its points and `MatchFinished`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor
from bot.clock import FakeClock
from bot.config import Config, with_preset
from bot.events import MatchFinished
from bot.features.matches.round_post import render_round_post
from bot.features.rounds.text import round_post_title
from bot.wiring import Services
from db.engine import transaction
from db.models import (
    AuditEntry,
    Match,
    MatchState,
    OutboxMessage,
    Player,
    Registration,
    RegistrationState,
    Round,
    Stage,
    StageKind,
    StageState,
)
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.entrants import unplayed_matches
from tests.factories import seed_round, wired

NOW = datetime(2024, 11, 20, 12, 0, tzinfo=UTC)


def preset(config: Config, name: str, **overrides: Any) -> Config:
    """The fixture's config (its database, Lichess and Discord) on a preset's format."""
    data = with_preset({"preset": name, **overrides})
    edition = Config.model_validate(data)
    return edition.model_copy(
        update={k: getattr(config, k) for k in ("discord", "database", "lichess")}
    )


async def swiss_of(
    sessions: async_sessionmaker[AsyncSession], config: Config, names: list[str]
) -> list[int]:
    """A Swiss of one round (names paired 1-2, 3-4, ...), approved, and the pre-seeded."""
    seeded = await seed_round(sessions, config, [(None, n) for n in names])
    async with transaction(sessions) as session:
        stage = await session.get(Stage, seeded.stage_id)
        assert stage is not None
        stage.total_rounds = 1
        for player in await session.scalars(select(Player).where(Player.id.in_(stage.seeding))):
            session.add(
                Registration(
                    player_id=player.id,
                    state=RegistrationState.APPROVED,
                    problems=[],
                    evidence={},
                    created_at=NOW,
                    updated_at=NOW,
                )
            )
        for entry in config.players.pre_seeded:
            session.add(
                Player(
                    lichess_id=entry.lichess.lower(),
                    lichess_username=entry.lichess,
                    pre_seeded_stage=StageKind(entry.stage),
                    created_at=NOW,
                )
            )
    return seeded.match_ids


async def swiss_won_in_seed_order(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock, names: list[str]
) -> Services:
    """`swiss_of` at NOW, the first of each pair winning 6-0 (so the Swiss ends in seed
    order of the winners, then the losers); the services wired on `config`."""
    clock.set(NOW)
    services = wired(sessions, config, clock)
    for match_id in await swiss_of(sessions, config, names):
        await services.rounds.set_score(
            td_id=TD_ID, match_id=match_id, score_a=6.0, score_b=0.0, reason=None
        )
    return services


async def announcements(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    async with sessions() as session:
        rows = await session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.target_id == ANNOUNCE_CHANNEL)
            .order_by(OutboxMessage.id)
        )
        return [r.content or "" for r in rows]


async def open_matches(
    sessions: async_sessionmaker[AsyncSession], key: str, pool: str = ""
) -> list[tuple[int, str, str]]:
    """(match id, player a, player b) of the stage's matches still to be played."""
    return await unplayed_matches(sessions, Stage.key == key, Stage.pool == pool)


async def play_pool(
    services: Services,
    sessions: async_sessionmaker[AsyncSession],
    key: str,
    pool: str,
    order: list[str],
) -> None:
    """Every round of a pool, the player earlier in `order` winning 6-4."""
    while found := await open_matches(sessions, key, pool):
        for match_id, a, b in found:
            first = order.index(a) < order.index(b)
            score = (6.0, 4.0) if first else (4.0, 6.0)
            await services.rounds.set_score(
                td_id=TD_ID, match_id=match_id, score_a=score[0], score_b=score[1], reason=None
            )


async def decide_final(
    services: Services,
    sessions: async_sessionmaker[AsyncSession],
    match_id: int,
    a: float,
    b: float,
) -> None:
    """A final match decided on the board, as the results feature ends one."""
    events = services.rounds.events
    async with transaction(sessions) as session:
        match = await session.get(Match, match_id)
        assert match is not None
        match.score_a, match.score_b = a, b
        match.points_a, match.points_b = (1.0, 0.0) if a > b else (0.0, 1.0)
        match.state, match.finished_at = MatchState.FINISHED, NOW
        event = MatchFinished(Actor.job(), match_id=match.id, round_id=match.round_id)
        await events.publish(session, event, NOW)


SWISS_10 = ["P01", "P02", "P03", "P04", "P05", "P06", "P07", "P08", "P09", "P10"]


async def swiss_2024_played(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> tuple[Config, Services]:
    """The fixture's config on acwc-2024 and its services, with a one-round Swiss of
    `SWISS_10` played in seed order (P01, P03, ... win): the pools start."""
    config = preset(config, "acwc-2024")
    services = await swiss_won_in_seed_order(sessions, config, clock, SWISS_10)
    return config, services


async def test_2024_from_the_swiss_to_the_champion(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    config = preset(config, "acwc-2024")
    # The first of each pair wins: P01, P03, P05, P07, P09 on 1 point, by seed.
    services = await swiss_won_in_seed_order(sessions, config, clock, SWISS_10)

    async with sessions() as session:
        rows = (await session.scalars(select(Stage).order_by(Stage.id))).all()
        pools = {s.pool: s for s in rows if s.kind is StageKind.CANDIDATES}
        ids = {p.id: p.lichess_username for p in await session.scalars(select(Player))}
        started = await session.scalar(
            select(AuditEntry).where(AuditEntry.action == "stage_started")
        )
    assert set(pools) == {"upper", "lower"}
    assert [pools["upper"].name, pools["lower"].name] == ["Upper pool", "Lower pool"]
    # Both pre-seeded present: the table's row 2 (upper: Swiss 2, 4, 5, 8, 9 and the
    # champion; lower: Swiss 1, 3, 6, 7, 10 and the runner-up).
    swiss_order = ["P01", "P03", "P05", "P07", "P09", "P02", "P04", "P06", "P08", "P10"]
    upper = [ids[i] for i in pools["upper"].seeding]
    lower = [ids[i] for i in pools["lower"].seeding]
    assert upper == [swiss_order[p - 1] for p in (2, 4, 5, 8, 9)] + ["llIVIll"]
    assert lower == [swiss_order[p - 1] for p in (1, 3, 6, 7, 10)] + ["TheUnknownGuyReborn"]
    assert pools["upper"].started_at == pools["lower"].started_at
    assert started is not None and started.details is not None
    assert started.details["key"] == "candidates"
    assert started.details["entries"][0] == {
        "player": "p01",
        "rule": "top",
        "source": "swiss",
        "place": 1,
        "pool": None,
        "moved_up": 0,
    }
    said = await announcements(sessions)
    assert any(
        s.startswith("🏆 **Candidates** starts") and "**Upper pool** (6 players)" in s for s in said
    )
    assert any("Upper pool round 1 of 5 is out" in s for s in said)
    assert any("Lower pool round 1 of 5 is out" in s for s in said)

    # Each pool: seed order wins every match.
    await play_pool(services, sessions, "candidates", "upper", upper)
    assert await open_matches(sessions, "candidates", "lower")  # the other pool goes on
    async with sessions() as session:
        assert await session.scalar(select(Stage).where(Stage.key == "semifinals")) is None
    await play_pool(services, sessions, "candidates", "lower", lower)
    said = await announcements(sessions)
    assert any(
        s.startswith("🏁 **Upper pool** is over. Places: 1. **P03**, 2. **P07**") for s in said
    )
    assert any(
        s.startswith("🏁 **Lower pool** is over. Places: 1. **P01**, 2. **P05**") for s in said
    )

    # Semifinals cross the pools: upper 1st v lower 2nd, lower 1st v upper 2nd.
    semis = await open_matches(sessions, "semifinals")
    assert [(a, b) for _, a, b in semis] == [("P03", "P05"), ("P01", "P07")]
    said = await announcements(sessions)
    start = next(m for m in said if m.startswith("🏆 **Semifinals** starts:\n"))
    assert "Semifinal 1: **P03** vs **P05**\nSemifinal 2: **P01** vs **P07**\n" in start
    # how a Semifinal is played is told up front (2024 rules, Semifinal Matches)
    assert "**10 games** at 2+5; more points win; still level after game 10, one " in start
    assert "**Armageddon** game decides" in start and "rock-paper-scissors" in start
    await services.rounds.set_score(
        td_id=TD_ID, match_id=semis[0][0], score_a=4.0, score_b=6.0, reason=None
    )
    async with sessions() as session:
        assert await session.scalar(select(Stage).where(Stage.key == "grand_final")) is None
    await services.rounds.set_score(
        td_id=TD_ID, match_id=semis[1][0], score_a=6.0, score_b=4.0, reason=None
    )

    # The Grand Final (the winners) and the Third Place Playoff (the losers), together.
    grand = await open_matches(sessions, "grand_final")
    third = await open_matches(sessions, "third_place")
    assert [(a, b) for _, a, b in grand] == [("P05", "P01")]
    assert [(a, b) for _, a, b in third] == [("P03", "P07")]
    async with sessions() as session:
        finals = (await session.scalars(select(Stage).where(Stage.kind == StageKind.FINAL))).all()
    assert {f.key: f.name for f in finals} == {
        "grand_final": "Grand Final",
        "third_place": "Third Place Playoff",
    }
    assert len({f.started_at for f in finals}) == 1
    said = await announcements(sessions)
    grand_post = next(m for m in said if m.startswith("🏆 **Grand Final**: **P05** vs **P01**"))
    third_post = next(m for m in said if m.startswith("🏆 **Third Place Playoff**: **P03**"))
    # 2024 rules, Final Matches: 12 games, 4 tiebreak games (Third Place Playoff: 2), then
    # the Armageddon (game 17 / game 15)
    assert "**12 games** at 2+5" in grand_post and "**4 tiebreak games**" in grand_post
    assert "still level after game 16, one **Armageddon**" in grand_post
    assert "**2 tiebreak games**" in third_post and "after game 14" in third_post
    # issue 32: a final match's post is no round, has no board, no seeds, no deadline
    async with sessions() as session:
        grand_row = next(f for f in finals if f.key == "grand_final")
        round_id = await session.scalar(select(Round.id).where(Round.stage_id == grand_row.id))
        assert round_id is not None
        post = await render_round_post(session, round_id)
    assert post.startswith(
        "**Grand Final** · played in sessions at the players' own pace (rule IV.C)"
    )
    assert "Board" not in post and "round" not in post and "(1)" not in post
    assert "[P05](https://lichess.org/@/P05) vs [P01](https://lichess.org/@/P01)" in post
    assert round_post_title("Grand Final", 1, own_pace=True) == "Grand Final"

    await decide_final(services, sessions, third[0][0], 7.0, 5.0)
    await decide_final(services, sessions, grand[0][0], 5.0, 7.0)
    said = await announcements(sessions)
    assert (
        "🏆👑 **P01** is the Antichess World Championship 2024 champion! "
        "Grand Final: **P05** 5–7 **P01**."
    ) in said
    assert "🥉 **P03** takes place 3! Third Place Playoff: **P03** 7–5 **P07**." in said
    async with sessions() as session:
        states = {s.key + s.pool: s.state for s in await session.scalars(select(Stage))}
    assert set(states.values()) == {StageState.FINISHED}


async def test_2020_knockout_winners_join_the_pools(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    config = preset(config, "acwc-2020")
    names = [f"Q{i:02}" for i in range(1, 13)]
    # Q01, Q03, ... Q11 win: Swiss 1-6, then Q02 ... Q12
    services = await swiss_won_in_seed_order(sessions, config, clock, names)
    order = ["Q01", "Q03", "Q05", "Q07", "Q09", "Q11", "Q02", "Q04", "Q06", "Q08", "Q10", "Q12"]
    # Swiss 5-12 play the Knock-Out: 5 v 12, 6 v 11, 7 v 10, 8 v 9.
    knockout = await open_matches(sessions, "knockout")
    assert [(a, b) for _, a, b in knockout] == [
        (order[4], order[11]),
        (order[5], order[10]),
        (order[6], order[9]),
        (order[7], order[8]),
    ]
    async with sessions() as session:
        assert await session.scalar(select(Stage).where(Stage.kind == StageKind.CANDIDATES)) is None
    for match_id, _, _ in knockout:  # the second seat wins every match
        await services.rounds.set_score(
            td_id=TD_ID, match_id=match_id, score_a=4.0, score_b=6.0, reason=None
        )
    said = await announcements(sessions)
    assert (
        f"🏁 **Knock-Out** is over.\nKnock-Out 1: **{order[11]}** beat {order[4]}\n"
        f"Knock-Out 2: **{order[10]}** beat {order[5]}\n"
        f"Knock-Out 3: **{order[9]}** beat {order[6]}\n"
        f"Knock-Out 4: **{order[8]}** beat {order[7]}"
    ) in said
    async with sessions() as session:
        pools = {
            s.pool: s
            for s in await session.scalars(select(Stage).where(Stage.kind == StageKind.CANDIDATES))
        }
        ids = {p.id: p.lichess_username for p in await session.scalars(select(Player))}
    field = {ids[i] for pool in pools.values() for i in pool.seeding}
    winners = {order[11], order[10], order[9], order[8]}
    assert field == set(order[:4]) | winners | {"arimakat", "Ogul1"}
    assert set(pools) == {"upper", "lower"}
    assert all(len(p.seeding) == 5 for p in pools.values())


async def test_a_pool_tie_on_a_place_that_moves_on_is_the_tds_per_pool(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    config, services = await swiss_2024_played(sessions, config, clock)
    # Every upper pool match drawn: the chain cannot part anyone (the champion has no Swiss
    # place, so neither the previous final nor the Swiss place orders the group).
    while found := await open_matches(sessions, "candidates", "upper"):
        for match_id, _, _ in found:
            await services.rounds.set_score(
                td_id=TD_ID, match_id=match_id, score_a=5.0, score_b=5.0, reason=None
            )
    async with sessions() as session:
        asked = (
            await session.scalars(
                select(OutboxMessage)
                .where(OutboxMessage.target_id == TD_ID)
                .order_by(OutboxMessage.id.desc())
            )
        ).first()
        by_name = {p.lichess_username: p.id for p in await session.scalars(select(Player))}
    assert asked is not None and asked.content.startswith(
        "⚖️ Upper pool ends with a tie its tiebreaks leave to you: "
    )
    assert asked.content.endswith("Press who takes place 1.")
    assert asked.view is not None and len(asked.view["args"]["players"]) == 6
    assert not any("**Upper pool** is over" in s for s in await announcements(sessions))

    first = await services.ties.decide_tie(td_id=TD_ID, player_id=by_name["P07"])
    second = await services.ties.decide_tie(td_id=TD_ID, player_id=by_name["llIVIll"])
    assert (first.done, second.done) == (False, True)
    said = await announcements(sessions)
    assert any(
        s.startswith("🏁 **Upper pool** is over. Places: 1. **P07**, 2. **llIVIll**, 3. ")
        for s in said
    )
    lower = ["P01", "P05", "P02", "P04", "P10", "TheUnknownGuyReborn"]  # Swiss 1, 3, 6, 7, 10
    await play_pool(services, sessions, "candidates", "lower", lower)
    semis = await open_matches(sessions, "semifinals")
    assert [(a, b) for _, a, b in semis] == [("P07", "P05"), ("P01", "llIVIll")]
