"""From the last Swiss round to the Challenger: qualifiers, tiebreak matches, the Candidates.

Scores are entered with `/td round set-score`'s use case, which runs the same round life
cycle as results read from Lichess (`MatchFinished`).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.errors import InvalidInput, WrongStage
from bot.features.rounds.robin import next_monday
from bot.features.rounds.service import RoundService
from db.engine import transaction
from db.models import (
    Match,
    MatchState,
    OutboxMessage,
    Player,
    Round,
    Stage,
    StageKind,
    StageState,
    TDDecision,
)
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.factories import ROUND_DEADLINE, seed_round, wired

# One Swiss round of six: who wins which match decides the tie cases below.
SIX = [(601, "Ann"), (602, "Bea"), (603, "Cid"), (604, "Dan"), (605, "Eve"), (606, "Fay")]
NOW = datetime(2019, 10, 5, 12, 0, tzinfo=UTC)


@pytest.fixture
def rounds(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> RoundService:
    clock.set(NOW)
    return wired(sessions, config, clock).rounds


async def one_round_swiss(sessions: async_sessionmaker[AsyncSession], config: Config) -> list[int]:
    """A Swiss of one round (Ann-Bea, Cid-Dan, Eve-Fay) and the pre-seeded Candidate."""
    seeded = await seed_round(sessions, config, SIX)
    async with transaction(sessions) as session:
        stage = await session.get(Stage, seeded.stage_id)
        assert stage is not None
        stage.total_rounds = 1
        for name, kind in (("Ogul1", StageKind.CANDIDATES), ("arimakat", StageKind.FINAL)):
            known = await session.scalar(select(Player).where(Player.lichess_id == name.lower()))
            if known is None:  # a running bot has entered the pre-seeded players already
                session.add(
                    Player(
                        lichess_id=name.lower(),
                        lichess_username=name,
                        pre_seeded_stage=kind,
                        created_at=NOW,
                    )
                )
    return seeded.match_ids


async def stage_of(sessions: async_sessionmaker[AsyncSession], kind: StageKind) -> Stage | None:
    async with sessions() as session:
        return await session.scalar(select(Stage).where(Stage.kind == kind))


async def names(sessions: async_sessionmaker[AsyncSession], ids: list[int]) -> list[str]:
    async with sessions() as session:
        rows = {p.id: p.lichess_username for p in await session.scalars(select(Player))}
    return [rows[i] for i in ids]


async def open_matches(
    sessions: async_sessionmaker[AsyncSession], kind: StageKind
) -> list[tuple[int, str, str]]:
    """(match id, player a, player b) of the stage's matches still to be played."""
    async with sessions() as session:
        stage = await session.scalar(select(Stage).where(Stage.kind == kind))
        assert stage is not None
        rows = (
            await session.scalars(
                select(Match)
                .join(Round, Match.round_id == Round.id)
                .where(Round.stage_id == stage.id, Match.state == MatchState.NEGOTIATING)
                .order_by(Round.number, Match.board)
            )
        ).all()
        players = {p.id: p.lichess_username for p in await session.scalars(select(Player))}
    return [(m.id, players[m.player_a_id], players[m.player_b_id or 0]) for m in rows]


async def play(
    rounds: RoundService,
    sessions: async_sessionmaker[AsyncSession],
    kind: StageKind,
    scores: dict[frozenset[str], dict[str, float]],
) -> None:
    """Enter the score of every open match of the stage that `scores` names."""
    for match_id, a, b in await open_matches(sessions, kind):
        score = scores.get(frozenset((a, b)))
        if score is None:
            continue
        await rounds.set_score(
            td_id=TD_ID, match_id=match_id, score_a=score[a], score_b=score[b], reason=None
        )


def game(a: str, b: str, score_a: float, score_b: float) -> dict[frozenset[str], dict[str, float]]:
    return {frozenset((a, b)): {a: score_a, b: score_b}}


async def announcements(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    async with sessions() as session:
        rows = await session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.target_id == ANNOUNCE_CHANNEL)
            .order_by(OutboxMessage.id)
        )
        return [r.content for r in rows]


async def td_messages(sessions: async_sessionmaker[AsyncSession]) -> list[OutboxMessage]:
    async with sessions() as session:
        rows = await session.scalars(
            select(OutboxMessage).where(OutboxMessage.target_id == TD_ID).order_by(OutboxMessage.id)
        )
        return list(rows)


