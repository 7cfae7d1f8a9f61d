"""Match day with the default settings: the link goes out at the agreed minute, and /noshow
and /left stay open until a counted game exists (rule VI.D), link posted or not."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config
from bot.scheduler import build_scheduler
from db.models import Match, MatchIncident, MatchState
from tests.conftest import TD_ID
from tests.factories import ROUND_THREAD, seed_round
from tests.fakes.lichess import FakeLichess
from tests.harness import DiscordHarness, InteractionRecord
from tests.results_helpers import AGREED, PLAYERS, match_row, play, swiss_match
from tests.running import ALICE, BOB, RunningBot

AGREED_19 = datetime(2019, 10, 2, 19, 0, tzinfo=UTC)


def said_once(rec: InteractionRecord) -> str:
    """The reply the user reads: exactly one message-bearing response, with text."""
    shown = [r for r in rec.responses if r.text]
    assert len(shown) == 1, [(r.kind, r.text) for r in rec.responses]
    return shown[0].text


async def agree_by_commands(bot: ChampionshipBot, h: DiscordHarness, config: Config) -> int:
    """A round of four; Alice offers 19:00 on Wednesday and Bob accepts, as players would."""
    assert bot.sessions is not None and bot.outbox is not None
    h.add_text_channel(ROUND_THREAD, "round-1")
    for user_id, name in PLAYERS[2:]:
        h.add_member(user_id, name.lower())
    seeded = await seed_round(bot.sessions, config, PLAYERS)
    offer = await h.slash("offer", user=ALICE, options={"times": "2019-10-02 19:00"})
    assert offer.ephemeral, offer.text
    accept = await h.slash("accept", user=BOB)
    assert accept.ephemeral and "19:00" in accept.text, accept.text
    return seeded.match_ids[0]


async def deadline_job(bot: ChampionshipBot) -> None:
    """What the scheduler runs as its deadline sweep, then the outbox flush."""
    job, _ = bot.periodic_jobs()["deadlines"]
    await job()
    assert bot.outbox is not None
    await bot.outbox.flush()


def add_players(fake: FakeLichess) -> None:
    for _, name in PLAYERS:
        fake.add_user(name, created_at=datetime(2017, 1, 1, tzinfo=UTC))


async def test_the_default_sweep_runs_at_the_start_of_every_minute(
    running_bot: RunningBot, config: Config
) -> None:
    async with running_bot() as (bot, _):
        jobs = bot.periodic_jobs()
        assert jobs["deadlines"][1] == config.jobs.deadline_sweep_seconds == 60
        scheduler = build_scheduler(jobs)
        trigger = scheduler.get_job("deadlines").trigger
        assert trigger.get_next_fire_time(None, AGREED_19 - timedelta(seconds=31)) == AGREED_19
        assert trigger.get_next_fire_time(None, AGREED_19 + timedelta(seconds=1)) == (
            AGREED_19 + timedelta(minutes=1)
        )


async def test_the_sweep_posts_the_link_at_the_agreed_minute(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    add_players(fake)
    async with running_bot() as (bot, h):
        clock.set(datetime(2019, 9, 30, 12, 0, tzinfo=UTC))
        match_id = await agree_by_commands(bot, h, config)
        clock.set(AGREED_19 - timedelta(seconds=1))
        await deadline_job(bot)
        assert fake.challenges == []
        clock.set(AGREED_19)
        await deadline_job(bot)
        assert len(fake.challenges) == 1
        url = fake.challenges[0]["url"]
        start = [m.text for m in h.in_channel(ROUND_THREAD) if url in m.text]
        assert len(start) == 1 and f"<@{ALICE}>" in start[0] and f"<@{BOB}>" in start[0]
        assert not [m for m in h.dms_to(ALICE) + h.dms_to(BOB) if url in m.text]
        # the results job running at the same minute opens no second game
        await bot.svc.results.run_once()
        await deadline_job(bot)
        assert len(fake.challenges) == 1
        assert (await match_row(bot.sessions, match_id)).challenge_url == url


async def test_noshow_after_the_link_with_no_game_is_a_claim(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    add_players(fake)
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        clock.set(datetime(2019, 9, 30, 12, 0, tzinfo=UTC))
        match_id = await agree_by_commands(bot, h, config)
        clock.set(AGREED_19)
        await deadline_job(bot)
        assert fake.challenges, "the link is out"
        clock.set(AGREED_19 + timedelta(minutes=2))
        await bot.svc.results.run_once()  # the first poll after the agreed time: no game

        clock.set(AGREED_19 + timedelta(minutes=5))
        rec = await h.slash("noshow", user=ALICE)
        text = said_once(rec)
        assert rec.ephemeral and "tournament director has been told" in text, text
        await bot.outbox.flush()
        assert any("first message" in m.text and "Bob" in m.text for m in h.dms_to(TD_ID))
        async with bot.sessions() as session:
            claims = await session.scalar(
                select(func.count(MatchIncident.id)).where(MatchIncident.match_id == match_id)
            )
        assert claims == 1

        clock.set(AGREED_19 + timedelta(minutes=15))
        await deadline_job(bot)
        question = h.dms_to(ALICE)[-1]
        assert [b["label"] for b in h.buttons(question)] == ["Still absent", "They are here"]
        pressed = await h.press(
            str(h.buttons(question)[0]["custom_id"]), user=ALICE, message=question, dm=True
        )
        assert "Claim the win" in said_once(pressed)
        await bot.outbox.flush()
        assert any("second message" in m.text for m in h.dms_to(TD_ID))
        claim = h.buttons(pressed)[0]
        claimed = await h.press(str(claim["custom_id"]), user=ALICE, dm=True)
        assert "by forfeit" in said_once(claimed)
        assert (await match_row(bot.sessions, match_id)).state is MatchState.FORFEITED


async def test_noshow_after_a_counted_game_is_refused_with_the_score(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None and bot.outbox is not None
        h.add_text_channel(ROUND_THREAD, "round-1")
        seeded = await swiss_match(bot.sessions, config, fake)
        match_id = seeded.match_ids[0]
        clock.set(AGREED)
        await deadline_job(bot)
        first = play(fake, 1)
        clock.set(AGREED + timedelta(minutes=14))
        await bot.svc.results.run_once()
        assert (await match_row(bot.sessions, match_id)).score_a == 1.0

        rec = await h.slash("noshow", user=BOB)
        text = said_once(rec)
        assert rec.ephemeral and "not a no-show" in text, text
        assert "**Alice** 1–0 **Bob**" in text and first["id"] in text, text
        async with bot.sessions() as session:
            assert await session.scalar(select(func.count(MatchIncident.id))) == 0


async def test_a_decided_match_says_why_for_noshow_and_left(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        h.add_text_channel(ROUND_THREAD, "round-1")
        seeded = await swiss_match(bot.sessions, config, fake)
        clock.set(AGREED)
        await deadline_job(bot)
        games = [play(fake, n) for n in range(1, 7)]
        clock.set(AGREED + timedelta(hours=2))
        await bot.svc.results.run_once()
        assert (await match_row(bot.sessions, seeded.match_ids[0])).state is MatchState.FINISHED

        for command in ("noshow", "left"):
            rec = await h.slash(command, user=BOB)
            text = said_once(rec)
            assert rec.ephemeral and "already decided" in text, text
            assert "**Alice** 6–0 **Bob**" in text and "final result" in text, text
            assert games[0]["id"] in text
        async with bot.sessions() as session:
            assert await session.scalar(select(func.count(MatchIncident.id))) == 0


async def test_match_shows_the_live_score_then_the_final_one(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        h.add_text_channel(ROUND_THREAD, "round-1")
        await swiss_match(bot.sessions, config, fake)
        clock.set(AGREED)
        await deadline_job(bot)
        url = fake.challenges[0]["url"]
        before = said_once(await h.slash("match", user=ALICE))
        assert "No game yet" in before and url in before, before

        first, second = play(fake, 1), play(fake, 2, result_a=0.5)
        clock.set(AGREED + timedelta(minutes=25))
        await bot.svc.results.run_once()
        live = said_once(await h.slash("match", user=BOB))
        assert "**Alice** 1.5–0.5 **Bob**" in live and "live" in live, live
        assert first["id"] in live and second["id"] in live

        for n in range(3, 8):
            play(fake, n)
        clock.set(AGREED + timedelta(hours=2))
        await bot.svc.results.run_once()
        final = said_once(await h.slash("match", user=ALICE))
        assert "**Alice** 5.5–0.5 **Bob**" in final and "final result" in final, final
        assert "Offers still owed" not in final


async def test_noshow_after_the_link_with_the_old_poll_order(
    running_bot: RunningBot, config: Config, clock: FakeClock, fake: FakeLichess
) -> None:
    """The link created by the results job (not the sweep) does not block a claim either."""
    async with running_bot() as (bot, h):
        assert bot.sessions is not None
        h.add_text_channel(ROUND_THREAD, "round-1")
        seeded = await swiss_match(bot.sessions, config, fake)
        clock.set(AGREED + timedelta(minutes=2))
        await bot.svc.results.run_once()
        async with bot.sessions() as session:
            match = await session.get(Match, seeded.match_ids[0])
            assert match is not None and match.challenge_url is not None
        clock.set(AGREED + timedelta(minutes=5))
        rec = await h.slash("noshow", user=ALICE)
        assert "tournament director has been told" in said_once(rec)
