"""Results read from Lichess: game links, the poll, attribution, the end of a match, voids."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config, MatchDayConfig
from bot.errors import InvalidInput, NotAllowed, WrongStage
from bot.features.results.service import ResultsService
from bot.features.results.stage_rules import AFTER_END, TD_VOID
from bot.lichess.client import LichessClient
from db.models import MatchState, OutboxKind, RoundState
from tests.conftest import ANNOUNCE_CHANNEL, TD_ID
from tests.factories import ROUND_THREAD, wired
from tests.fakes.lichess import FakeLichess
from tests.results_helpers import (
    AGREED,
    candidates_match,
    games_of,
    match_row,
    outbox,
    play,
    swiss_match,
)

GAMES = "/api/games/user/"


@pytest.fixture
def results(
    sessions: async_sessionmaker[AsyncSession],
    lichess: LichessClient,
    config: Config,
    clock: FakeClock,
) -> ResultsService:
    clock.set(AGREED - timedelta(hours=1))
    return wired(sessions, config, clock, lichess).results


async def test_swiss_match_found_game_by_game_and_stopped_at_5_5(
    results: ResultsService, sessions, config, fake: FakeLichess, clock: FakeClock
) -> None:
    seeded = await swiss_match(sessions, config, fake)
    match_id = seeded.match_ids[0]
    # before the agreed time nothing is asked: no match is under way
    assert (await results.poll()).polled == 0 and fake.count(GAMES) == 0

    clock.set(AGREED + timedelta(minutes=5))
    report = await results.poll()
    assert (report.polled, report.new_games) == (1, 0)
    assert fake.count(GAMES) == 1  # the idle match 2 (no agreed time) costs nothing
    _, path, query = fake.requests[-1]
    assert path == "/api/games/user/alice"
    assert query["vs"] == "bob" and query["perfType"] == "antichess"
    assert query["rated"] == "true" and query["moves"] == "false"
    assert int(query["since"]) == int((AGREED - timedelta(minutes=15)).timestamp() * 1000)

    for number in range(1, 6):
        play(fake, number)
        clock.advance(timedelta(minutes=10))
        assert (await results.poll()).new_games == 1
        match = await match_row(sessions, match_id)
        assert (match.score_a, match.score_b) == (number, 0)
        assert match.state is MatchState.IN_PROGRESS
    assert (await results.poll()).new_games == 0  # idempotent: nothing new, nothing stored

    # game 6 ends it (5.5); game 7, played after, does not count and the TD is told
    play(fake, 6, result_a=0.5)
    seventh = play(fake, 7, result_a=0.0)
    clock.advance(timedelta(minutes=20))
    report = await results.poll()
    assert report.finished == [match_id]
    match = await match_row(sessions, match_id)
    assert match.state is MatchState.FINISHED and match.finished_at == clock.now()
    assert (match.score_a, match.score_b, match.points_a, match.points_b) == (5.5, 0.5, 1, 0)
    games = await games_of(sessions, match_id)
    assert [g.number for g in games] == list(range(1, 8))
    assert [g.counted for g in games] == [True] * 6 + [False]
    assert games[6].lichess_id == seventh["id"] and games[6].voided_reason == AFTER_END
    assert [g.result_a for g in games[:6]] == [1, 1, 1, 1, 1, 0.5]
    assert games[1].white_player_id == seeded.player_ids["Bob"]

    messages = await outbox(sessions)
    td = [m for m in messages if m.target_id == TD_ID]
    assert len(td) == 1 and seventh["id"] in td[0].content
    # a match result is not stage news: the announcement channel does not carry it
    assert not [m for m in messages if m.target_id == ANNOUNCE_CHANNEL]
    boards = [m for m in messages if m.target_id == ROUND_THREAD]
    assert boards[0].kind is OutboxKind.CHANNEL and boards[0].dedupe_key == f"scoreboard:{match_id}"
    assert all(m.edit_of_key == f"scoreboard:{match_id}" for m in boards[1:])
    assert len(boards) == 6 and "final result" in boards[-1].content
    assert f"https://lichess.org/{games[0].lichess_id}" in boards[-1].content

    # a finished match is never asked about again
    asked = fake.count(GAMES)
    await results.poll()
    assert fake.count(GAMES) == asked


async def test_wrong_games_are_ignored(
    results: ResultsService, sessions, config, fake: FakeLichess, clock: FakeClock
) -> None:
    seeded = await swiss_match(sessions, config, fake)
    fake.add_user("Carol2", created_at=AGREED - timedelta(days=900))
    wrong = [
        play(fake, 1, clock=(180, 2)),
        play(fake, 2, clock=(120, 0)),
        play(fake, 3, variant="atomic"),
        play(fake, 4, rated=False),
        play(fake, 5, b="Carol2"),
        play(fake, 6, created_at=AGREED - timedelta(minutes=16)),
        play(fake, 7, status="aborted", winner=None),
        play(fake, 8, status="noStart", winner=None),
    ]
    clock.set(AGREED + timedelta(hours=2))
    report = await results.poll()
    assert report.new_games == 0 and await games_of(sessions, seeded.match_ids[0]) == []
    match = await match_row(sessions, seeded.match_ids[0])
    assert (match.state, match.score_a, match.score_b) == (MatchState.SCHEDULED, 0, 0)

    # submitted by hand they are refused, each with its reason
    reasons = []
    for game in wrong:
        with pytest.raises(InvalidInput) as refused:
            await results.submit_game(discord_id=101, url=f"https://lichess.org/{game['id']}")
        reasons.append(refused.value.message)
    assert "3+2, not 2+5" in reasons[0] and "2+0, not 2+5" in reasons[1]
    assert "atomic" in reasons[2] and "casual" in reasons[3]
    assert "carol2" in reasons[4] and "before the match" in reasons[5]
    assert "not played" in reasons[6] and "not played" in reasons[7]
    assert await games_of(sessions, seeded.match_ids[0]) == []


async def test_game_in_progress_is_picked_up_when_it_ends(
    results: ResultsService, sessions, config, fake: FakeLichess, clock: FakeClock
) -> None:
    seeded = await swiss_match(sessions, config, fake)
    game = play(fake, 1, status="started", winner=None)
    clock.set(AGREED + timedelta(minutes=5))
    assert (await results.poll()).new_games == 0
    with pytest.raises(InvalidInput, match="not finished yet"):
        await results.submit_game(discord_id=102, url=game["id"])
    fake.update_game(game["id"], status="outoftime", winner="black")
    clock.advance(timedelta(minutes=10))
    assert (await results.poll()).new_games == 1
    match = await match_row(sessions, seeded.match_ids[0])
    assert (match.score_a, match.score_b) == (0, 1)


async def test_candidates_match_continues_past_5_5(
    results: ResultsService, sessions, fake: FakeLichess, clock: FakeClock
) -> None:
    match_id = await candidates_match(sessions, fake, "Erin", "Finn")
    clock.set(AGREED + timedelta(hours=3))
    for number in range(1, 7):
        play(fake, number, a="Erin", b="Finn")
    await results.poll()
    match = await match_row(sessions, match_id)
    assert (match.score_a, match.state) == (6, MatchState.IN_PROGRESS)
    for number in range(7, 12):
        play(fake, number, a="Erin", b="Finn", result_a=0.0)
    report = await results.poll()
    assert report.finished == [match_id]
    match = await match_row(sessions, match_id)
    assert (match.score_a, match.score_b, match.points_a, match.points_b) == (6, 4, 1, 0)
    games = await games_of(sessions, match_id)
    assert [g.counted for g in games] == [True] * 10 + [False]
    messages = await outbox(sessions)
    announced = [m.content for m in messages if m.target_id == ANNOUNCE_CHANNEL]
    assert not [m for m in announced if "Candidates result" in m or "6–4" in m], announced
    assert any("**Erin** 6–4 **Finn** (final result)" in m.content for m in messages)


async def test_candidates_early_stop_is_configurable(
    sessions, lichess, config: Config, fake: FakeLichess, clock: FakeClock
) -> None:
    cfg = config.model_copy(
        update={"stages": config.stages.model_copy(update={"candidates_early_stop": True})}
    )
    service = wired(sessions, cfg, clock, lichess).results
    match_id = await candidates_match(sessions, fake, "Erin", "Finn")
    clock.set(AGREED + timedelta(hours=3))
    for number in range(1, 7):
        play(fake, number, a="Erin", b="Finn")
    assert (await service.poll()).finished == [match_id]


async def test_game_link_created_at_the_agreed_time(
    results: ResultsService, sessions, config, fake: FakeLichess, clock: FakeClock
) -> None:
    seeded = await swiss_match(sessions, config, fake)
    assert await results.create_due_challenges() == 0
    clock.set(AGREED)
    assert await results.create_due_challenges() == 1
    assert await results.create_due_challenges() == 0  # once only
    assert len(fake.challenges) == 1
    form = fake.challenges[0]["form"]
    assert form["users"] == "alice,bob" and form["variant"] == "antichess"
    assert (form["clock.limit"], form["clock.increment"], form["rated"]) == ("120", "5", "true")
    match = await match_row(sessions, seeded.match_ids[0])
    assert match.challenge_url == fake.challenges[0]["url"]
    assert match.state is MatchState.IN_PROGRESS
    messages = await outbox(sessions)
    thread = [m for m in messages if m.target_id == ROUND_THREAD]
    assert len(thread) == 1 and match.challenge_url in thread[0].content
    # the start once: the thread post mentions both players, and no DM repeats it
    assert "<@101>" in thread[0].content and "<@102>" in thread[0].content
    assert not [m for m in messages if m.kind is OutboxKind.DM]


async def test_game_link_off_or_lichess_down(
    sessions, lichess, config: Config, fake: FakeLichess, clock: FakeClock
) -> None:
    off = config.model_copy(update={"match_day": MatchDayConfig(create_challenge=False)})
    await swiss_match(sessions, config, fake)
    clock.set(AGREED)
    assert await wired(sessions, off, clock, lichess).results.create_due_challenges() == 0
    assert fake.count("/api/challenge/open") == 0
    service = wired(sessions, config, clock, lichess).results
    fake.fail_next("/api/challenge/open", 500)
    assert await service.create_due_challenges() == 0
    assert await service.create_due_challenges() == 1  # retried on the next run


async def test_429_in_the_middle_of_a_poll(
    results: ResultsService,
    sessions,
    config,
    fake: FakeLichess,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    seeded = await swiss_match(sessions, config, fake, scheduled=2)
    play(fake, 1)
    play(fake, 1, a="Carol", b="Dave", result_a=0.5)
    clock.set(AGREED + timedelta(minutes=30))
    # one 429: the client pauses, retries, and the poll reads both matches
    fake.fail_next(GAMES, 429)
    report = await results.poll()
    assert (report.polled, report.new_games, report.errors) == (2, 2, 0)
    assert fake.count(GAMES) == 3 and fake.max_in_flight == 1
    # 429 twice on the first match: it is logged and skipped, the second one still read
    play(fake, 2)
    play(fake, 2, a="Carol", b="Dave")
    fake.fail_next(GAMES, 429, times=2)
    with caplog.at_level(logging.WARNING):
        report = await results.poll()
    assert (report.errors, report.new_games) == (1, 1)
    assert any("not read from Lichess" in r.getMessage() for r in caplog.records)
    assert (await match_row(sessions, seeded.match_ids[0])).score_a == 1
    second = await match_row(sessions, seeded.match_ids[1])
    assert (second.score_a, second.score_b) == (1.5, 0.5)
    # the next poll catches up
    assert (await results.poll()).new_games == 1
    assert (await match_row(sessions, seeded.match_ids[0])).score_a == 2


async def test_timeout_and_cheat_endings_are_flagged_to_the_td(
    results: ResultsService, sessions, config, fake: FakeLichess, clock: FakeClock
) -> None:
    seeded = await swiss_match(sessions, config, fake)
    left = play(fake, 1, status="timeout")
    clock.set(AGREED + timedelta(minutes=30))
    await results.poll()
    games = await games_of(sessions, seeded.match_ids[0])
    assert games[0].flagged and games[0].counted
    td = [m for m in await outbox(sessions) if m.target_id == TD_ID]
    assert len(td) == 1 and left["id"] in td[0].content and "VI.E" in td[0].content


async def test_submit_game_fallback(
    results: ResultsService, sessions, config, fake: FakeLichess, clock: FakeClock
) -> None:
    seeded = await swiss_match(sessions, config, fake)
    game = play(fake, 1)
    with pytest.raises(InvalidInput, match="not a Lichess game link"):
        await results.submit_game(discord_id=101, url="https://lichess.org/@/alice")
    with pytest.raises(NotAllowed):
        await results.submit_game(discord_id=999, url=game["id"])
    with pytest.raises(WrongStage, match="has not started yet"):
        await results.submit_game(discord_id=101, url=game["id"])
    with pytest.raises(WrongStage, match="no match under way"):
        await results.submit_game(discord_id=104, url=game["id"])  # Carol: no agreed time
    clock.set(AGREED + timedelta(minutes=20))
    with pytest.raises(InvalidInput, match="has no game"):
        await results.submit_game(discord_id=101, url="https://lichess.org/zzzzZZZZ")
    done = await results.submit_game(discord_id=102, url=f"https://lichess.org/{game['id']}/black")
    assert (done.number, done.counted, done.already, done.score_a) == (1, True, False, 1)
    again = await results.submit_game(discord_id=101, url=game["id"])
    assert again.already and again.number == 1
    await results.poll()  # the poll sees the same game: nothing new
    assert len(await games_of(sessions, seeded.match_ids[0])) == 1
    assert fake.count("/game/export/") == 2


async def test_void_game_recounts_and_reopens(
    results: ResultsService, sessions, config, fake: FakeLichess, clock: FakeClock
) -> None:
    seeded = await swiss_match(sessions, config, fake)
    match_id = seeded.match_ids[0]
    played = [play(fake, n) for n in range(1, 6)] + [play(fake, 6, result_a=0.5)]
    clock.set(AGREED + timedelta(hours=2))
    assert (await results.poll()).finished == [match_id]
    with pytest.raises(InvalidInput, match="reason"):
        await results.void_game(td_id=TD_ID, game_id=played[0]["id"], reason=" ")
    voided = await results.void_game(
        td_id=TD_ID, game_id=f"https://lichess.org/{played[0]['id']}", reason="wrong account"
    )
    assert voided.reopened and (voided.score_a, voided.score_b) == (4.5, 0.5)
    match = await match_row(sessions, match_id)
    assert match.state is MatchState.IN_PROGRESS and match.points_a is None
    games = await games_of(sessions, match_id)
    assert games[0].voided_reason == TD_VOID + "wrong account" and not games[0].counted
    with pytest.raises(InvalidInput, match="already void"):
        await results.void_game(td_id=TD_ID, game_id=played[0]["id"], reason="again")
    # the match is polled again; game 7 ends it
    play(fake, 7)
    assert (await results.poll()).finished == [match_id]
    assert (await match_row(sessions, match_id)).score_a == 5.5


async def test_last_match_of_the_round_closes_it(
    results: ResultsService, sessions, config, fake: FakeLichess, clock: FakeClock
) -> None:
    seeded = await swiss_match(sessions, config, fake, scheduled=2)
    for n in range(1, 7):
        play(fake, n)
        play(fake, n, a="Carol", b="Dave", result_a=0.0)
    clock.set(AGREED + timedelta(hours=2))
    report = await results.poll()
    assert sorted(report.finished) == sorted(seeded.match_ids)
    async with sessions() as session:
        from db.models import Round

        round_ = await session.get(Round, seeded.round_id)
        assert round_ is not None and round_.state is RoundState.FINISHED
