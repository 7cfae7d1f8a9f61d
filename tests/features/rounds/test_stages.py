"""From the last Swiss round to the Final: qualifiers, tiebreak matches, the Candidates,
withdrawals, through the real command tree (a running bot on the fake Lichess and clock).

Scores are entered with `/td round set-score`, which runs the same round life cycle as
results read from Lichess (`MatchFinished`); the TD breaks ties with the buttons of their
DM; players leave with `/withdraw` (the pre-seeded ones, who have no registration, are
disqualified by the TD instead, which rule VIII treats the same).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.features.rounds.service import RoundService
from bot.rules.stages import next_monday
from db.engine import transaction
from db.models import (
    OutboxMessage,
    Player,
    Registration,
    RegistrationState,
    Round,
    Stage,
    StageKind,
    StageState,
    TDDecision,
)
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.entrants import unplayed_matches
from tests.factories import ROUND_DEADLINE, ROUND_THREAD, seed_round
from tests.harness import DiscordHarness
from tests.running import RunningBot

# One Swiss round of six: who wins which match decides the tie cases below.
SIX = [(601, "Ann"), (602, "Bea"), (603, "Cid"), (604, "Dan"), (605, "Eve"), (606, "Fay")]
NOW = datetime(2019, 10, 5, 12, 0, tzinfo=UTC)


# The running bot and its harness of the current test, by the id of its round service, so
# that the helpers below can act through commands and buttons.
HARNESS: dict[int, DiscordHarness] = {}


@pytest.fixture
async def rounds(running_bot: RunningBot, clock: FakeClock) -> AsyncIterator[RoundService]:
    clock.set(NOW)
    async with running_bot() as (bot, h):
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        h.add_text_channel(ROUND_THREAD, "round-1")
        for user_id, name in SIX:
            h.add_member(user_id, name.lower())
        service = bot.svc.rounds
        HARNESS[id(service)] = h
        yield service
        del HARNESS[id(service)]


async def tie(rounds: RoundService, player_id: int) -> str:
    """The TD presses the tie button of `player_id` (the custom id of their DM's button)."""
    pressed = await HARNESS[id(rounds)].press(f"acwc:tie:{player_id}", user=TD_ID, dm=True)
    assert pressed.ephemeral, pressed.text
    return pressed.text


async def one_round_swiss(sessions: async_sessionmaker[AsyncSession], config: Config) -> list[int]:
    """A Swiss of one round (Ann-Bea, Cid-Dan, Eve-Fay) and the pre-seeded Candidate."""
    seeded = await seed_round(sessions, config, SIX)
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
    return await unplayed_matches(sessions, Stage.kind == kind)


async def play(
    rounds: RoundService,
    sessions: async_sessionmaker[AsyncSession],
    kind: StageKind,
    scores: dict[frozenset[str], dict[str, float]],
) -> None:
    """Enter the score of every open match of the stage that `scores` names."""
    h = HARNESS[id(rounds)]
    for match_id, a, b in await open_matches(sessions, kind):
        score = scores.get(frozenset((a, b)))
        if score is None:
            continue
        options = {"match": match_id, "score_a": score[a], "score_b": score[b]}
        done = await h.slash("td round set-score", user=TD_ID, options=options)
        assert done.ephemeral and "recorded" in done.text, done.text


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
        "qualification is over" in p and "Qualified for the Candidates: Ann, Cid, Eve" in p
        for p in posts
    )
    # one table per post: the final table is the last round's standings post, not repeated
    assert sum("Qualification standings" in p for p in posts) == 1
    assert not any("qualification is over" in p and "Ann ·" in p for p in posts)
    assert any("Candidates round 1 of 3 is out" in p for p in posts)
    # the Candidates list is told once (issue 32): the qualification post names the
    # qualifiers, the start post refers back to them and names the pre-seeded player
    [start] = [p for p in posts if "**The Candidates** start" in p]
    assert "(4 players, rule III.F): the 3 qualifiers above and **Ogul1**, pre-seeded" in start
    assert not any(n in start for n in ("Ann", "Cid", "Eve")), start
    assert sum("Qualified for the Candidates" in p for p in posts) == 1


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
    assert "no tie waiting" in await tie(rounds, 1)  # nothing to decide yet
    await play(rounds, sessions, StageKind.TIEBREAK, game("Eve", "Fay", 5, 5))

    assert await stage_of(sessions, StageKind.CANDIDATES) is None
    asks = [m for m in await td_messages(sessions) if "leave to you" in m.content]
    assert len(asks) == 1 and asks[0].view is not None
    buttons = asks[0].view["args"]["players"]
    assert sorted(name for _, name in buttons) == ["Eve", "Fay"]
    assert "not part of the tie" in await tie(rounds, 10**6)
    eve = next(pid for pid, name in buttons if name == "Eve")
    assert "Eve goes through; the championship goes on" in await tie(rounds, eve)
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
    (match_id, _, _), *_ = await open_matches(sessions, StageKind.CANDIDATES)
    refused = await HARNESS[id(rounds)].slash(
        "td round set-score",
        user=TD_ID,
        options={"match": match_id, "score_a": 6, "score_b": 0},
    )
    assert refused.ephemeral and "played out" in refused.text  # rule III.F.2
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
    # the final crosstable is the last round's standings post, once (issue 27: it was posted
    # twice, as a table and as a list)
    tables = [p for p in posts if "Candidates crosstable" in p and "after round 3 of 3" in p]
    assert len(tables) == 1
    assert re.search(r"1  Ann .* 2\.5  19\n.*2  Cid .* 2\.5  18\n", tables[0])
    assert not any("The Candidates are over" in p for p in posts)


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
    assert "Final table (match points · game points)" in asks[0].content  # with the table
    players = dict((name, pid) for pid, name in asks[0].view["args"]["players"])  # type: ignore[index]
    assert sorted(players) == ["Ann", "Cid", "Eve", "Ogul1"]
    first = await tie(rounds, players["Cid"])
    assert "choose the next place" in first  # three left for the runner-up
    second = await tie(rounds, players["Ogul1"])
    assert "the championship goes on" in second
    posts = await announcements(sessions)
    assert any(
        "**Cid** wins the Candidates" in p and "**Ogul1** is the runner-up" in p for p in posts
    )
    assert "no tie waiting" in await tie(rounds, players["Ann"])


# --- withdrawals (rule VIII) in each stage -----------------------------------------------------


async def leave(sessions: async_sessionmaker[AsyncSession], rounds: RoundService, name: str) -> str:
    """The player withdraws with /withdraw and its confirmation; a pre-seeded player (no
    registration) is disqualified by the TD, which has the same effect (rule VIII)."""
    h = HARNESS[id(rounds)]
    async with sessions() as session:
        player = await session.scalar(select(Player).where(Player.lichess_username == name))
        assert player is not None
    if player.pre_seeded_stage is not None:
        options = {"player": name, "reason": "left the championship"}
        done = await h.slash("td discipline disqualify", user=TD_ID, options=options)
        assert done.ephemeral and "disqualified" in done.text, done.text
        return done.text
    assert player.discord_id is not None
    ask = await h.slash("withdraw", user=player.discord_id)
    assert ask.ephemeral and "rule VIII" in ask.text, ask.text
    button = str(h.buttons(ask.last)[0]["custom_id"])
    done = await h.press(button, user=player.discord_id, message=ask.last)
    assert "withdrawn" in done.text, done.text
    return ask.text


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
    table = next(p for p in posts if "Candidates crosstable" in p and "after round 3" in p)
    assert "Ogul1 (wd)" in table  # who left is marked; their matches are disregarded
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
