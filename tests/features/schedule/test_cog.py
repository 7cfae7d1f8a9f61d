"""/schedule through the real command tree: the reply, the calendar file and its updates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from icalendar import Calendar
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.app import ChampionshipBot
from bot.clock import FakeClock
from bot.config import Config
from bot.features.negotiation.service import schedule_match_deadlines
from bot.timefmt import discord_time
from db.engine import transaction
from db.models import Game, Match, MatchState, Round, RoundState
from tests.conftest import TD_ID
from tests.factories import seed_round
from tests.harness import DiscordHarness
from tests.harness.discord import InteractionRecord
from tests.running import ALICE, BOB, RunningBot

CAROL, DAVE, EVE, STRANGER = 104, 105, 106, 199
ROUND1_TIME = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)
ROUND2_START = datetime(2019, 10, 7, tzinfo=UTC)
ROUND2_DEADLINE = datetime(2019, 10, 13, 23, 59, 59, tzinfo=UTC)
WED_19 = datetime(2019, 10, 9, 19, 0, tzinfo=UTC)
THU_20 = datetime(2019, 10, 10, 20, 0, tzinfo=UTC)
FRI_18 = datetime(2019, 10, 11, 18, 0, tzinfo=UTC)
CHALLENGE = "https://lichess.org/chal1234"
FILE = "acwc-schedule.ics"


WED_19_TEXT = "2019-10-09 19:00"  # the time the TD gives Alice vs Eve in these tests


async def td_fixes_alice_eve(rulings: Any, ids: dict[str, int]) -> None:
    """The TD assigns Alice vs Eve (round 2) Wednesday 19:00: a time change to follow."""
    await rulings.assign_time(td_id=TD_ID, match_id=ids["alice_eve"], text=WED_19_TEXT)


async def round_two_day(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> dict[str, int]:
    """`two_rounds`, on round 2's first day."""
    ids = await two_rounds(sessions, config)
    clock.set(ROUND2_START + timedelta(hours=9))
    return ids


