"""Results through Lichess's game stream (issue 34): a game reaches the match thread with
the poll off; a dropped stream loses nothing; more than 300 players open two streams; a
refused stream leaves the matches to the poll. The fake Lichess streams as lila does
(tests/lichess/test_fake_game_stream.py checks it)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import func, select

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config
from bot.features.results.live import ResultStream, _assign
from bot.lichess.client import LichessClient
from bot.lichess.game_stream import STREAM_IDS, StreamedGame
from db.models import Game, MatchState
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.factories import ROUND_THREAD
from tests.fakes.lichess import FakeLichess
from tests.features.results.test_final import add_games, clocks_for, final_match
from tests.harness import DiscordHarness
from tests.results_helpers import AGREED, PLAYERS, match_row, play, schedule, swiss_match
from tests.running import ALICE, BOB, RunningBot

EXPORTS = "/api/games/user/"


async def until(done: Callable[[], object], seconds: float = 10.0) -> None:
    """Wait (in real time: the stream is a real connection) until `done()` is true."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + seconds
    while not done():
        assert loop.time() < give_up, "not within the time allowed"
        await asyncio.sleep(0.02)


def thread_text(h: DiscordHarness) -> str:
    return "\n".join(m.text for m in h.in_channel(ROUND_THREAD))


async def match_at_its_time(
    bot: ChampionshipBot, h: DiscordHarness, config: Config, fake: FakeLichess, clock: FakeClock
) -> int:
    """Alice and Bob's match at its agreed time, its game link posted (the poll never runs:
    the scheduler is off in these tests)."""
    assert bot.sessions is not None and bot.outbox is not None
    h.add_text_channel(ROUND_THREAD, "round-1")
    h.add_text_channel(ANNOUNCE_CHANNEL, "announcements")
    for user_id, name in PLAYERS[2:]:
        h.add_member(user_id, name.lower())
    seeded = await swiss_match(bot.sessions, config, fake)
    clock.set(AGREED)
    await bot.svc.results.create_due_challenges()
    await bot.outbox.flush()
    return seeded.match_ids[0]


async def open_stream(bot: ChampionshipBot, *, wait: bool = True) -> ResultStream:
    """The bot's game stream started as a live bot starts it (its posts delivered at once)."""
    stream = bot.svc.results.stream
    assert stream is not None
    stream.on_news = bot.deliver
    await stream.start()
    if wait:
        await until(lambda: stream.connections)
    return stream


async def streaming(
    bot: ChampionshipBot, h: DiscordHarness, config: Config, fake: FakeLichess, clock: FakeClock
) -> tuple[int, ResultStream]:
    """Alice and Bob's match at its time, the stream open."""
    match_id = await match_at_its_time(bot, h, config, fake, clock)
    return match_id, await open_stream(bot)


async def stored_games(bot: ChampionshipBot, match_id: int) -> int:
    assert bot.sessions is not None
    async with bot.sessions() as session:
        return int(
            await session.scalar(select(func.count(Game.id)).where(Game.match_id == match_id)) or 0
        )


