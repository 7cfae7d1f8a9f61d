"""The end of the Swiss asks the format: its tiebreak chain ranks the table, decides the
qualifiers and names the standings post's columns; without tiebreak matches a tie across
the cut is the chain's `seed`'s, or the TD's. Played through the real command tree.

A Swiss of one round of nine (Ann-Bea, Cid-Dan, Eve-Fay, Gus-Hal, Ira a bye): Ann, Cid and
Eve win, Gus and Hal draw, so Ann, Cid, Eve and Ira share the first place on one point with
the same Median-Buchholz (0: their opponents scored nothing, a bye is no opponent) and the
same cumulative score (1), for three places. Ira is the best seed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.format.model import SwissStage
from db.engine import transaction
from db.models import Match, MatchState, Player, Registration, RegistrationState, Stage, StageKind
from db.models import StageState as State
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.factories import ROUND_THREAD, seed_round
from tests.features.rounds.test_stages import (
    NOW,
    announcements,
    game,
    names,
    open_matches,
    stage_of,
    td_messages,
)
from tests.harness import DiscordHarness
from tests.running import RunningBot

NINE = [
    (901, "Ann"),
    (902, "Bea"),
    (903, "Cid"),
    (904, "Dan"),
    (905, "Eve"),
    (906, "Fay"),
    (907, "Gus"),
    (908, "Hal"),
    (909, "Ira"),
]
RESULTS = {
    **game("Ann", "Bea", 6, 0),
    **game("Cid", "Dan", 6, 0),
    **game("Eve", "Fay", 6, 0),
    **game("Gus", "Hal", 5, 5),
}
CHAIN_2022 = ("median_buchholz", "cumulative", "kashdan", "seed")


def with_swiss(config: Config, **settings: object) -> Config:
    """The config with its format's Swiss stage changed (the 2019 shape otherwise)."""
    stages = tuple(
        stage.model_copy(update=settings) if isinstance(stage, SwissStage) else stage
        for stage in config.format.stages
    )
    return config.model_copy(update={"format": config.format.model_copy(update={"stages": stages})})


@asynccontextmanager
async def running(running_bot: RunningBot, cfg: Config) -> AsyncIterator[DiscordHarness]:
    async with running_bot(cfg) as (_, h):
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        h.add_text_channel(ROUND_THREAD, "round-1")
        for user_id, name in NINE:
            h.add_member(user_id, name.lower())
        yield h


async def one_round_of_nine(sessions: async_sessionmaker[AsyncSession], config: Config) -> None:
    """The Swiss above, Ira seeded first, and the pre-seeded Candidate and champion."""
    seeded = await seed_round(sessions, config, NINE)
    async with transaction(sessions) as session:
        stage = await session.get(Stage, seeded.stage_id)
        assert stage is not None
        stage.total_rounds = 1
        ira = seeded.player_ids["Ira"]
        stage.seeding = [ira, *(pid for pid in stage.seeding if pid != ira)]
        bye = await session.get(Match, seeded.match_ids[-1])
        assert bye is not None and bye.state is MatchState.BYE
        bye.points_a = 1.0
        for player_id in seeded.player_ids.values():
            session.add(
                Registration(
                    player_id=player_id,
                    state=RegistrationState.APPROVED,
                    problems=[],
                    evidence={},
                    created_at=NOW,
                    updated_at=NOW,
                )
            )
        for name, kind in (("Ogul1", StageKind.CANDIDATES), ("arimakat", StageKind.FINAL)):
            known = await session.scalar(select(Player).where(Player.lichess_id == name.lower()))
            if known is None:
                session.add(
                    Player(
                        lichess_id=name.lower(),
                        lichess_username=name,
                        pre_seeded_stage=kind,
                        created_at=NOW,
                    )
                )


async def play_swiss(h: DiscordHarness, sessions: async_sessionmaker[AsyncSession]) -> None:
    for match_id, a, b in await open_matches(sessions, StageKind.SWISS):
        score = RESULTS[frozenset((a, b))]
        options = {"match": match_id, "score_a": score[a], "score_b": score[b]}
        done = await h.slash("td round set-score", user=TD_ID, options=options)
        assert done.ephemeral and "recorded" in done.text, done.text


def standings_post(posts: Sequence[str]) -> str:
    (post,) = [p for p in posts if "Qualification standings" in p]
    return post


def header(post: str) -> list[str]:
    """The code block's header line, split into its columns."""
    line = post.split("```\n", 1)[1].splitlines()[0]
    return [cell.strip() for cell in line.split("  ") if cell.strip()]


def row_of(post: str, player: str) -> list[str]:
    line = next(li for li in post.splitlines() if f" {player} " in li or li.endswith(player))
    return line.lstrip("* ").split()


