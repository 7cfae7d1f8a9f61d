"""The bracket where spectators look: /standings through the command tree (the bracket first,
in place of a knock-out's table, beside the finals' scoreboards), and the posts in the
announcement channel when a knock-out's round closes and when a final match ends."""

from __future__ import annotations

import io

from PIL import Image
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.discord_limits import MESSAGE_CONTENT
from bot.features.tables.bracket_picture import BRACKET_PICTURE, bracket_picture
from bot.features.tables.render import STANDINGS_PICTURE
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
from tests.factories import ROUND_DEADLINE, ROUND_START
from tests.features.rounds.test_format_flow import (
    NOW,
    decide_final,
    open_matches,
    play_pool,
    preset,
    swiss_2024_played,
    swiss_won_in_seed_order,
)
from tests.running import ALICE, RunningBot

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]


async def _row(
    session: AsyncSession,
    kind: StageKind,
    key: str,
    name: str,
    position: int,
    state: StageState,
    pairs: list[tuple[int, int, float, float, float | None]],
) -> list[Match]:
    """A stage row of one round; each pair (a, b, score a, score b, points a or None while
    the match is played)."""
    stage = Stage(
        kind=kind,
        key=key,
        name=name,
        position=position,
        pool="",
        state=state,
        total_rounds=1,
        seeding=[p for a, b, *_ in pairs for p in (a, b)],
    )
    session.add(stage)
    await session.flush()
    round_ = Round(
        stage_id=stage.id,
        number=1,
        state=RoundState.PUBLISHED,
        starts_at=ROUND_START,
        deadline=ROUND_DEADLINE,
    )
    session.add(round_)
    await session.flush()
    matches = []
    for board, (a, b, sa, sb, pa) in enumerate(pairs, start=1):
        done = pa is not None
        matches.append(
            Match(
                round_id=round_.id,
                board=board,
                player_a_id=a,
                player_b_id=b,
                state=MatchState.FINISHED if done else MatchState.IN_PROGRESS,
                score_a=sa,
                score_b=sb,
                points_a=pa,
                points_b=None if pa is None else 1 - pa,
                td_assigns=False,
            )
        )
    session.add_all(matches)
    await session.flush()
    return matches


def _games(match: Match, results_a: list[float]) -> list[Game]:
    return [
        Game(
            match_id=match.id,
            lichess_id=f"g{match.id}x{n}",
            number=n,
            white_player_id=match.player_a_id if n % 2 else match.player_b_id or 0,
            black_player_id=match.player_b_id or 0 if n % 2 else match.player_a_id,
            status="variantEnd",
            result_a=r,
            counted=True,
            created_at=ROUND_START,
        )
        for n, r in enumerate(results_a, start=1)
    ]


async def test_standings_shows_the_bracket_through_the_command_tree(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    config = preset(config, "acwc-2024")
    clock.set(NOW)
    async with running_bot(config) as (bot, h):
        assert bot.sessions is not None
        async with transaction(bot.sessions) as session:
            players = [
                Player(lichess_id=n.lower(), lichess_username=n, created_at=ROUND_START)
                for n in NAMES
            ]
            session.add_all(players)
            await session.flush()
            i = [p.id for p in players]
            # Semifinal 2 is 5-5 after ten games; Cat (side b) wins the Armageddon.
            _, semi_2 = await _row(
                session,
                StageKind.KNOCKOUT,
                "semifinals",
                "Semifinals",
                2,
                StageState.FINISHED,
                [(i[0], i[4], 5.5, 2, 1.0), (i[6], i[2], 5, 6, 0.0)],
            )
            session.add_all(_games(semi_2, [1.0, 0.0] * 5 + [0.0]))
            await _row(
                session,
                StageKind.FINAL,
                "grand_final",
                "Grand Final",
                3,
                StageState.RUNNING,
                [(i[0], i[2], 1, 0, None)],
            )
            await _row(
                session,
                StageKind.FINAL,
                "third_place",
                "Third Place Playoff",
                4,
                StageState.RUNNING,
                [(i[4], i[6], 0, 0, None)],
            )

        semis = await h.slash("standings", user=ALICE, options={"stage": "semifinals"})
        assert semis.ephemeral and [r.files for r in semis.responses] == [["bracket.png"]]
        text = semis.text
        assert "Semifinal 1: **Ann** (Upper pool 1st) 5.5–2 Eve (Lower pool 2nd)" in text
        assert "Semifinal 2: Gus (Lower pool 1st) 5–5 **Cat** (Upper pool 2nd)" in text
        assert "Cat wins on Armageddon" in text
        assert "Grand Final: Ann (Winner of Semifinal 1) 1–0 Cat (Winner of Semifinal 2)" in text
        assert "Third Place Playoff: Eve (Loser of Semifinal 1) v Gus" in text
        assert len(text) <= MESSAGE_CONTENT

        # the current stage: both finals running, the bracket then each scoreboard
        current = await h.slash("standings", user=ALICE)
        assert [r.files for r in current.responses] == [
            ["bracket.png"],
            ["standings.png"],
            ["standings.png"],
        ]
        assert current.responses[0].text == text
        assert "Grand Final · ACWC 2024: Ann vs Cat" in current.responses[1].text
        answers = await bot.svc.tables.standings_answers("grand_final")
        picture = Image.open(io.BytesIO(answers[0].png))
        assert answers[0].filename == "bracket.png"
        assert picture.format == "PNG" and 800 <= picture.width <= 1600


async def _posts(sessions: async_sessionmaker[AsyncSession]) -> list[OutboxMessage]:
    async with sessions() as session:
        rows = await session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.target_id == ANNOUNCE_CHANNEL)
            .order_by(OutboxMessage.id)
        )
        return list(rows)