def test_next_monday_follows_a_sunday_deadline() -> None:
    assert next_monday(ROUND_DEADLINE) == datetime(2019, 10, 7, tzinfo=UTC)
    assert next_monday(datetime(2019, 10, 2, 15, 0, tzinfo=UTC)) == datetime(
        2019, 10, 7, tzinfo=UTC
    )


async def test_the_swiss_ends_without_a_tie_and_the_candidates_start(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await one_round_swiss(sessions, config)
    results = {**game("Ann", "Bea", 6, 0), **game("Cid", "Dan", 6, 0), **game("Eve", "Fay", 6, 0)}
    await play(rounds, sessions, StageKind.SWISS, results)

    swiss = await stage_of(sessions, StageKind.SWISS)
    assert swiss is not None and swiss.state is StageState.FINISHED
    assert await stage_of(sessions, StageKind.TIEBREAK) is None
    candidates = await stage_of(sessions, StageKind.CANDIDATES)
    assert candidates is not None and candidates.state is StageState.RUNNING
    assert await names(sessions, candidates.seeding) == ["Ann", "Cid", "Eve", "Ogul1"]
    assert candidates.total_rounds == 3
    # Berger round 1 of four: 1-4, 2-3, in the week after the Swiss's last deadline.
    assert [(a, b) for _, a, b in await open_matches(sessions, StageKind.CANDIDATES)] == [
        ("Ann", "Ogul1"),
        ("Cid", "Eve"),
    ]
    async with sessions() as session:
        first = await session.scalar(select(Round).where(Round.stage_id == candidates.id))
    assert first is not None and first.starts_at == datetime(2019, 10, 7, tzinfo=UTC)
    posts = await announcements(sessions)
    assert any(
        "Final standings" in p and "Qualified for the Candidates: Ann, Cid, Eve" in p for p in posts
    )
    assert any("Candidates round 1 of 3 is out" in p for p in posts)


async def test_a_tie_across_third_place_is_played_off_and_decides(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await one_round_swiss(sessions, config)
    results = {**game("Ann", "Bea", 6, 0), **game("Cid", "Dan", 6, 0), **game("Eve", "Fay", 5, 5)}
    await play(rounds, sessions, StageKind.SWISS, results)

    assert await stage_of(sessions, StageKind.CANDIDATES) is None
    tiebreak = await stage_of(sessions, StageKind.TIEBREAK)
    assert tiebreak is not None and tiebreak.state is StageState.RUNNING
    assert sorted(await names(sessions, tiebreak.seeding)) == ["Eve", "Fay"]
    posts = await announcements(sessions)
    assert any("Tied across place 3" in p and "Eve" in p and "Fay" in p for p in posts)

    # two players: the tiebreak stops early like a Swiss match (6-2 cannot be caught)
    await play(rounds, sessions, StageKind.TIEBREAK, game("Eve", "Fay", 2, 6))
    candidates = await stage_of(sessions, StageKind.CANDIDATES)
    assert candidates is not None
    assert await names(sessions, candidates.seeding) == ["Ann", "Cid", "Fay", "Ogul1"]
    assert any(
        "Fay" in p and "qualifies for the Candidates" in p for p in await announcements(sessions)
    )


async def test_a_drawn_tiebreak_goes_to_the_td_once(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await one_round_swiss(sessions, config)
    results = {**game("Ann", "Bea", 6, 0), **game("Cid", "Dan", 6, 0), **game("Eve", "Fay", 5, 5)}
    await play(rounds, sessions, StageKind.SWISS, results)
    with pytest.raises(WrongStage):
        await rounds.decide_tie(td_id=TD_ID, player_id=1)  # nothing to decide yet
    await play(rounds, sessions, StageKind.TIEBREAK, game("Eve", "Fay", 5, 5))

    assert await stage_of(sessions, StageKind.CANDIDATES) is None
    asks = [m for m in await td_messages(sessions) if "leave to you" in m.content]
    assert len(asks) == 1 and asks[0].view is not None
    buttons = asks[0].view["args"]["players"]
    assert sorted(name for _, name in buttons) == ["Eve", "Fay"]
    with pytest.raises(InvalidInput):
        await rounds.decide_tie(td_id=TD_ID, player_id=10**6)
    eve = next(pid for pid, name in buttons if name == "Eve")
    choice = await rounds.decide_tie(td_id=TD_ID, player_id=eve)
    assert choice.done and choice.player == "Eve"
    candidates = await stage_of(sessions, StageKind.CANDIDATES)
    assert candidates is not None
    assert await names(sessions, candidates.seeding) == ["Ann", "Cid", "Eve", "Ogul1"]
    async with sessions() as session:
        decision = await session.scalar(select(TDDecision).where(TDDecision.kind == "stage_tie"))
    assert decision is not None and decision.decision == "eve"


async def candidates_of_four(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await one_round_swiss(sessions, config)
    results = {**game("Ann", "Bea", 6, 0), **game("Cid", "Dan", 6, 0), **game("Eve", "Fay", 6, 0)}
    await play(rounds, sessions, StageKind.SWISS, results)


async def test_candidates_tie_on_match_points_broken_by_game_points(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await candidates_of_four(rounds, sessions, config)
    # Ann and Cid both 2.5 match points; Ann 19 game points, Cid 18 (rule III.F.3).
    await play(
        rounds,
        sessions,
        StageKind.CANDIDATES,
        {**game("Ann", "Ogul1", 6, 4), **game("Cid", "Eve", 7, 3)},
    )
    with pytest.raises(InvalidInput):  # Candidates matches are played out (III.F.2)
        (match_id, _, _), *_ = await open_matches(sessions, StageKind.CANDIDATES)
        await rounds.set_score(td_id=TD_ID, match_id=match_id, score_a=6, score_b=0, reason=None)
    await play(
        rounds,
        sessions,
        StageKind.CANDIDATES,
        {**game("Ogul1", "Eve", 5, 5), **game("Ann", "Cid", 5, 5)},
    )
    await play(
        rounds,
        sessions,
        StageKind.CANDIDATES,
        {**game("Cid", "Ogul1", 6, 4), **game("Eve", "Ann", 2, 8)},
    )
    candidates = await stage_of(sessions, StageKind.CANDIDATES)
    assert candidates is not None and candidates.state is StageState.FINISHED
    posts = await announcements(sessions)
    assert any(
        "**Ann** wins the Candidates" in p and "**Cid** is the runner-up" in p for p in posts
    )
    table = next(p for p in posts if "The Candidates are over" in p)
    assert "1. Ann · 2.5 · 19" in table and "2. Cid · 2.5 · 18" in table


async def test_a_candidates_tie_left_to_the_td(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await candidates_of_four(rounds, sessions, config)
    for _ in range(3):  # every match 5-5: all four share the first place
        pending = await open_matches(sessions, StageKind.CANDIDATES)
        await play(
            rounds,
            sessions,
            StageKind.CANDIDATES,
            {k: v for _, a, b in pending for k, v in game(a, b, 5, 5).items()},
        )
    asks = [m for m in await td_messages(sessions) if "leave to you" in m.content]
    assert len(asks) == 1 and "be the Challenger" in asks[0].content
    players = dict((name, pid) for pid, name in asks[0].view["args"]["players"])  # type: ignore[index]
    assert sorted(players) == ["Ann", "Cid", "Eve", "Ogul1"]
    first = await rounds.decide_tie(td_id=TD_ID, player_id=players["Cid"])
    assert not first.done  # three left for the runner-up
    second = await rounds.decide_tie(td_id=TD_ID, player_id=players["Ogul1"])
    assert second.done
    posts = await announcements(sessions)
    assert any(
        "**Cid** wins the Candidates" in p and "**Ogul1** is the runner-up" in p for p in posts
    )
    with pytest.raises(WrongStage):
        await rounds.decide_tie(td_id=TD_ID, player_id=players["Ann"])


# --- withdrawals (rule VIII) in each stage -----------------------------------------------------


async def leave(
    sessions: async_sessionmaker[AsyncSession], rounds: RoundService, name: str
) -> list[str]:
    from bot.audit import Actor
    from bot.features.discipline import service as discipline

    async with sessions() as session:
        player = await session.scalar(select(Player).where(Player.lichess_username == name))
        assert player is not None
    async with transaction(sessions) as session:
        return await discipline.withdraw(
            session,
            rounds.config,
            rounds.events,
            player_id=player.id,
            actor=Actor.player(player.discord_id or 0),
            now=NOW,
        )


async def test_a_withdrawal_in_the_swiss_gives_the_match_away_and_leaves_the_table(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await one_round_swiss(sessions, config)
    await leave(sessions, rounds, "Fay")
    assert [(a, b) for _, a, b in await open_matches(sessions, StageKind.SWISS)] == [
        ("Ann", "Bea"),
        ("Cid", "Dan"),
    ]
    await play(
        rounds, sessions, StageKind.SWISS, {**game("Ann", "Bea", 6, 0), **game("Cid", "Dan", 6, 0)}
    )
    candidates = await stage_of(sessions, StageKind.CANDIDATES)
    assert candidates is not None
    # Eve won by forfeit (1 point, like Ann and Cid); Fay is out of the running.
    field = await names(sessions, candidates.seeding)
    assert sorted(field[:3]) == ["Ann", "Cid", "Eve"] and "Fay" not in field
    assert any("Fay** has withdrawn" in p for p in await announcements(sessions))


async def test_a_withdrawal_in_the_tiebreak_qualifies_the_opponent(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await one_round_swiss(sessions, config)
    results = {**game("Ann", "Bea", 6, 0), **game("Cid", "Dan", 6, 0), **game("Eve", "Fay", 5, 5)}
    await play(rounds, sessions, StageKind.SWISS, results)
    await leave(sessions, rounds, "Eve")
    candidates = await stage_of(sessions, StageKind.CANDIDATES)
    assert candidates is not None
    assert await names(sessions, candidates.seeding) == ["Ann", "Cid", "Fay", "Ogul1"]


async def test_a_withdrawal_in_the_candidates_disregards_every_match(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await candidates_of_four(rounds, sessions, config)
    await play(rounds, sessions, StageKind.CANDIDATES, game("Ann", "Ogul1", 2, 8))
    await leave(sessions, rounds, "Ogul1")  # his win over Ann no longer counts
    for _ in range(3):
        pending = await open_matches(sessions, StageKind.CANDIDATES)
        scores: dict[frozenset[str], dict[str, float]] = {}
        for _, a, b in pending:
            other = b if a == "Ann" else a
            scores.update(game("Ann", other, 6, 4) if "Ann" in (a, b) else game(a, b, 6, 4))
        await play(rounds, sessions, StageKind.CANDIDATES, scores)
    candidates = await stage_of(sessions, StageKind.CANDIDATES)
    assert candidates is not None and candidates.state is StageState.FINISHED
    posts = await announcements(sessions)
    table = next(p for p in posts if "The Candidates are over" in p)
    assert "Ogul1" not in table
    assert any("**Ann** wins the Candidates" in p for p in posts), posts[-3:]


async def finished_candidates(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    """Ann wins the Candidates on game points, Cid is the runner-up (as above)."""
    await candidates_of_four(rounds, sessions, config)
    for scores in (
        {**game("Ann", "Ogul1", 6, 4), **game("Cid", "Eve", 7, 3)},
        {**game("Ogul1", "Eve", 5, 5), **game("Ann", "Cid", 5, 5)},
        {**game("Cid", "Ogul1", 6, 4), **game("Eve", "Ann", 2, 8)},
    ):
        await play(rounds, sessions, StageKind.CANDIDATES, scores)


async def final_pairing(sessions: async_sessionmaker[AsyncSession]) -> list[tuple[str, str]]:
    return [(a, b) for _, a, b in await open_matches(sessions, StageKind.FINAL)]


async def test_the_candidates_winner_meets_the_champion_in_the_final(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await finished_candidates(rounds, sessions, config)
    assert await final_pairing(sessions) == [("arimakat", "Ann")]
    final = await stage_of(sessions, StageKind.FINAL)
    assert final is not None and final.state is StageState.RUNNING
    assert any("**The Final**" in p and "arimakat" in p for p in await announcements(sessions))


async def test_the_challenger_leaves_and_the_runner_up_takes_the_place(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await finished_candidates(rounds, sessions, config)
    await leave(sessions, rounds, "Ann")
    assert await final_pairing(sessions) == [("arimakat", "Cid")]  # rule VIII.C.2
    assert any("The Final changes" in p for p in await announcements(sessions))


async def test_the_champion_leaves_and_the_challenger_plays_the_runner_up(
    rounds: RoundService, sessions: async_sessionmaker[AsyncSession], config: Config
) -> None:
    await finished_candidates(rounds, sessions, config)
    await leave(sessions, rounds, "arimakat")
    assert await final_pairing(sessions) == [("Ann", "Cid")]  # rule VIII.C.1