async def test_a_game_reaches_the_thread_through_the_stream_with_no_poll(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        match_id, stream = await streaming(bot, h, config, fake, clock)
        assert stream.connections == [frozenset({"alice", "bob"})]
        exports = fake.count(EXPORTS)

        # Game 1 starts: /match shows it under way, and /noshow knows the two met, without
        # a word to Lichess.
        started = play(fake, 1, status="started", winner=None)
        url = f"https://lichess.org/{started['id']}"

        async def match_says() -> str:
            return (await h.slash("match", user=ALICE)).text

        for _ in range(500):
            if f"Game in progress: {url}" in await match_says():
                break
            await asyncio.sleep(0.02)
        assert f"Game in progress: {url}" in await match_says()
        clock.set(AGREED + timedelta(minutes=11))
        refused = await h.slash("noshow", user=BOB)
        assert refused.ephemeral and url in refused.text and "in progress" in refused.text
        assert fake.count(EXPORTS) == exports  # neither asked Lichess

        # It ends: the thread's scoreboard shows it within moments, read by the stream alone.
        fake.update_game(started["id"], status="variantEnd", winner="white")
        await until(lambda: "**Alice** 1–0 **Bob**" in thread_text(h))
        assert started["id"] in thread_text(h)
        assert fake.count(EXPORTS) == exports  # no games export: the poll never ran
        assert f"Game in progress: {url}" not in await match_says()

        # The rest of the match arrives the same way, to the end.
        for number in range(2, 7):
            play(fake, number)
        await until(lambda: "final result" in thread_text(h))
        assert (await match_row(bot.sessions, match_id)).state is MatchState.FINISHED  # type: ignore[arg-type]
        assert await stored_games(bot, match_id) == 6
        # No request per game: the finish event is the game (a Swiss match has no Armageddon
        # whose clock record would need reading).
        assert fake.count(EXPORTS) == exports and fake.count("/game/export/") == 0


async def test_a_dropped_stream_loses_nothing(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        match_id, stream = await streaming(bot, h, config, fake, clock)
        play(fake, 1)
        await until(lambda: "**Alice** 1–0 **Bob**" in thread_text(h))
        exports = fake.count(EXPORTS)

        # The connection drops; game 2 finishes before the bot is back: Lichess never sends
        # it on the new connection, so the bot reads the match back from the export, once.
        assert fake.drop_streams() == 1
        second = play(fake, 2, result_a=0.5)
        await until(lambda: "**Alice** 1.5–0.5 **Bob**" in thread_text(h))
        assert fake.count(EXPORTS) == exports + 1
        assert await stored_games(bot, match_id) == 2
        assert all(m.text.count(second["id"]) <= 1 for m in h.in_channel(ROUND_THREAD))
        await until(lambda: stream.connections)

        # Game 3 comes through the new connection as usual.
        play(fake, 3)
        await until(lambda: "**Alice** 2.5–0.5 **Bob**" in thread_text(h))
        assert await stored_games(bot, match_id) == 3
        assert fake.count(EXPORTS) == exports + 1


async def test_a_refused_stream_leaves_the_match_to_the_poll(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        match_id = await match_at_its_time(bot, h, config, fake, clock)
        fake.refuse_streams(404, times=5)
        stream = await open_stream(bot, wait=False)
        await until(lambda: fake.stream_opens + _refusals(fake) >= 1)
        await asyncio.sleep(0.2)
        assert stream.connections == []
        play(fake, 1)
        exports = fake.count(EXPORTS)
        report = await bot.svc.results.poll()  # the poll reads the match the stream does not
        assert report.polled == 1 and fake.count(EXPORTS) == exports + 1
        await bot.deliver()
        assert "**Alice** 1–0 **Bob**" in thread_text(h)
        assert await stored_games(bot, match_id) == 1


async def test_a_429_on_the_stream_pauses_every_request(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    lichess = LichessClient(base_url=fake.base_url, timeout=5.0, rate_limit_pause=1.0)
    async with running_bot(lichess=lichess) as (bot, _h):
        assert bot.sessions is not None
        await swiss_match(bot.sessions, config, fake)
        clock.set(AGREED)
        fake.refuse_streams(429)
        stream = await open_stream(bot, wait=False)
        await until(lambda: _refusals(fake) >= 1)
        assert lichess.pause_left() > 0.5  # Lichess's minute (here a second) for everyone
        exports = fake.count(EXPORTS)
        await bot.svc.results.poll()  # waits the pause out before asking
        assert fake.count(EXPORTS) == exports + 1
        assert lichess.pause_left() == 0
        await until(lambda: stream.connections)  # the stream opens after the pause


def _refusals(fake: FakeLichess) -> int:
    return sum(1 for m, p, _q in fake.requests if p == "/api/stream/games-by-users" and m == "POST")


async def test_a_covered_match_is_polled_only_as_a_safety_net(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        _match_id, _stream = await streaming(bot, h, config, fake, clock)
        first = await bot.svc.results.poll()
        second = await bot.svc.results.poll()
        assert second.polled == 0  # read once, then left to the stream
        assert first.polled <= 1
        clock.advance(timedelta(minutes=config.jobs.results_stream_check_minutes))
        assert (await bot.svc.results.poll()).polled == 1


async def test_more_than_300_players_open_two_streams(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    players = [(None, f"Player{n:03d}") for n in range(302)]
    async with running_bot() as (bot, _h):
        assert bot.sessions is not None
        await swiss_match(bot.sessions, config, fake, players=players, scheduled=151)
        clock.set(AGREED - timedelta(minutes=5))  # due within the lead time: watched
        stream = await open_stream(bot, wait=False)
        await until(lambda: len(fake.open_streams) == 2)
        opened = fake.open_streams
        assert all(len(ids) <= STREAM_IDS for ids in opened)
        assert frozenset().union(*opened) == {name.lower() for _, name in players}
        assert sorted(stream.connections, key=len) == sorted(opened, key=len)


async def alice_bob_watched(
    bot: ChampionshipBot, config: Config, fake: FakeLichess, clock: FakeClock
) -> tuple[list[int], ResultStream]:
    """The round's two matches (Alice-Bob at its time, Carol-Dave without one yet) and the
    stream open, watching Alice and Bob alone."""
    assert bot.sessions is not None
    seeded = await swiss_match(bot.sessions, config, fake)
    clock.set(AGREED)
    stream = await open_stream(bot)
    assert fake.open_streams == [frozenset({"alice", "bob"})]
    return seeded.match_ids, stream


async def test_the_stream_follows_the_matches_due_soon(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, _h):
        assert bot.sessions is not None
        match_ids, stream = await alice_bob_watched(bot, config, fake, clock)
        later = AGREED + timedelta(hours=2)  # Carol's match is hours away
        await schedule(bot.sessions, match_ids[1], later)

        lead = timedelta(minutes=config.jobs.results_stream_lead_minutes)
        clock.set(later - lead)
        await bot.svc.results.run_once()
        everyone = frozenset({"alice", "bob", "carol", "dave"})
        await until(lambda: fake.open_streams == [everyone])  # replaced, the old one closed
        assert stream.connections == [everyone]

        for number in range(1, 7):  # Alice and Bob's match ends: they are no longer watched
            play(fake, number)
        for _ in range(500):
            if (await match_row(bot.sessions, match_ids[0])).state is MatchState.FINISHED:
                break
            await asyncio.sleep(0.02)
        clock.set(later)
        await bot.svc.results.run_once()
        await until(lambda: fake.open_streams == [frozenset({"carol", "dave"})])


async def test_a_match_agreed_at_short_notice_is_watched_at_once(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, _h):
        match_ids, stream = await alice_bob_watched(bot, config, fake, clock)
        # Carol and Dave's match is set for ten minutes from now: watched once it is
        # committed, with no sweep or results job in between.
        await bot.svc.rulings.assign_time(
            td_id=TD_ID, match_id=match_ids[1], text="2019-10-02 18:10"
        )
        everyone = frozenset({"alice", "bob", "carol", "dave"})
        await until(lambda: stream.connections == [everyone])


async def test_a_stream_replaced_twice_leaves_one_connection(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, _h):
        assert bot.sessions is not None
        match_ids, stream = await alice_bob_watched(bot, config, fake, clock)
        later = AGREED + timedelta(hours=2)
        await schedule(bot.sessions, match_ids[1], later)
        # Carol's match comes within the lead time: the replacement is slow to open...
        fake.stall_next("/api/stream/", 1.0)
        clock.set(later - timedelta(minutes=config.jobs.results_stream_lead_minutes))
        await stream.refresh()
        # ...and before it does, the watched set changes back (the TD moved her match).
        await schedule(bot.sessions, match_ids[1], later + timedelta(hours=5))
        await stream.refresh()
        alice_bob = frozenset({"alice", "bob"})
        await until(lambda: stream.connections == [alice_bob])
        await asyncio.sleep(1.2)  # the stalled attempt is over too
        assert fake.open_streams == [alice_bob]  # one connection: none left behind


async def test_a_final_game_is_read_for_its_clock_record(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, _h):
        assert bot.sessions is not None
        match_id = await final_match(bot.sessions, fake)
        clock.set(AGREED)
        await open_stream(bot)
        add_games(fake, [1.0], clocks=clocks_for([1.0], config))
        for _ in range(500):
            if await stored_games(bot, match_id) == 1:
                break
            await asyncio.sleep(0.02)
        assert await stored_games(bot, match_id) == 1
        # The Final's games are read whole: the Armageddon's bid is checked on the record.
        assert fake.count("/game/export/") == 1


def test_pairs_stay_on_their_stream_and_new_ones_fill_the_room() -> None:
    pairs = {frozenset({f"a{n}", f"b{n}"}) for n in range(151)}
    layout = _assign([], pairs)
    assert len(layout) == 2 and sum(len(p) for p in layout) == 151
    assert all(len(frozenset().union(*p)) <= STREAM_IDS for p in layout)
    # One pair leaves and one joins: the first stream keeps its pairs, the new pair goes
    # where there is room, and nothing moves.
    gone = next(iter(sorted(layout[0], key=sorted)))
    joined = frozenset({"c1", "c2"})
    again = _assign(layout, (pairs - {gone}) | {joined})
    assert again[0] == (layout[0] - {gone}) | {joined}
    assert again[1] == layout[1]


def test_a_pair_that_fits_nowhere_is_left_to_the_poll() -> None:
    pairs = {frozenset({f"a{n}", f"b{n}"}) for n in range(150 * 3 + 1)}
    layout = _assign([], pairs)
    assert len(layout) == 3  # Lichess allows 4 per IP; one is kept for a replacement
    assert sum(len(p) for p in layout) == 450


def test_an_event_is_read_as_lichess_sends_it() -> None:
    event = {
        "id": "A5fcMO3k",
        "rated": True,
        "variant": "antichess",
        "speed": "blitz",
        "perf": "antichess",
        "createdAt": 1570039320000,
        "status": 34,
        "players": {
            "white": {"userId": "alice", "rating": 2100},
            "black": {"userId": "bob", "rating": 2000},
        },
        "clock": {"initial": 120, "increment": 5},
    }
    game = StreamedGame.from_api(event)  # no statusName: the number says it
    assert game.status == "draw" and game.ended and game.played_out
    assert game.pair == {"alice", "bob"} and game.winner is None
    as_played = game.as_game(ended_at=game.created_at)
    assert (as_played.clock_initial, as_played.clock_increment) == (120, 5)
    started = StreamedGame.from_api({**event, "status": 20, "statusName": "started"})
    assert not started.ended
    aborted = StreamedGame.from_api({**event, "status": 25, "statusName": "aborted"})
    assert aborted.ended and not aborted.played_out


async def test_a_silent_connection_is_given_up_and_opened_again(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        await match_at_its_time(bot, h, config, fake, clock)
        fake.stall_next("/api/stream/", 30.0)  # Lichess accepts, then says nothing at all
        stream = bot.svc.results.stream
        assert stream is not None
        stream.silence_limit = 0.3
        await open_stream(bot)  # the silent attempt is dropped, the next one opens
        assert len([p for _m, p, _q in fake.requests if p.startswith("/api/stream/")]) == 2