async def two_rounds(sessions: async_sessionmaker[AsyncSession], config: Config) -> dict[str, int]:
    """Round 1 is over: Bob beat Alice 2.5–0.5 (three counted games, one void), Dave
    forfeited to Carol, Eve had the bye. Round 2 is under way: Alice–Eve and Bob–Carol
    negotiate, Dave has the bye. Returns the match ids by name."""
    seeded = await seed_round(
        sessions,
        config,
        [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave"), (EVE, "Eve")],
    )
    ids = seeded.player_ids
    ab, cd, eve_bye = seeded.match_ids
    async with transaction(sessions) as session:
        round1 = await session.get(Round, seeded.round_id)
        alice_bob = await session.get(Match, ab)
        carol_dave = await session.get(Match, cd)
        assert round1 is not None and alice_bob is not None and carol_dave is not None
        round1.state = RoundState.FINISHED
        alice_bob.state = MatchState.FINISHED
        alice_bob.agreed_time = ROUND1_TIME
        alice_bob.challenge_url = CHALLENGE
        alice_bob.score_a, alice_bob.score_b = 0.5, 2.5
        games = [
            ("game0001", 0.0, True),
            ("game0002", 0.5, True),
            ("void0003", 1.0, False),
            ("game0004", 0.0, True),
        ]
        for number, (game_id, result_a, counted) in enumerate(games, start=1):
            white, black = (ids["Alice"], ids["Bob"]) if number % 2 else (ids["Bob"], ids["Alice"])
            session.add(
                Game(
                    match_id=ab,
                    lichess_id=game_id,
                    number=number,
                    white_player_id=white,
                    black_player_id=black,
                    status="mate",
                    result_a=result_a,
                    counted=counted,
                    voided_reason=None if counted else "played with the wrong clock",
                    created_at=ROUND1_TIME,
                )
            )
        carol_dave.state = MatchState.FORFEITED
        carol_dave.forfeit_winner_id = ids["Carol"]
        round2 = Round(
            stage_id=seeded.stage_id,
            number=2,
            state=RoundState.PUBLISHED,
            starts_at=ROUND2_START,
            deadline=ROUND2_DEADLINE,
            published_at=ROUND2_START,
        )
        session.add(round2)
        await session.flush()
        pairs = [("Alice", "Eve"), ("Bob", "Carol"), ("Dave", None)]
        matches = [
            Match(
                round_id=round2.id,
                player_a_id=ids[a],
                player_b_id=ids[b] if b else None,
                board=board,
                state=MatchState.NEGOTIATING if b else MatchState.BYE,
                td_assigns=False,
                score_a=0.0,
                score_b=0.0,
            )
            for board, (a, b) in enumerate(pairs, start=1)
        ]
        session.add_all(matches)
        await session.flush()
        for match in matches:
            await schedule_match_deadlines(session, match, round2, config)
        return {
            "alice_bob": ab,
            "carol_dave": cd,
            "eve_bye": eve_bye,
            "alice_eve": matches[0].id,
            "bob_carol": matches[1].id,
            "dave_bye": matches[2].id,
        }


async def setup(bot: ChampionshipBot, h: DiscordHarness, config: Config) -> dict[str, int]:
    for user_id, name in ((CAROL, "carol"), (DAVE, "dave"), (EVE, "eve"), (STRANGER, "zed")):
        h.add_member(user_id, name)
    assert bot.sessions is not None
    return await two_rounds(bot.sessions, config)


def calendar_of(rec: InteractionRecord) -> dict[str, dict[str, object]]:
    """The attached calendar's events by UID, each as its decoded properties."""
    assert rec.response is not None and rec.response.files == [FILE], rec.response
    calendar = Calendar.from_ical(rec.response.file_data[FILE])
    assert str(calendar["version"]) == "2.0" and "ACWC 2019" in str(calendar["prodid"])
    events: dict[str, dict[str, object]] = {}
    for event in calendar.walk("VEVENT"):
        events[str(event["uid"])] = {
            "start": event.decoded("dtstart"),
            "end": event.decoded("dtend"),
            "stamp": event.decoded("dtstamp"),
            "sequence": int(event["sequence"]),
            "summary": str(event["summary"]),
            "description": str(event["description"]),
        }
    return events


def uid(match_id: int) -> str:
    return f"match-{match_id}@acwc-2019.acwc"


async def test_schedule_follows_the_agreed_time_as_it_changes(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        ids = await setup(bot, h, config)
        clock.set(ROUND2_START + timedelta(hours=9))
        await td_fixes_alice_eve(bot.svc.rulings, ids)

        rec = await h.slash("schedule", user=ALICE)
        assert rec.ephemeral and not rec.errors, rec.errors
        text = rec.text
        assert len(text) <= 2000
        upcoming, past = text.index("**Upcoming**"), text.index("**Past**")
        assert upcoming < text.index("vs **Eve**") < past < text.index("vs **Bob**"), text
        assert "Swiss round 2, board 1 vs **Eve**: " in text  # no row id (issue 32)
        assert discord_time(WED_19) in text and discord_time(ROUND2_DEADLINE) in text
        assert "lost 0.5–2.5" in text and discord_time(ROUND1_TIME) in text
        counted = [f"https://lichess.org/{g}" for g in ("game0001", "game0002", "game0004")]
        assert all(link in text for link in counted) and "void0003" not in text
        assert "2 agreed match times" in text

        events = calendar_of(rec)
        assert set(events) == {uid(ids["alice_eve"]), uid(ids["alice_bob"])}
        agreed = events[uid(ids["alice_eve"])]
        start = agreed["start"]
        assert isinstance(start, datetime) and start == WED_19
        assert start.utcoffset() == timedelta(0)  # DTSTART is in UTC
        assert (
            rec.response is not None and b"DTSTART:20191009T190000Z" in rec.response.file_data[FILE]
        )
        assert agreed["end"] == WED_19 + timedelta(minutes=config.negotiation.finish_margin_minutes)
        assert agreed["sequence"] == 0 and agreed["stamp"] == clock.now()
        assert agreed["summary"] == "ACWC 2019 round 2: Alice vs Eve"
        assert "Round deadline: 2019-10-13 23:59 UTC" in str(agreed["description"])
        played = events[uid(ids["alice_bob"])]
        assert played["start"] == ROUND1_TIME and played["sequence"] == 0
        assert played["summary"] == "ACWC 2019 round 1: Alice vs Bob"
        assert f"Game link: {CHALLENGE}" in str(played["description"])

        # Alice moves the match and Eve accepts: the same event, one version later.
        clock.advance(timedelta(hours=1))
        moved = await h.slash("reschedule", user=ALICE, options={"time": "thu 20:00"})
        assert moved.ephemeral and discord_time(THU_20) in moved.text, moved.text
        accepted = await h.slash("accept", user=EVE)
        assert discord_time(THU_20) in accepted.text, accepted.text

        again = await h.slash("schedule", user=ALICE)
        assert discord_time(THU_20) in again.text and discord_time(WED_19) not in again.text
        event = calendar_of(again)[uid(ids["alice_eve"])]
        assert event["start"] == THU_20 and event["sequence"] == 1
        assert event["stamp"] == clock.now()
        assert calendar_of(again)[uid(ids["alice_bob"])]["sequence"] == 0

        # The TD assigns another time: one more version, and Eve's calendar agrees.
        await bot.svc.rulings.assign_time(
            td_id=TD_ID, match_id=ids["alice_eve"], text="2019-10-11 18:00"
        )
        eve = await h.slash("schedule", user=EVE)
        assert eve.ephemeral and "vs **Alice**" in eve.text
        event = calendar_of(eve)[uid(ids["alice_eve"])]
        assert event["start"] == FRI_18 and event["sequence"] == 2
        assert event["summary"] == "ACWC 2019 round 2: Eve vs Alice"
        assert "Swiss round 1, board 3: bye" in eve.text
        assert eve.text.index("**Past**") < eve.text.index(": bye")


async def test_finished_match_bye_and_no_agreed_time(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        ids = await setup(bot, h, config)
        clock.set(ROUND2_START + timedelta(hours=9))

        bob = await h.slash("schedule", user=BOB)
        assert bob.ephemeral
        assert "won 2.5–0.5" in bob.text and "[1](<https://lichess.org/game0001>)" in bob.text
        assert "vs **Carol**" in bob.text and "no time agreed yet" in bob.text
        assert bob.text.index("vs **Carol**") < bob.text.index("**Past**")
        events = calendar_of(bob)
        assert list(events) == [uid(ids["alice_bob"])]
        assert events[uid(ids["alice_bob"])]["summary"] == "ACWC 2019 round 1: Bob vs Alice"
        assert "1 agreed match time." in bob.text

        # Dave: a lost forfeit and a bye, never a time: no calendar, and a sentence saying so.
        dave = await h.slash("schedule", user=DAVE)
        assert dave.ephemeral and dave.response is not None
        assert dave.response.files == [] and dave.response.file_data == {}
        assert "no calendar file" in dave.text
        assert "No match to play at the moment." in dave.text
        assert "vs **Carol**" in dave.text and "lost by forfeit" in dave.text
        assert "Swiss round 2, board 3: bye" in dave.text
        assert dave.text.index("lost by forfeit") < dave.text.index("round 2, board 3: bye")
        carol = await h.slash("schedule", user=CAROL)
        assert "won by forfeit" in carol.text


async def test_someone_who_is_not_a_player_is_refused(
    running_bot: RunningBot, config: Config, clock: FakeClock
) -> None:
    async with running_bot() as (bot, h):
        await setup(bot, h, config)
        rec = await h.slash("schedule", user=STRANGER)
        assert rec.ephemeral and not rec.errors
        assert rec.text == "You are not a player in the championship."
        assert rec.response is not None and rec.response.files == []
        # In a DM too.
        dm = await h.slash("schedule", user=STRANGER, dm=True)
        assert dm.ephemeral and "not a player" in dm.text