def _kind(row: OutboxMessage) -> str | None:
    return row.attachment["kind"] if row.attachment else None


async def test_the_bracket_is_posted_as_the_semifinals_and_the_finals_end(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    config, services = await swiss_2024_played(sessions, config, clock)
    async with sessions() as session:
        pools = {s.pool: s for s in await session.scalars(select(Stage).where(Stage.pool != ""))}
        ids = {p.id: p.lichess_username for p in await session.scalars(select(Player))}
    for pool, row in pools.items():
        await play_pool(services, sessions, "candidates", pool, [ids[i] for i in row.seeding])
    before = len(await _posts(sessions))
    semis = await open_matches(sessions, "semifinals")
    (_, a1, b1), (_, a2, b2) = semis
    for match_id, _, _ in semis:  # side b wins both
        await services.rounds.set_score(
            td_id=TD_ID, match_id=match_id, score_a=4.0, score_b=6.0, reason=None
        )
    posts = (await _posts(sessions))[before:]
    brackets = [p for p in posts if _kind(p) == BRACKET_PICTURE]
    assert len(brackets) == 1  # the round's post: the bracket, not the knock-out's table
    assert not any((p.content or "").startswith("**Semifinals ·") for p in posts)
    text = brackets[0].content or ""
    assert f"Semifinal 1: {a1} (Upper pool 1st) 4–6 **{b1}** (Lower pool 2nd)" in text
    assert f"Grand Final: {b1} (Winner of Semifinal 1) v {b2} (Winner of Semifinal 2)" in text
    assert f"Third Place Playoff: {a1} (Loser of Semifinal 1) v {a2}" in text
    assert brackets[0].attachment is not None
    name, png = bracket_picture(brackets[0].attachment["args"])
    assert name == "bracket.png" and Image.open(io.BytesIO(png)).format == "PNG"

    before = len(await _posts(sessions))
    (grand,) = await open_matches(sessions, "grand_final")
    await decide_final(services, sessions, grand[0], 7.0, 5.0)
    posts = (await _posts(sessions))[before:]
    # the scoreboard, then the bracket with the champion
    kinds = [_kind(p) for p in posts if _kind(p)]
    assert kinds == [STANDINGS_PICTURE, BRACKET_PICTURE]
    final = next(p for p in posts if _kind(p) == BRACKET_PICTURE).content or ""
    assert final.endswith(f"**Champion: {b1}**")
    assert f"{b1} wins: champion" in final
    assert len(final) <= MESSAGE_CONTENT


async def test_the_2020_knockout_bracket_sends_its_winners_to_the_candidates(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    config = preset(config, "acwc-2020")
    names = [f"Q{i:02}" for i in range(1, 13)]
    services = await swiss_won_in_seed_order(sessions, config, clock, names)
    knockout = await open_matches(sessions, "knockout")
    for match_id, _, _ in knockout:
        await services.rounds.set_score(
            td_id=TD_ID, match_id=match_id, score_a=6.0, score_b=4.0, reason=None
        )
    (post,) = [p for p in await _posts(sessions) if _kind(p) == BRACKET_PICTURE]
    text = post.content or ""
    # Swiss 5 v 12 ... 8 v 9, every winner to the Candidates
    for number, ((_, a, b), seats) in enumerate(
        zip(knockout, ((5, 12), (6, 11), (7, 10), (8, 9)), strict=True), start=1
    ):
        assert (
            f"Knock-Out {number}: **{a}** (Qualification {seats[0]}th) 6–4 "
            f"{b} (Qualification {seats[1]}th) · {a} wins · Winner to the Candidates"
        ) in text
