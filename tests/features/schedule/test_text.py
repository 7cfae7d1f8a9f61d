"""The /schedule reply stays under Discord's limit, and the calendar's UIDs are stable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from icalendar import Calendar

from bot.features.schedule import text as wording
from bot.features.schedule.ics import calendar_file, event_uid, slug
from bot.features.schedule.types import Schedule, ScheduleEntry
from db.models import MatchState

START = datetime(2019, 9, 30, tzinfo=UTC)


def entry(
    number: int, *, state: MatchState = MatchState.FINISHED, games: int = 10
) -> ScheduleEntry:
    return ScheduleEntry(
        match_id=number,
        stage="Swiss",
        named_in_summary=False,
        round_number=number,
        board=1,
        opponent=f"Opponent{number:02d}",
        state=state,
        agreed_time=START + timedelta(days=7 * number),
        my_score=5.5,
        opponent_score=2.5,
        round_deadline=START + timedelta(days=7 * number + 6),
        game_links=[f"https://lichess.org/g{number:03d}{n:04d}" for n in range(games)],
    )


def test_the_oldest_past_matches_give_way_to_the_limit() -> None:
    past = [entry(n) for n in range(1, 31)]
    upcoming = [entry(31, state=MatchState.SCHEDULED, games=0)]
    reply = wording.schedule_reply(Schedule("Alice", upcoming, past, b"", events=31))
    assert len(reply) <= 2000
    assert "Opponent31" in reply and "Opponent30" in reply  # upcoming and the newest past
    assert "Opponent01" not in reply
    kept = sum(f"Opponent{n:02d}" in reply for n in range(1, 31))
    assert f"… and {30 - kept} earlier matches" in reply
    assert reply.index("**Past**") < reply.index("earlier matches") < reply.index("Opponent30")
    assert reply.rstrip().endswith("the same event.")  # the calendar note survives


def test_a_short_schedule_is_not_cut() -> None:
    reply = wording.schedule_reply(Schedule("Alice", [], [entry(1), entry(2)], b"", events=2))
    assert "earlier" not in reply and "Opponent01" in reply and "Opponent02" in reply
    assert "No match to play at the moment." in reply


def test_uids_follow_the_edition_and_the_match() -> None:
    assert slug("ACWC 2019") == "acwc-2019" and slug("  Crazy! House 2020 ") == "crazy-house-2020"
    assert event_uid(7, "ACWC 2019") == "match-7@acwc-2019.acwc"
    now = START + timedelta(hours=3)
    built = calendar_file(
        [entry(1), entry(2, state=MatchState.SCHEDULED), entry(3, state=MatchState.BYE)],
        player="Alice",
        short_name="ACWC 2019",
        duration=timedelta(minutes=90),
        now=now,
    )
    assert built is not None
    data, events = built
    assert events == 2  # the bye has no event
    parsed = [e for e in Calendar.from_ical(data).walk("VEVENT")]
    assert [str(e["uid"]) for e in parsed] == ["match-1@acwc-2019.acwc", "match-2@acwc-2019.acwc"]
    assert parsed[0].decoded("dtend") - parsed[0].decoded("dtstart") == timedelta(minutes=90)
    assert calendar_file([], player="A", short_name="X", duration=timedelta(), now=now) is None