async def test_kashdan_decides_the_last_place_with_the_2022_chain(
    running_bot: RunningBot,
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
) -> None:
    clock.set(NOW)
    cfg = with_swiss(config, tiebreaks=CHAIN_2022)
    async with running(running_bot, cfg) as h:
        await one_round_of_nine(sessions, cfg)
        await play_swiss(h, sessions)

    # Median-Buchholz and the cumulative score leave the four equal; Kashdan gives a match
    # won 4 and a bye 0, so Ira, the best seed, is fourth: no tiebreak matches.
    assert await stage_of(sessions, StageKind.TIEBREAK) is None
    candidates = await stage_of(sessions, StageKind.CANDIDATES)
    assert candidates is not None and candidates.state is State.RUNNING
    assert await names(sessions, candidates.seeding) == ["Ann", "Cid", "Eve", "Ogul1"]
    posts = await announcements(sessions)
    assert any("Qualified for the Candidates: Ann, Cid, Eve." in p for p in posts)

    post = standings_post(posts)
    assert header(post) == [
        "No",
        "Player",
        "Pts",
        "Median-Buchholz",
        "Cumulative",
        "Kashdan",
        "Seed",
        "R1",
    ]
    assert "WvT" not in post and "MBH" not in post
    # Pts, Median-Buchholz, Cumulative, Kashdan, Seed, then the round
    assert row_of(post, "Ann")[2:7] == ["1", "0", "1", "4", "2"]
    assert row_of(post, "Ira")[:7] == ["4", "Ira", "1", "0", "1", "0", "1"]
    assert "Kashdan: 4 for a match won, 2 drawn, 1 lost, 0 for a bye." in post


async def test_the_2019_chain_plays_the_same_tie_off(
    running_bot: RunningBot,
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
) -> None:
    """The same Swiss under the 2019 chain: wins against tied players (none: nobody beat a
    one-pointer) and Median-Buchholz leave all four tied, so they play tiebreak matches."""
    clock.set(NOW)
    async with running(running_bot, config) as h:
        await one_round_of_nine(sessions, config)
        await play_swiss(h, sessions)

    assert await stage_of(sessions, StageKind.CANDIDATES) is None
    tiebreak = await stage_of(sessions, StageKind.TIEBREAK)
    assert tiebreak is not None
    assert sorted(await names(sessions, tiebreak.seeding)) == ["Ann", "Cid", "Eve", "Ira"]
    posts = await announcements(sessions)
    assert any("Tied across place 3 after both tiebreaks" in p for p in posts)
    assert header(standings_post(posts)) == ["No", "Player", "Pts", "WvT", "MBH", "R1"]


async def test_without_tiebreak_matches_the_seed_breaks_the_tie(
    running_bot: RunningBot,
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
) -> None:
    """`tiebreak_matches: false` and a chain ending in `seed`: the four one-pointers are
    equal on Median-Buchholz and the cumulative score, and the seed takes Ira (seed 1),
    Ann and Cid; no tiebreak stage is created."""
    clock.set(NOW)
    chain = ("median_buchholz", "cumulative", "seed")
    cfg = with_swiss(config, tiebreaks=chain, tiebreak_matches=False)
    async with running(running_bot, cfg) as h:
        await one_round_of_nine(sessions, cfg)
        await play_swiss(h, sessions)

    assert await stage_of(sessions, StageKind.TIEBREAK) is None
    candidates = await stage_of(sessions, StageKind.CANDIDATES)
    assert candidates is not None
    assert await names(sessions, candidates.seeding) == ["Ira", "Ann", "Cid", "Ogul1"]
    posts = await announcements(sessions)
    assert any("Qualified for the Candidates: Ira, Ann, Cid." in p for p in posts)
    assert header(standings_post(posts))[3:6] == ["Median-Buchholz", "Cumulative", "Seed"]
    assert not [m for m in await td_messages(sessions) if "leave to you" in m.content]


async def test_without_tiebreak_matches_a_tie_the_chain_leaves_is_the_tds(
    running_bot: RunningBot,
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
) -> None:
    """No tiebreak matches and no `seed` in the chain: the four are still tied across the
    cut, so the TD picks with the tie buttons, and the Candidates start after the last."""
    clock.set(NOW)
    cfg = with_swiss(config, tiebreaks=("median_buchholz",), tiebreak_matches=False)
    async with running(running_bot, cfg) as h:
        await one_round_of_nine(sessions, cfg)
        await play_swiss(h, sessions)
        assert await stage_of(sessions, StageKind.TIEBREAK) is None
        assert await stage_of(sessions, StageKind.CANDIDATES) is None
        posts = await announcements(sessions)
        assert any(
            "Tied across place 3 after every tiebreak: Ira, Ann, Cid, Eve. The TD decides" in p
            for p in posts
        ), posts
        (ask,) = [m for m in await td_messages(sessions) if "leave to you" in m.content]
        assert "Press who should qualify for the Candidates (3 places)." in ask.content
        assert ask.view is not None
        buttons = {name: pid for pid, name in ask.view["args"]["players"]}
        for name in ("Eve", "Ira"):
            pressed = await h.press(f"acwc:tie:{buttons[name]}", user=TD_ID, dm=True)
            assert pressed.ephemeral, pressed.text
        assert await stage_of(sessions, StageKind.CANDIDATES) is None  # one place left
        pressed = await h.press(f"acwc:tie:{buttons['Ann']}", user=TD_ID, dm=True)
        assert "goes through; the championship goes on" in pressed.text

    candidates = await stage_of(sessions, StageKind.CANDIDATES)
    assert candidates is not None
    assert await names(sessions, candidates.seeding) == ["Eve", "Ira", "Ann", "Ogul1"]
