"""Tests for bot.rules.timeinput (rule 5.2 / V.B: times are given in UTC)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.timeinput import (
    ACCEPTED_FORMATS,
    MAX_TIMES,
    TimeInputError,
    parse_time,
    parse_times,
    zone_named,
)

# Qualification round 1 of the 2019 edition: Monday 30 September to Sunday 6 October.
ROUND_START = datetime(2019, 9, 30, 0, 0, tzinfo=UTC)
ROUND_END = datetime(2019, 10, 6, 23, 59, 59, tzinfo=UTC)
WED_18 = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)


def one(text: str) -> datetime:
    return parse_time(text, round_start=ROUND_START, round_end=ROUND_END)


def many(text: str) -> list[datetime]:
    return parse_times(text, round_start=ROUND_START, round_end=ROUND_END)


def refusal(text: str) -> str:
    with pytest.raises(TimeInputError) as info:
        one(text)
    return str(info.value)


def test_accepted_formats_is_one_line_with_an_example() -> None:
    assert "\n" not in ACCEPTED_FORMATS
    assert "YYYY-MM-DD HH:MM" in ACCEPTED_FORMATS
    assert "e.g. `2019-10-02 18:00" in ACCEPTED_FORMATS


# --- accepted forms ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "2019-10-02 18:00",
        "2019-10-02T18:00",
        "2019-10-02t18:00",
        "2019-10-02T18:00Z",
        "2019-10-02T18:00z",
        "2019-10-02 18:00Z",
        "2019-10-02 18:00 Z",
        "2019-10-02 18:00 UTC",
        "2019-10-02 18:00 utc",
        "2019-10-02 18:00UTC",
        "2019-10-02 18:00 GMT",
        "2019-10-02 18:00:00",
        "2019-10-02T18:00:00Z",
        "2019-10-02 18:00:00 UTC",
        "2019-10-02T18:00+00:00",
        "2019-10-02 18:00 -00:00",
        "  2019-10-02   18:00  ",
        "`2019-10-02 18:00`",
        "wed 18:00",
        "Wed 18:00",
        "WED 18:00",
        "wednesday 18:00",
        "Wednesday 18:00 UTC",
        "wednesday 18:00 gmt",
        "Wed 18:00Z",
        "wed 18:00:00",
        "wed 20:00 +02:00",
    ],
)
def test_accepted_forms(text: str) -> None:
    result = one(text)
    assert result == WED_18
    assert result.tzinfo is UTC


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2019-10-02T20:00+02:00", WED_18),
        ("2019-10-02 20:00 +0200", WED_18),
        ("2019-10-02 20:00+0200", WED_18),
        ("2019-10-02 20:00 +02:00", WED_18),
        ("2019-10-02T13:00-05:00", WED_18),
        ("2019-10-02 23:30 +05:30", WED_18),
        ("2019-10-03T01:00+07:00", WED_18),
        ("2019-10-02T01:00+02:00", datetime(2019, 10, 1, 23, 0, tzinfo=UTC)),
        ("2019-10-01T22:00-04:00", datetime(2019, 10, 2, 2, 0, tzinfo=UTC)),
    ],
)
def test_offsets_are_converted_to_utc(text: str, expected: datetime) -> None:
    result = one(text)
    assert result == expected
    assert result.utcoffset() == timedelta(0)
    assert (result.hour, result.minute) == (expected.hour, expected.minute)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("mon 00:00", 30),
        ("monday 12:00", 30),
        ("tue 12:00", 1),
        ("tuesday 12:00", 1),
        ("wed 12:00", 2),
        ("thu 12:00", 3),
        ("thursday 12:00", 3),
        ("fri 12:00", 4),
        ("friday 12:00", 4),
        ("sat 12:00", 5),
        ("saturday 12:00", 5),
        ("sun 12:00", 6),
        ("sunday 12:00", 6),
    ],
)
def test_weekdays_name_the_day_of_the_round(text: str, day: int) -> None:
    result = one(text)
    month = 9 if day == 30 else 10
    assert result == datetime(2019, month, day, result.hour, 0, tzinfo=UTC)
    assert result.hour == int(text[-5:-3])
    assert ROUND_START <= result <= ROUND_END


def test_weekday_extremes_of_the_round() -> None:
    assert one("mon 00:00") == ROUND_START
    assert one("sun 23:59:59") == ROUND_END


def test_weekday_in_a_later_round() -> None:
    start = datetime(2019, 10, 7, tzinfo=UTC)
    end = datetime(2019, 10, 13, 23, 59, 59, tzinfo=UTC)
    assert parse_time("fri 21:30", round_start=start, round_end=end) == datetime(
        2019, 10, 11, 21, 30, tzinfo=UTC
    )


def test_weekday_round_window_in_another_zone() -> None:
    # An aware window given at +02:00 is the same instants as the UTC one.
    cest = timezone(timedelta(hours=2))
    start = ROUND_START.astimezone(cest)
    end = ROUND_END.astimezone(cest)
    assert parse_time("wed 18:00", round_start=start, round_end=end) == WED_18


def test_weekday_with_offset_is_read_on_the_offsets_calendar() -> None:
    assert one("wed 20:00 +02:00") == WED_18
    assert one("wed 01:00 +02:00") == datetime(2019, 10, 1, 23, 0, tzinfo=UTC)
    # Local Monday 01:00 +02:00 that falls inside the round is the one late on Sunday UTC.
    assert one("mon 01:00 +02:00") == datetime(2019, 10, 6, 23, 0, tzinfo=UTC)
    assert one("sun 23:00 -02:00") == datetime(2019, 9, 30, 1, 0, tzinfo=UTC)


def test_weekday_in_a_short_window_outside_hours_is_left_to_the_caller() -> None:
    # The day is in the round; whether the instant is inside is the caller's check.
    start = datetime(2019, 9, 30, 12, 0, tzinfo=UTC)
    end = datetime(2019, 10, 2, 12, 0, tzinfo=UTC)
    assert parse_time("mon 10:00", round_start=start, round_end=end) == datetime(
        2019, 9, 30, 10, 0, tzinfo=UTC
    )
    assert parse_time("wed 18:00", round_start=start, round_end=end) == WED_18


def test_seconds_are_kept() -> None:
    assert one("2019-10-02 18:00:30") == WED_18.replace(second=30)


def test_boundary_times() -> None:
    assert one("2019-10-02 00:00") == datetime(2019, 10, 2, 0, 0, tzinfo=UTC)
    assert one("2019-10-02 23:59") == datetime(2019, 10, 2, 23, 59, tzinfo=UTC)
    assert one("2020-02-29 12:00") == datetime(2020, 2, 29, 12, 0, tzinfo=UTC)


def test_iso_dates_are_not_limited_to_the_round() -> None:
    # Whether a dated time is inside the round is the caller's check.
    assert one("2019-12-25 12:00") == datetime(2019, 12, 25, 12, 0, tzinfo=UTC)


# --- several times --------------------------------------------------------------------


def test_several_times_with_every_separator_keep_order() -> None:
    text = (
        "thu 18:00, 2019-10-01 09:00; wed 18:00\nsat 12:00 and sun 10:00"
        " & fri 20:00 or 2019-10-02T20:00+02:00\r\nmon 08:00"
    )
    assert many(text) == [
        datetime(2019, 10, 3, 18, 0, tzinfo=UTC),
        datetime(2019, 10, 1, 9, 0, tzinfo=UTC),
        WED_18,
        datetime(2019, 10, 5, 12, 0, tzinfo=UTC),
        datetime(2019, 10, 6, 10, 0, tzinfo=UTC),
        datetime(2019, 10, 4, 20, 0, tzinfo=UTC),
        WED_18,
        datetime(2019, 9, 30, 8, 0, tzinfo=UTC),
    ]


def test_and_is_case_insensitive() -> None:
    assert many("wed 18:00 AND thu 18:00") == [WED_18, WED_18 + timedelta(days=1)]


def test_duplicates_are_kept() -> None:
    assert many("wed 18:00, 2019-10-02 18:00, 2019-10-02T20:00+02:00") == [WED_18] * 3


def test_empty_pieces_and_bullets_are_ignored() -> None:
    assert many("wed 18:00,, thu 18:00,\n\n") == [WED_18, WED_18 + timedelta(days=1)]
    assert many("- wed 18:00\n- thu 18:00\n• fri 18:00") == [
        WED_18 + timedelta(days=n) for n in range(3)
    ]


def test_single_time_through_parse_times() -> None:
    assert many("wed 18:00") == [WED_18]


def test_max_times() -> None:
    ten = ", ".join(f"2019-10-02 {hour:02d}:00" for hour in range(MAX_TIMES))
    assert len(many(ten)) == MAX_TIMES == 10
    eleven = ten + ", 2019-10-02 23:00"
    with pytest.raises(TimeInputError) as info:
        many(eleven)
    message = str(info.value)
    assert "At most 10 times" in message
    assert "you gave 11" in message
    assert message.endswith(ACCEPTED_FORMATS)


def test_error_in_a_list_names_the_piece_and_its_place() -> None:
    with pytest.raises(TimeInputError) as info:
        many("wed 18:00, thu 6pm, fri 18:00")
    message = str(info.value)
    assert "time 2 of 3" in message
    assert "`thu 6pm`" in message
    assert "`6pm`" in message
    assert message.endswith(ACCEPTED_FORMATS)
    assert info.value.piece == "thu 6pm"


# --- refusals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "offending", "reason"),
    [
        # 12-hour clock and other ambiguous forms
        ("10/02 6pm", "6pm", "am/pm"),
        ("6pm", "6pm", "am/pm"),
        ("wed 6pm", "6pm", "am/pm"),
        ("wed 6 PM", "6 pm", "am/pm"),
        ("wed 6:30pm", "6:30pm", "am/pm"),
        ("2019-10-02 06:00 am", "00 am", "am/pm"),
        ("2019-10-02 6 a.m.", "6 a.m.", "am/pm"),
        ("wed 18h", "18h", "HH:MM"),
        ("18h", "18h", "HH:MM"),
        ("wed 18h30", "18h30", "HH:MM"),
        ("10/02 18:00", "10/02", "YYYY-MM-DD"),
        ("02.10.2019 18:00", "02.10.2019", "YYYY-MM-DD"),
        ("2019/10/02 18:00", "2019/10/02", "YYYY-MM-DD"),
        ("wed 18.00", "18.00", "HH:MM"),
        ("02-10-2019 18:00", "02-10-2019", "YYYY-MM-DD"),
        ("10-02 18:00", "10-02", "YYYY-MM-DD"),
        ("wed 8:00", "8:00", "two-digit hours"),
        ("wed 180:00", "180:00", "HH:MM"),
        ("wed 18:0", "18:0", "HH:MM"),
        # missing parts
        ("2019-10-02", "2019-10-02", "without a time"),
        ("wed", "wed", "without a time"),
        ("wednesday", "wednesday", "without a time"),
        ("18:00", "18:00", "without a date or weekday"),
        ("18:00 UTC", "18:00", "without a date or weekday"),
        ("UTC", "utc", "no time"),
        # impossible values
        ("2019-02-30 10:00", "2019-02-30", "not a real date"),
        ("2019-13-01 10:00", "2019-13-01", "not a real date"),
        ("2019-02-29 10:00", "2019-02-29", "not a real date"),
        ("0000-01-01 10:00", "0000-01-01", "not a real date"),
        ("wed 24:00", "24:00", "hours go from 00 to 23"),
        ("2019-10-02 25:00", "25:00", "hours go from 00 to 23"),
        ("wed 18:60", "18:60", "minutes go from 00 to 59"),
        ("wed 18:00:60", "18:00:60", "seconds go from 00 to 59"),
        ("2019-10-02 18:00 +15:00", "+15:00", "offsets go up to"),
        ("2019-10-02 18:00 +02:60", "+02:60", "minutes go from 00 to 59"),
        ("9999-12-31 23:00 -05:00", "9999-12-31 23:00 -05:00", "out of range"),
        # words and zones
        ("today 18:00", "today", "relative"),
        ("tomorrow 18:00", "tomorrow", "relative"),
        ("tonight", "tonight", "relative"),
        ("wed noon", "noon", "relative"),
        ("2019-10-02 18:00 CEST", "cest", "abbreviations are ambiguous"),
        ("wed 13:00 EST", "est", "abbreviations are ambiguous"),
        ("wed 18:00 Europe/Berlinn", "europe/berlinn", "did you mean `Europe/Berlin`"),
        ("wed 18:00 Mars/Olympus", "mars/olympus", "not a time zone I know"),
        ("2019-03-31 02:30 Europe/Berlin", "europe/berlin", "does not exist in Europe/Berlin"),
        ("2019-10-27 02:30 Europe/Berlin", "europe/berlin", "happens twice in Europe/Berlin"),
        ("2019-10-02 18:00 UTC+2", "utc+2", "+HH:MM"),
        ("2019-10-02 18:00 GMT -5", "gmt -5", "+HH:MM"),
        ("2019-10-02 18:00 +2", "+2", "+HH:MM"),
        ("wed foo 18:00", "foo", "unknown word"),
        ("tues 18:00", "tues", "unknown word"),
        ("whenever", "whenever", "unknown word"),
        ("oct 2 18:00", "oct", "unknown word"),
        # structure
        ("18:00 wed", "18:00 wed", "first"),
        ("wed thu 18:00", "wed thu 18:00", "one date or weekday"),
        ("wed 18:00 19:00", "wed 18:00 19:00", "one date or weekday"),
        ("2019-10-02 18:00 UTC Z", "2019-10-02 18:00 utc z", "at most one zone"),
        ("UTC 2019-10-02 18:00", "utc 2019-10-02 18:00", "first"),
        ("2019-10-02T", "2019-10-02t", "unknown word"),
    ],
)
def test_refusals_name_the_offending_text(text: str, offending: str, reason: str) -> None:
    message = refusal(text)
    assert f"`{text.strip()}`" in message
    assert offending.lower() in message.lower()
    assert reason.lower() in message.lower()
    assert message.endswith(ACCEPTED_FORMATS)
    assert "e.g." in message


@pytest.mark.parametrize("text", ["", "   ", "\n", ",", " , ; \n and "])
def test_empty_input(text: str) -> None:
    with pytest.raises(TimeInputError) as info:
        many(text)
    assert str(info.value).startswith("No time given.")
    assert str(info.value).endswith(ACCEPTED_FORMATS)


@pytest.mark.parametrize("text", ["", "   ", "``"])
def test_empty_single_time(text: str) -> None:
    with pytest.raises(TimeInputError, match="No time given"):
        one(text)


def test_parse_time_refuses_several_times() -> None:
    message = refusal("wed 18:00, thu 18:00")
    assert "`wed 18:00, thu 18:00`" in message


def test_long_input_is_shortened_in_the_message() -> None:
    text = "wed 18:00 " + "x" * 500
    message = refusal(text)
    assert "…" in message
    assert len(message) < len(ACCEPTED_FORMATS) + 250


def test_weekday_outside_a_short_round_is_refused() -> None:
    start = datetime(2019, 9, 30, 0, 0, tzinfo=UTC)
    end = datetime(2019, 10, 2, 23, 59, 59, tzinfo=UTC)
    with pytest.raises(TimeInputError) as info:
        parse_time("fri 18:00", round_start=start, round_end=end)
    message = str(info.value)
    assert "`fri 18:00`" in message
    assert "no Friday in this round" in message
    assert message.endswith(ACCEPTED_FORMATS)
    with pytest.raises(TimeInputError, match="no Friday"):
        parse_times("wed 18:00, fri 18:00", round_start=start, round_end=end)


def test_weekday_twice_in_a_long_window_is_refused() -> None:
    end = ROUND_END + timedelta(days=7)
    with pytest.raises(TimeInputError, match="more than one Wednesday") as info:
        parse_time("wed 18:00", round_start=ROUND_START, round_end=end)
    assert str(info.value).endswith(ACCEPTED_FORMATS)
    # A date is still fine.
    assert parse_time("2019-10-09 18:00", round_start=ROUND_START, round_end=end) == (
        WED_18 + timedelta(days=7)
    )


def test_time_input_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        one("6pm")


# --- the round window -----------------------------------------------------------------------


@pytest.mark.parametrize("func", [parse_time, parse_times])
def test_naive_round_bounds_are_a_programming_error(func: Callable[..., object]) -> None:
    naive_start = ROUND_START.replace(tzinfo=None)
    naive_end = ROUND_END.replace(tzinfo=None)
    for start, end in ((naive_start, ROUND_END), (ROUND_START, naive_end)):
        with pytest.raises(ValueError, match="aware") as info:
            func("wed 18:00", round_start=start, round_end=end)
        assert not isinstance(info.value, TimeInputError)
    # Checked before the input, even when the input is empty.
    with pytest.raises(ValueError, match="aware"):
        func("", round_start=naive_start, round_end=ROUND_END)


def test_reversed_round_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="before") as info:
        parse_times("wed 18:00", round_start=ROUND_END, round_end=ROUND_START)
    assert not isinstance(info.value, TimeInputError)


# --- properties ----------------------------------------------------------------------------

AWARE_UTC = st.datetimes(timezones=st.just(UTC))


@given(AWARE_UTC)
def test_round_trip_plain(value: datetime) -> None:
    text = f"{value.year:04d}-{value:%m-%d %H:%M}"
    assert one(text) == value.replace(second=0, microsecond=0)


@given(
    AWARE_UTC,
    st.sampled_from([" ", "T", "t"]),
    st.sampled_from(["", "Z", " Z", " UTC", " utc", "UTC", " GMT", " +00:00", "-0000"]),
    st.booleans(),
)
def test_round_trip_variants(value: datetime, sep: str, zone: str, seconds: bool) -> None:
    clock = f"{value:%H:%M:%S}" if seconds else f"{value:%H:%M}"
    text = f"{value.year:04d}-{value:%m-%d}{sep}{clock}{zone}"
    expected = value.replace(microsecond=0) if seconds else value.replace(second=0, microsecond=0)
    result = one(text)
    assert result == expected
    assert result.tzinfo is UTC


@given(
    st.datetimes(min_value=datetime(1001, 1, 1), max_value=datetime(9998, 12, 31)),
    st.integers(min_value=-14 * 4, max_value=14 * 4),
    st.booleans(),
)
def test_round_trip_offsets(naive: datetime, quarters: int, colon: bool) -> None:
    value = naive.replace(second=0, microsecond=0, tzinfo=UTC)
    offset = timedelta(minutes=15 * quarters)
    local = value.astimezone(timezone(offset))
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(quarters) * 15
    zone = f"{sign}{minutes // 60:02d}{':' if colon else ''}{minutes % 60:02d}"
    text = f"{local.year:04d}-{local:%m-%d %H:%M} {zone}"
    result = one(text)
    assert result == value
    assert result.tzinfo is UTC


@given(
    st.integers(min_value=0, max_value=6),
    st.integers(min_value=0, max_value=23),
    st.integers(min_value=0, max_value=59),
    st.booleans(),
)
def test_round_trip_weekdays(day: int, hour: int, minute: int, full: bool) -> None:
    value = ROUND_START + timedelta(days=day, hours=hour, minutes=minute)
    name = f"{value:%A}" if full else f"{value:%a}"
    assert one(f"{name} {value:%H:%M}") == value


@given(st.lists(AWARE_UTC, min_size=1, max_size=MAX_TIMES), st.sampled_from([",", ";", "\n"]))
def test_round_trip_lists(values: list[datetime], sep: str) -> None:
    text = f"{sep} ".join(f"{v.year:04d}-{v:%m-%d %H:%M}" for v in values)
    assert many(text) == [v.replace(second=0, microsecond=0) for v in values]


def check_reads_or_is_refused_politely(text: str) -> None:
    try:
        results = many(text)
    except TimeInputError as error:
        assert str(error).endswith(ACCEPTED_FORMATS)
    else:
        assert 1 <= len(results) <= MAX_TIMES
        assert all(r.tzinfo is UTC for r in results)


WORDS = st.sampled_from(
    [
        *("wed", "Wednesday", "2019-10-02", "2019-02-30", "18:00", "24:00", "8:00", "6pm"),
        *("18h", "UTC", "Z", "+02:00", "+0200", "utc+2", "T", "and", ",", ";", "\n", "today"),
        *("x", "10/02"),
    ]
)


@given(st.lists(WORDS, max_size=12))
def test_any_mix_of_known_pieces_reads_or_is_refused_politely(words: list[str]) -> None:
    check_reads_or_is_refused_politely(" ".join(words))


@given(st.text(max_size=80))
def test_any_text_reads_or_is_refused_politely(text: str) -> None:
    check_reads_or_is_refused_politely(text)


# --- named zones and the player's own zone (rule V.B: the answer is UTC) ---------------------


def test_named_zones_are_read_with_their_clock_changes() -> None:
    """Europe/Berlin is +02:00 in summer time (2 October) and +01:00 after 27 October."""
    assert one("wed 18:00 Europe/Berlin") == datetime(2019, 10, 2, 16, 0, tzinfo=UTC)
    assert one("2019-10-02 18:00 europe/berlin") == datetime(2019, 10, 2, 16, 0, tzinfo=UTC)
    assert one("2019-10-28 18:00 Europe/Berlin") == datetime(2019, 10, 28, 17, 0, tzinfo=UTC)
    assert one("wed 14:00 America/New_York") == WED_18
    assert one("2019-10-02T18:00 Asia/Kolkata") == datetime(2019, 10, 2, 12, 30, tzinfo=UTC)
    assert many("wed 20:00 Europe/Berlin, thu 20:00") == [
        WED_18,
        datetime(2019, 10, 3, 20, 0, tzinfo=UTC),
    ]


def test_a_saved_zone_reads_times_without_one() -> None:
    berlin = zone_named("Europe/Berlin")
    got = parse_times(
        "wed 20:00, thu 20:00 UTC, fri 20:00 +00:00, sat 20:00 America/New_York",
        round_start=ROUND_START,
        round_end=ROUND_END,
        zone=berlin,
    )
    assert got == [
        WED_18,
        datetime(2019, 10, 3, 20, 0, tzinfo=UTC),  # an explicit zone wins
        datetime(2019, 10, 4, 20, 0, tzinfo=UTC),
        datetime(2019, 10, 6, 0, 0, tzinfo=UTC),
    ]
    one_time = parse_time("wed 20:00", round_start=ROUND_START, round_end=ROUND_END, zone=berlin)
    assert one_time == WED_18


def test_zone_named() -> None:
    assert zone_named("Europe/Berlin").key == "Europe/Berlin"
    assert zone_named(" `america/new_york` ").key == "America/New_York"
    assert zone_named("utc").key == "UTC"
    for bad, why in (
        ("", "No time zone given"),
        ("CEST", "abbreviations are ambiguous"),
        ("Europe/Berln", "did you mean `Europe/Berlin`"),
        ("Nowhere", "not a time zone I know"),
    ):
        with pytest.raises(TimeInputError) as info:
            zone_named(bad)
        assert why in info.value.message, info.value.message
        assert "Europe/Berlin" in info.value.message


@given(st.sampled_from(sorted(["Europe/Berlin", "America/New_York", "Asia/Kolkata", "UTC"])))
def test_a_zones_wall_time_round_trips(name: str) -> None:
    zone = zone_named(name)
    got = one(f"wed 18:00 {name}")
    local = got.astimezone(zone)
    assert (local.day, local.hour, local.minute) == (2, 18, 0)
    assert got.tzinfo is UTC
