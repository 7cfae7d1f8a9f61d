"""The Final read game by game (rule III.G): the score after each game, the next time
control, a new game link when it changes, and the champion as soon as nothing can change."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.rules import final as final_rules
from bot.wiring import Services
from cogs.common import STALE_FORM
from db.engine import transaction
from db.models import (
    Match,
    MatchState,
    OutboxMessage,
    Player,
    Stage,
    StageKind,
    StageState,
)
from tests.conftest import ANNOUNCE_CHANNEL
from tests.factories import ROUND_START, ROUND_THREAD
from tests.fakes.lichess import FakeLichess
from tests.results_helpers import AGREED, agreed_single_match
from tests.running import RunningBot

CHAMPION, CHALLENGER = "arimakat", "Chall"


@pytest.fixture
async def services(running_bot: RunningBot, clock: FakeClock) -> AsyncIterator[Services]:
    """The running bot's services: its periodic jobs read the games from the fake Lichess."""
    clock.set(AGREED)
    async with running_bot() as (bot, _):
        yield bot.svc


async def final_match(sessions: async_sessionmaker[AsyncSession], fake: FakeLichess) -> int:
    """The Final set up as the stage flow does, with its first session agreed."""
    async with transaction(sessions) as session:
        champion = await session.scalar(select(Player).where(Player.lichess_id == CHAMPION))
        if champion is None:  # a running bot has entered the pre-seeded champion already
            champion = Player(
                lichess_id=CHAMPION, lichess_username=CHAMPION, created_at=ROUND_START
            )
        champion.discord_id = 701
        challenger = Player(
            lichess_id=CHALLENGER.lower(),
            lichess_username=CHALLENGER,
            discord_id=702,
            created_at=ROUND_START,
        )
        session.add_all([champion, challenger])
        await session.flush()
        match_id = await agreed_single_match(
            session, StageKind.FINAL, champion, challenger, ROUND_START + timedelta(days=90)
        )
    for name in (CHAMPION, CHALLENGER):
        fake.add_user(name, created_at=datetime(2017, 1, 1, tzinfo=UTC))
    return match_id


def add_games(
    fake: FakeLichess,
    results: list[float],
    *,
    first: int = 1,
    clocks: list[tuple[int, int]],
    champion_white: bool | None = None,
    after: timedelta = timedelta(0),
    record: tuple[int, ...] | None = None,
) -> None:
    """Games `first`.. of the Final with the champion's results, colours alternating."""
    for offset, (result, clock) in enumerate(zip(results, clocks, strict=True)):
        number = first + offset
        odd = number % 2 == 1 if champion_white is None else champion_white
        white, black = (CHAMPION, CHALLENGER) if odd else (CHALLENGER, CHAMPION)
        champion_white = white == CHAMPION
        if result == 0.5:
            winner, status = None, "draw"
        else:
            won = result == 1.0
            winner = "white" if won == champion_white else "black"
            status = "variantEnd"
        created = AGREED + timedelta(minutes=2 + 10 * (number - 1)) + after
        fake.add_game(
            white=white,
            black=black,
            created_at=created,
            last_move_at=created + timedelta(minutes=8),
            winner=winner,
            status=status,
            clock=clock,
            clocks=record,
        )


def clocks_for(results: list[float], config: Config) -> list[tuple[int, int]]:
    """The clock each game must have, by the rules engine (2+5, or 2+0 after 12-12 at 24)."""
    out = []
    for n in range(len(results)):
        nxt = final_rules.status(results[:n], config.final_format()).next_game
        out.append((120, 0) if nxt == "2+0" else (120, 5))
    return out


async def poll(services: Services, clock: FakeClock, minutes: int) -> None:
    clock.set(AGREED + timedelta(minutes=minutes))
    await services.results.run_once()


async def state(sessions: async_sessionmaker[AsyncSession], match_id: int) -> Match:
    async with sessions() as session:
        match = await session.get(Match, match_id)
        assert match is not None
        return match


async def td_alerts(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    """The TD's notes: what the bot wrote outside the thread and the announcements."""
    async with sessions() as session:
        rows = await session.scalars(
            select(OutboxMessage).where(
                OutboxMessage.target_id.not_in((ROUND_THREAD, ANNOUNCE_CHANNEL))
            )
        )
        return [r.content for r in rows]


async def announced(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    async with sessions() as session:
        rows = await session.scalars(
            select(OutboxMessage).where(OutboxMessage.target_id == ANNOUNCE_CHANNEL)
        )
        return [r.content for r in rows]


async def thread(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    async with sessions() as session:
        rows = await session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.target_id == ROUND_THREAD)
            .order_by(OutboxMessage.id)
        )
        return [r.content for r in rows]


@pytest.mark.parametrize(
    ("results", "games", "score"),
    [
        # decided at 12 games with a two-point lead (III.G.1-2): 7-5
        ([1.0, 0.0] * 5 + [1.0, 1.0], 12, (7.0, 5.0)),
        # 6.5-5.5 after 12: a 2+5 extension of two games, then 8-6 (III.G.3)
        ([1.0, 0.0] * 5 + [1.0, 0.5, 1.0, 0.5], 14, (8.0, 6.0)),
        # 24 games without a two-point lead: the lead rule is dropped, 12.5-11.5 wins (III.G.4)
        ([1.0, 0.0] * 11 + [1.0, 0.5], 24, (12.5, 11.5)),
    ],
)
async def test_the_final_ends_when_the_rules_say(
    services: Services,
    sessions: async_sessionmaker[AsyncSession],
    fake: FakeLichess,
    clock: FakeClock,
    config: Config,
    results: list[float],
    games: int,
    score: tuple[float, float],
) -> None:
    match_id = await final_match(sessions, fake)
    await poll(services, clock, 0)  # the game link
    add_games(fake, results, clocks=clocks_for(results, config))
    await poll(services, clock, 10 * len(results) + 30)
    match = await state(sessions, match_id)
    assert match.state is MatchState.FINISHED, (match.score_a, match.score_b)
    assert (match.score_a, match.score_b) == score
    async with sessions() as session:
        stage = await session.scalar(select(Stage).where(Stage.kind == StageKind.FINAL))
    assert stage is not None and stage.state is StageState.FINISHED
    assert any(
        f"**{CHAMPION if score[0] > score[1] else CHALLENGER}** is the" in p and "champion" in p
        for p in await announced(sessions)
    )
    assert len(results) == games


async def test_twelve_all_at_24_goes_to_2_0_with_a_new_link(
    services: Services,
    sessions: async_sessionmaker[AsyncSession],
    fake: FakeLichess,
    clock: FakeClock,
    config: Config,
) -> None:
    match_id = await final_match(sessions, fake)
    await poll(services, clock, 0)
    assert len(fake.challenges) == 1
    first_24 = [1.0, 0.0] * 12  # 12-12 after 24 games
    add_games(fake, first_24, clocks=[(120, 5)] * 24)
    await poll(services, clock, 10 * 24 + 5)
    match = await state(sessions, match_id)
    assert match.state is MatchState.IN_PROGRESS and (match.score_a, match.score_b) == (12, 12)
    # the next game is 2+0 (III.G.5): the players are told and a new link has that clock
    assert any("Game 25 is **2+0**" in t for t in await thread(sessions))
    await poll(services, clock, 10 * 24 + 6)  # the sweep/results job opens the new link
    assert len(fake.challenges) == 2
    form = fake.challenges[-1]["form"]
    assert (form["clock.limit"], form["clock.increment"]) == ("120", "0")

    # a game at the old 2+5 clock does not count; two 2+0 games break the tie: 13.5-12.5
    add_games(fake, [1.0], first=25, clocks=[(120, 5)])
    await poll(services, clock, 10 * 25 + 5)
    assert (await state(sessions, match_id)).score_a == 12
    add_games(fake, [1.0, 0.5], first=26, clocks=[(120, 0), (120, 0)])
    await poll(services, clock, 10 * 27 + 5)
    match = await state(sessions, match_id)
    assert match.state is MatchState.FINISHED and (match.score_a, match.score_b) == (13.5, 12.5)
    assert any(f"**{CHAMPION}** is the" in p for p in await announced(sessions))


async def test_armageddon_with_equal_bids_goes_to_black_on_a_draw(
    services: Services,
    sessions: async_sessionmaker[AsyncSession],
    fake: FakeLichess,
    clock: FakeClock,
    config: Config,
) -> None:
    from bot.errors import InvalidInput, WrongStage

    match_id = await final_match(sessions, fake)
    await poll(services, clock, 0)
    thirty = [1.0, 0.0] * 15  # 12-12 after 24, still equal after the six 2+0 games
    add_games(fake, thirty, clocks=clocks_for(thirty, config))
    await poll(services, clock, 10 * 30 + 5)
    match = await state(sessions, match_id)
    assert match.state is MatchState.IN_PROGRESS and (match.score_a, match.score_b) == (15, 15)
    async with sessions() as session:
        asks = (
            await session.scalars(
                select(OutboxMessage).where(OutboxMessage.content.contains("Armageddon"))
            )
        ).all()
    bid_asks = [m for m in asks if m.view and m.view["kind"] == "armageddon_bid"]
    assert sorted(m.target_id for m in bid_asks) == [701, 702]
    links_before = len(fake.challenges)
    await poll(services, clock, 10 * 30 + 6)
    assert len(fake.challenges) == links_before  # no Armageddon link before the bids

    # a game before the reveal is not the Armageddon
    add_games(fake, [0.5], first=31, clocks=[(180, 0)], champion_white=True)
    await poll(services, clock, 10 * 31 + 5)
    assert (await state(sessions, match_id)).state is MatchState.IN_PROGRESS

    bids = services.bids
    with pytest.raises(InvalidInput):
        await bids.submit_bid(discord_id=701, match_id=match_id, text="soon")
    with pytest.raises(InvalidInput):
        await bids.submit_bid(discord_id=701, match_id=match_id, text="3:01")
    first = await bids.submit_bid(discord_id=701, match_id=match_id, text="2:30")
    assert first.seconds == 150 and not first.revealed
    assert not any("Armageddon bids:" in t for t in await thread(sessions))  # still hidden
    with pytest.raises(WrongStage):
        await bids.submit_bid(discord_id=701, match_id=match_id, text="1:00")
    second = await bids.submit_bid(discord_id=702, match_id=match_id, text="150")
    assert second.revealed
    reveal = next(t for t in await thread(sessions) if "Armageddon bids:" in t)
    assert f"**{CHAMPION}** plays White" in reveal and "equal bids" in reveal, reveal

    clock.set(AGREED + timedelta(minutes=10 * 31 + 10))
    await services.results.run_once()
    form = fake.challenges[-1]["form"]
    assert (form["clock.limit"], form["clock.increment"]) == ("180", "0")
    # the wrong side as White does not count; the right one drawn: Black (the challenger) wins
    add_games(fake, [0.5], first=33, clocks=[(180, 0)], champion_white=False)
    await poll(services, clock, 10 * 33 + 5)
    assert (await state(sessions, match_id)).state is MatchState.IN_PROGRESS
    add_games(fake, [0.5], first=34, clocks=[(180, 0)], champion_white=True)
    await poll(services, clock, 10 * 34 + 5)
    match = await state(sessions, match_id)
    assert match.state is MatchState.FINISHED and (match.points_a, match.points_b) == (0.0, 1.0)
    champion_post = next(p for p in await announced(sessions) if f"**{CHALLENGER}** is the" in p)
    assert champion_post.startswith("<@702> 🏆👑")  # the new champion is pinged (issue 32)
    # issue 32: the score is the 30 games' (the Armageddon adds no point, rule III.G.6),
    # and the post says the Armageddon decided it, and how (a draw is Black's)
    assert f"Final: **{CHAMPION}** 15–15 **{CHALLENGER}**, level after 30 games" in champion_post
    assert (
        f"the **Armageddon** decided it: drawn, so **{CHALLENGER}** won it with Black's draw odds"
    ) in champion_post
    # the thread hears the Armageddon's result (issue 32: only a scoreboard edit before)
    assert (
        f"⚖️ Final Armageddon: drawn, so **{CHALLENGER}** (Black) wins with draw odds. "
        f"**{CHALLENGER}** wins the Final."
    ) in "\n".join(await thread(sessions))
    # #announcements heard each turn of the Final between its start and the title
    said = await announced(sessions)
    assert (
        f"👑 **Final**: **{CHAMPION}** 6–6 **{CHALLENGER}** after 12 games: extended by 2 "
        "games (rule III.G.3): nobody leads by 2 points."
    ) in said
    assert any("after 24 games: the two-point rule is dropped and the clock becomes **2+0**" in p
               for p in said)  # fmt: skip
    assert any("after 30 games: level: an **Armageddon** game decides" in p for p in said)
    # Lichess sent no clock record for it: the TD is asked to check White's clock
    alerts = await td_alerts(sessions)
    assert any("sent no clock record" in a and "stayed above 0:30" in a for a in alerts)
    # the Armageddon's link is one game, not a series of rematches
    link_post = next(t for t in await thread(sessions) if "the **Armageddon** starts now" in t)
    assert "rematch" in link_post and "no rematch" in link_post
    assert "Play the following games as rematches" not in link_post


async def test_bids_through_the_button_and_the_private_form(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    clock.set(AGREED)
    async with running_bot() as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(ROUND_THREAD, "final")
        for user_id, name in ((701, "arimakat"), (702, "chall")):
            h.add_member(user_id, name)
        match_id = await final_match(bot.sessions, fake)
        await bot.svc.results.run_once()
        thirty = [1.0, 0.0] * 15
        add_games(fake, thirty, clocks=clocks_for(thirty, config))
        clock.set(AGREED + timedelta(minutes=10 * 30 + 5))
        await bot.svc.results.run_once()
        await bot.outbox.flush(limit=None)  # 30 posts, one per game read, and the DMs
        # both finalists open the form before either submits: each bid must still arrive
        forms: dict[int, str] = {}
        for user_id in (701, 702):
            ask = next(m for m in h.dms_to(user_id) if "Armageddon" in m.text)
            button = h.buttons(ask)[0]
            assert button["label"] == "Bid for White"
            opened = await h.press(str(button["custom_id"]), user=user_id, message=ask, dm=True)
            assert opened.responses and opened.responses[0].kind == "modal"
            forms[user_id] = str(opened.responses[0].custom_id)
        for user_id, bid in ((701, "2:10"), (702, "1:55")):
            taken = await h.submit_modal(forms[user_id], {"bid": bid}, user=user_id)
            assert taken.ephemeral and "is in" in taken.text, (user_id, taken.text)
        # a form from before a restart (no open form has its id) is answered, not dropped
        stale = await h.submit_modal(f"acwc:bid:{match_id}:old", {"bid": "1:00"}, user=701)
        assert stale.ephemeral and stale.text == STALE_FORM and stale.refusal == STALE_FORM
        await bot.outbox.flush()
        reveal = next(m for m in h.in_channel(ROUND_THREAD) if "Armageddon bids:" in m.text)
        assert f"**{CHALLENGER}** plays White (the lower bid) with 1:55" in reveal.text
        assert match_id


async def test_sessions_are_agreed_with_offer_and_accept_and_the_score_is_posted(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    clock.set(AGREED)
    async with running_bot() as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(ROUND_THREAD, "final")
        h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
        for user_id, name in ((701, "arimakat"), (702, "chall")):
            h.add_member(user_id, name)
        match_id = await final_match(bot.sessions, fake)
        await bot.svc.results.run_once()  # session 1: the link
        first = [1.0, 0.0, 1.0, 1.0]  # four games tonight: 3-1
        add_games(fake, first, clocks=clocks_for(first, config))
        clock.set(AGREED + timedelta(minutes=60))
        await bot.svc.results.run_once()
        assert (await state(bot.sessions, match_id)).score_a == 3.0

        # the next session: an offer once the session has begun asks for the next one
        nxt = AGREED + timedelta(days=2)
        offer = await h.slash("offer", user=701, options={"times": f"{nxt:%Y-%m-%d %H:%M}"})
        assert offer.ephemeral and "refused" not in offer.text.lower(), offer.text
        match = await state(bot.sessions, match_id)
        assert match.state is MatchState.NEGOTIATING and match.score_a == 3.0
        accepted = await h.slash("accept", user=702)
        assert accepted.ephemeral and f"{nxt:%H:%M}" in accepted.text, accepted.text
        assert any("end of a session" in p and "3–1" in p for p in await announced(bot.sessions))

        links = len(fake.challenges)
        clock.set(nxt)
        job, _ = bot.periodic_jobs()["deadlines"]
        await job()  # the new session's link at its minute
        assert len(fake.challenges) == links + 1
        # 7-4 after eleven games: the twelfth cannot change it, so the Final ends there
        rest = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
        for offset, result in enumerate(rest):
            number = 5 + offset
            white, black = (CHAMPION, CHALLENGER) if number % 2 else (CHALLENGER, CHAMPION)
            champion_white = white == CHAMPION
            created = nxt + timedelta(minutes=2 + 10 * offset)
            fake.add_game(
                white=white,
                black=black,
                created_at=created,
                last_move_at=created + timedelta(minutes=8),
                winner="white" if (result == 1.0) == champion_white else "black",
                status="variantEnd",
            )
        clock.set(nxt + timedelta(hours=2))
        await bot.svc.results.run_once()
        match = await state(bot.sessions, match_id)
        assert match.state is MatchState.FINISHED and (match.score_a, match.score_b) == (7, 4)
        posts = await announced(bot.sessions)
        assert any(f"**{CHAMPION}** is the" in p for p in posts)
        board = next(p for p in posts if "```" in p and "2+5" in p)  # the game-by-game table
        assert CHALLENGER in board


async def final_read_in_one_poll(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess, n: int
) -> tuple[list[str], list[str], list[str]]:
    """The first `n` games of a Final at 1-0 each way, read in one results poll: what the
    thread shows, and the DMs each finalist got."""
    clock.set(AGREED)
    async with running_bot() as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(ROUND_THREAD, "final")
        for user_id, name in ((701, "arimakat"), (702, "chall")):
            h.add_member(user_id, name)
        await final_match(bot.sessions, fake)
        await bot.svc.results.run_once()  # the game link
        await bot.outbox.flush()
        games = ([1.0, 0.0] * 15)[:n]
        add_games(fake, games, clocks=clocks_for(games, config))
        clock.set(AGREED + timedelta(minutes=10 * n + 5))
        await bot.svc.results.run_once()
        await bot.outbox.flush(limit=None)
        return (
            [m.text for m in h.in_channel(ROUND_THREAD) if "👑 Final, game" in m.text],
            [m.text for m in h.dms_to(701)],
            [m.text for m in h.dms_to(702)],
        )


async def test_every_game_read_gets_its_post_and_each_extension_its_rule(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    """24 games read in one poll: 24 posts, one per game. The 12th says the match is
    extended by two games (III.G.3), the 22nd that the two-point rule ends after game 24
    (III.G.4), the 24th that it is dropped and the clock becomes 2+0 (III.G.4, III.G.5)."""
    posts, dms, other = await final_read_in_one_poll(running_bot, config, clock, fake, 24)
    heads = [p[p.index("👑") :].split(":", 1)[0] for p in posts]
    assert heads == [f"👑 Final, game {k}" for k in range(1, 25)]
    assert f"game 7: **{CHAMPION}** 4–3 **{CHALLENGER}**. Game 8 is **2+5**." in posts[6]
    assert "rule III" not in posts[10]  # game 11: nothing changes
    assert "**extended by 2 games** (rule III.G.3): games 13–14." in posts[11], posts[11]
    assert "rule III.G.4" not in posts[11]
    assert "(rule III.G.3): games 23–24." in posts[21], posts[21]
    assert (
        "After game 24 the two-point rule is dropped: any lead wins (rule III.G.4)" in (posts[21])
    )
    last = posts[23]
    assert "12–12" in last and "the **two-point rule is dropped** (rule III.G.4)" in last, last
    assert "the clock becomes **2+0**" in last and "(rule III.G.5): games 25–26" in last
    assert "Game 25 is **2+0** — a new time control: a new game link follows" in last
    # The posts that change the match (games 12, 14, ..., 24) mention both finalists, which
    # notifies them: their one copy, so no DM repeats them (it used to: the defect).
    mentioned = [k for k, p in enumerate(posts, start=1) if p.startswith("<@701> <@702> 👑")]
    assert mentioned == list(range(12, 25, 2))
    assert not [d for d in dms + other if "👑 Final, game" in d]


async def test_the_2_0_extensions_and_the_armageddon_are_announced_with_their_rules(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    posts, dms, other = await final_read_in_one_poll(running_bot, config, clock, fake, 30)
    assert len(posts) == 30
    assert (
        "Still equal after 26 games: **two more games at 2+0** (rule III.G.5): games "
        in (posts[25])
    )
    armageddon = posts[29]
    assert "15–15" in armageddon and "an **Armageddon** game decides the Final" in armageddon
    # issue 32: the rules are told once, in the bid request; the thread post points there
    # (this test asserted every rule in the thread post too: three tellings per finalist)
    assert "III.G.6)" in armageddon and "privately" in armageddon, armageddon
    for rule in ("III.G.6.a", "III.G.6.b", "III.G.6.c", "III.G.6.d"):
        assert rule not in armageddon, (rule, armageddon)
    assert "Game 31 is the Armageddon." in armageddon
    # The finalists get the Armageddon once, as the bid request with its button.
    for received in (dms, other):
        about = [d for d in received if "Armageddon" in d]
        assert len(about) == 1 and "after 30 games" in about[0], about
        for rule in ("III.G.6.a", "III.G.6.b", "III.G.6.c", "III.G.6.d"):
            assert rule in about[0], (rule, about[0])
        assert "Black has 3:00 and draw odds (rule III.G.6.a)" in about[0]


async def armageddon_link(
    services: Services,
    sessions: async_sessionmaker[AsyncSession],
    fake: FakeLichess,
    clock: FakeClock,
    config: Config,
) -> int:
    """A Final level at 15-15 after 30 games, the bids in (the champion 2:00, the
    challenger 2:30: the champion plays White with 2:00), the Armageddon's link open."""
    match_id = await final_match(sessions, fake)
    await poll(services, clock, 0)
    thirty = [1.0, 0.0] * 15
    add_games(fake, thirty, clocks=clocks_for(thirty, config))
    await poll(services, clock, 10 * 30 + 5)
    await services.bids.submit_bid(discord_id=701, match_id=match_id, text="2:00")
    await services.bids.submit_bid(discord_id=702, match_id=match_id, text="2:30")
    clock.set(AGREED + timedelta(minutes=10 * 31 + 10))
    await services.results.run_once()
    return match_id


async def test_a_white_over_the_bid_loses_the_armageddon_on_the_clock_record(
    services: Services,
    sessions: async_sessionmaker[AsyncSession],
    fake: FakeLichess,
    clock: FakeClock,
    config: Config,
) -> None:
    """Rule III.G.6.b: White plays with the time of the lower bid. The game is 3+0 for both
    (one clock per Lichess challenge), so White must stay above 3:00 - bid; the bot reads
    White's clock from Lichess's clock record (export `clocks=true`) and rules."""
    match_id = await armageddon_link(services, sessions, fake, clock, config)
    # White wins on the board, but White's clock (even places) read 0:59.0 after their 3rd
    # move: under 3:00 - 2:00 = 1:00, so White lost on time and Black (Chall) wins.
    record = (17_000, 17_500, 9_000, 16_000, 5_900, 15_000, 5_500)
    add_games(fake, [1.0], first=32, clocks=[(180, 0)], champion_white=True, record=record)
    await poll(services, clock, 10 * 32 + 5)
    match = await state(sessions, match_id)
    assert match.state is MatchState.FINISHED and (match.points_a, match.points_b) == (0.0, 1.0)
    posts = await thread(sessions)
    ruled = next(t for t in posts if "Armageddon (" in t and "lost on time" in t)
    assert "after White's move 3" in ruled and "0:59.0, below 1:00.0" in ruled
    assert f"**{CHALLENGER}** wins the Armageddon" in ruled
    alerts = await td_alerts(sessions)
    assert any("was counted as **Chall**'s win" in a for a in alerts)
    assert any(f"**{CHALLENGER}** is the" in p for p in await announced(sessions))
    # the bot asked Lichess for the clock record of this final match's games
    exports = [query for _, path, query in fake.requests if "/api/games/user/" in path]
    assert exports and all(query.get("clocks") == "true" for query in exports)


async def test_white_within_the_bid_keeps_the_result(
    services: Services,
    sessions: async_sessionmaker[AsyncSession],
    fake: FakeLichess,
    clock: FakeClock,
    config: Config,
) -> None:
    match_id = await armageddon_link(services, sessions, fake, clock, config)
    # White's lowest reading 1:00.0 is not below 1:00 (Black's clocks do not matter)
    record = (17_000, 1_000, 9_000, 500, 6_000, 100)
    add_games(fake, [1.0], first=32, clocks=[(180, 0)], champion_white=True, record=record)
    await poll(services, clock, 10 * 32 + 5)
    match = await state(sessions, match_id)
    assert (match.points_a, match.points_b) == (1.0, 0.0)
    assert not any("lost on time" in t for t in await thread(sessions))
    alerts = await td_alerts(sessions)
    assert not any("sent no clock record" in a or "was counted as" in a for a in alerts)
