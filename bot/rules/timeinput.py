"""Reading the match times players type in ``/offer times:``.

Rule 5.2 (V.B) of the 2019 rules: "players must communicate their times in
UTC".  A time without a zone is therefore UTC; an explicit offset is accepted
and converted, so the caller can show the UTC value back to the player.

Accepted, case-insensitive, one time per piece:

* ``YYYY-MM-DD HH:MM`` (or ``YYYY-MM-DDTHH:MM``), seconds optional;
* ``<weekday> HH:MM`` with a full or three-letter weekday name, meaning that
  day of the current round;
* either form optionally followed by ``Z``, ``UTC``, ``GMT``, an offset
  ``+HH:MM`` / ``+HHMM`` or a zone name of the tz database (``Europe/Berlin``,
  any case), read with that zone's clock changes on that day;
* without a zone the time is UTC, or the player's own zone when the caller
  passes one (``zone=``, the zone a player saved with ``/timezone``).

Whatever the zone, the answer is the UTC instant: that is what the rules record
and what the bot shows back.

Everything else is refused with a :class:`TimeInputError` whose message says
what was wrong and ends with :data:`ACCEPTED_FORMATS`: 12-hour times, ``18h``,
day/month dates, dates without times, times without a day, impossible dates,
zone abbreviations (``CEST``: ambiguous), unknown zone names (with the closest
names), and local times a clock change skips or repeats.

Pure: no clock (the caller passes the round window); the only data read is the
tz database (``zoneinfo``, with the ``tzdata`` package as its fallback).  Whether a time is
inside the round, in the future, or a duplicate is the caller's business.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

__all__ = [
    "ACCEPTED_FORMATS",
    "MAX_TIMES",
    "TimeInputError",
    "available_zone_names",
    "parse_time",
    "parse_times",
    "zone_named",
]

#: Most times accepted in one message.
MAX_TIMES = 10

ACCEPTED_FORMATS = (
    "Accepted formats (24-hour clock, UTC unless you add an offset): "
    "`YYYY-MM-DD HH:MM` or `<weekday> HH:MM` (weekday of this round, e.g. `wed` or "
    "`wednesday`), optionally followed by `UTC`, `Z`, an offset such as `+02:00` or a zone "
    "such as `Europe/Berlin`; separate several times with commas, e.g. "
    "`2019-10-02 18:00, thu 21:30 Europe/Berlin`."
)

#: Longest piece quoted back in an error message (Discord messages are short).
_QUOTE_LIMIT = 60

#: Largest accepted offset from UTC (real zones span -12:00 to +14:00).
_MAX_OFFSET = timedelta(hours=14)


class TimeInputError(ValueError):
    """Message is shown to the player as is.

    It says what was wrong, then the accepted formats with an example.
    """

    def __init__(self, message: str, *, piece: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        #: The piece of the player's input that was refused (None: the whole message).
        self.piece = piece


_WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: Full and three-letter weekday names, lower case, to ``date.weekday()`` numbers.
_WEEKDAYS = {
    spelling: number
    for number, name in enumerate(_WEEKDAY_NAMES)
    for spelling in (name.lower(), name[:3].lower())
}

# Pieces are separated by commas, semicolons, newlines, "and", "or" and "&".
_SEPARATOR = re.compile(r"[,;\r\n]|\s+(?:and|or|&)\s+|&", re.IGNORECASE)
# A list bullet in front of a piece ("- wed 18:00", "• thu 20:00").
_BULLET = re.compile(r"^[-*•]\s+")

_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = re.compile(r"([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?")
_ZONE_WORD = re.compile(r"z|utc|gmt")
_OFFSET = re.compile(r"([+-])([0-9]{2}):?([0-9]{2})")
# "europe/berlin", "america/argentina/buenos_aires": a tz database name, lower-cased.
_ZONE_NAME = re.compile(r"[a-z][a-z0-9_+-]*(?:/[a-z0-9_+-]+)+")
_ZONE = re.compile(rf"{_ZONE_WORD.pattern}|{_OFFSET.pattern}|{_ZONE_NAME.pattern}")
# "2019-10-02T18:00Z": one token holding date, time and zone.
_DATE_T_REST = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})t(.+)")
# "18:00Z", "18:00utc", "18:00+02:00": a time with its zone attached.
_TIME_ZONE = re.compile(
    r"(?P<clock>[0-9]{2}:[0-9]{2}(?::[0-9]{2})?)(?P<zone>z|utc|gmt|[+-][0-9]{2}:?[0-9]{2})"
)

# Diagnoses for pieces that do not read.
_AM_PM = re.compile(r"[0-9]+(?:[:.][0-9]+)?\s*[ap]\.?m\b\.?|\b[ap]\.m\.|\b[ap]m\b")
_HOUR_H = re.compile(r"\b[0-9]{1,2}\s*h(?:[0-9]{2})?\b")
_SLASH_DOT_DATE = re.compile(r"\b[0-9]+(?:[/.][0-9]+)+\b")
_SHORT_HOUR = re.compile(r"(?<![0-9])[0-9]:[0-9]{2}\b")
_LONG_HOUR = re.compile(r"(?<![0-9])[0-9]{3,}:[0-9]+\b|\b[0-9]{2}:[0-9](?![0-9])")
_NAMED_OFFSET = re.compile(r"\b(?:utc|gmt)\s*[+-]\s*[0-9:]+")
_BARE_OFFSET = re.compile(r"[+-][0-9:]+")
_RELATIVE = frozenset(
    {"today", "tonight", "tomorrow", "tmrw", "tmr", "yesterday", "now", "noon", "midnight"}
)
_ZONE_NAMES = frozenset(
    {"cet", "cest", "bst", "eet", "eest", "wet", "west", "msk", "ist", "jst", "aest", "aedt"}
    | {"est", "edt", "cst", "cdt", "mst", "mdt", "pst", "pdt", "et", "ct", "pt"}
)


class _Refusal(Exception):
    """One piece does not read: ``detail`` says why, ``token`` is the part at fault."""

    def __init__(self, detail: str, token: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.token = token

    def message(self, piece: str, where: str = "") -> str:
        at = ""
        if self.token is not None and self.token.lower() != piece.lower():
            at = f" (at {_quote(self.token)})"
        return f"Could not read {where}{_quote(piece)}{at}: {self.detail} {ACCEPTED_FORMATS}"


@dataclass(frozen=True)
class _Pieces:
    """The tokens of one piece, sorted by role."""

    day: str  # "YYYY-MM-DD" or a weekday name
    clock: str  # "HH:MM" or "HH:MM:SS"
    zone: str | None  # "z", "utc", "gmt", "+HH:MM", "+HHMM", "europe/berlin"


# --- public API ----------------------------------------------------------------


def parse_times(
    text: str, *, round_start: datetime, round_end: datetime, zone: tzinfo | None = None
) -> list[datetime]:
    """Split on commas / semicolons / newlines / ' and ' ... and parse each time.

    Returns aware UTC datetimes in input order; duplicates are kept (the caller
    refuses them). A time given without a zone is read in ``zone`` (UTC if None).
    Raises :class:`TimeInputError` for the first piece that does not read, for
    empty input and for more than :data:`MAX_TIMES` times.
    """
    _check_round(round_start, round_end)
    pieces = _split(text)
    if not pieces:
        raise TimeInputError(f"No time given. {ACCEPTED_FORMATS}")
    if len(pieces) > MAX_TIMES:
        raise TimeInputError(
            f"At most {MAX_TIMES} times per message; you gave {len(pieces)}. {ACCEPTED_FORMATS}"
        )
    results: list[datetime] = []
    for index, piece in enumerate(pieces, start=1):
        try:
            results.append(_parse_piece(piece, round_start, round_end, zone))
        except _Refusal as refusal:
            where = f"time {index} of {len(pieces)}, " if len(pieces) > 1 else ""
            raise TimeInputError(refusal.message(piece, where), piece=piece) from None
    return results


def parse_time(
    text: str, *, round_start: datetime, round_end: datetime, zone: tzinfo | None = None
) -> datetime:
    """Parse exactly one time; see the module docstring for the accepted forms."""
    _check_round(round_start, round_end)
    piece = _clean(text)
    if not piece:
        raise TimeInputError(f"No time given. {ACCEPTED_FORMATS}")
    try:
        return _parse_piece(piece, round_start, round_end, zone)
    except _Refusal as refusal:
        raise TimeInputError(refusal.message(piece), piece=piece) from None


def zone_named(name: str) -> ZoneInfo:
    """The tz database zone called ``name``, in any case (``europe/berlin``), or ``UTC``.

    Raises :class:`TimeInputError` saying what was wrong: an abbreviation (``CEST`` names
    no rule for the clock changes), or an unknown name, with the closest known names.
    """
    cleaned = name.strip().strip("`").strip()
    if not cleaned:
        raise TimeInputError(f"No time zone given. {_ZONE_EXAMPLES}")
    try:
        return _known_zone(cleaned.lower())
    except _Refusal as refusal:
        raise TimeInputError(f"{_quote(cleaned)}: {refusal.detail}", piece=cleaned) from None


# --- splitting -------------------------------------------------------------------


def _check_round(round_start: datetime, round_end: datetime) -> None:
    for name, value in (("round_start", round_start), ("round_end", round_end)):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"{name} must be an aware datetime, got {value!r}")
    if round_end < round_start:
        raise ValueError(f"round_end {round_end!r} is before round_start {round_start!r}")


def _clean(piece: str) -> str:
    """Drop backticks (players copy them from the help text), bullets, extra spaces."""
    piece = " ".join(piece.replace("`", " ").split())
    return _BULLET.sub("", piece).strip()


def _split(text: str) -> list[str]:
    cleaned = (_clean(piece) for piece in _SEPARATOR.split(text))
    return [piece for piece in cleaned if piece]


def _quote(piece: str) -> str:
    if len(piece) > _QUOTE_LIMIT:
        piece = piece[: _QUOTE_LIMIT - 1] + "…"
    return f"`{piece}`"


# --- one piece -------------------------------------------------------------------


def _parse_piece(
    piece: str, round_start: datetime, round_end: datetime, default: tzinfo | None
) -> datetime:
    parts = _tokens(piece)
    zone = _zone(parts.zone) if parts.zone is not None else (default or UTC)
    hour, minute, second = _clock(parts.clock)
    clock = time(hour, minute, second)
    try:
        if parts.day in _WEEKDAYS:
            return _round_day(parts.day, clock, zone, round_start, round_end)
        return _instant(_date(parts.day), clock, zone)
    except OverflowError:
        raise _Refusal("that time is out of range.") from None


def _tokens(piece: str) -> _Pieces:
    lowered = piece.lower()
    _diagnose_piece(lowered)
    tokens: list[str] = []
    for token in lowered.split():
        match = _DATE_T_REST.fullmatch(token)
        if match:
            tokens.append(match.group(1))
            token = match.group(2)
        match = _TIME_ZONE.fullmatch(token)
        if match:
            tokens.extend((match.group("clock"), match.group("zone")))
            continue
        tokens.append(token)

    days = [t for t in tokens if _DATE.fullmatch(t) or t in _WEEKDAYS]
    clocks = [t for t in tokens if _TIME.fullmatch(t)]
    zones = [t for t in tokens if _ZONE.fullmatch(t)]
    for token in tokens:
        if token not in days and token not in clocks and token not in zones:
            raise _Refusal(_diagnose_token(token), token)

    if not clocks:
        if days:
            kind = "weekday" if days[0] in _WEEKDAYS else "date"
            raise _Refusal(f"a {kind} without a time; add one as HH:MM, e.g. 18:00.", days[0])
        raise _Refusal("no time (HH:MM) in it.")
    if not days:
        raise _Refusal(
            "a time without a date or weekday; put one in front, "
            "e.g. `2019-10-02 18:00` or `wed 18:00`.",
            clocks[0],
        )
    if len(days) > 1 or len(clocks) > 1 or len(zones) > 1:
        raise _Refusal("give one date or weekday, one time and at most one zone per time.")
    if tokens.index(days[0]) != 0 or tokens.index(clocks[0]) != 1:
        raise _Refusal("write the date or weekday first, then the time, then the zone if any.")
    return _Pieces(day=days[0], clock=clocks[0], zone=zones[0] if zones else None)


def _diagnose_piece(lowered: str) -> None:
    """Refuse the ambiguous forms that span tokens (``6 pm``, ``18 h``, ``UTC +2``)."""
    match = _AM_PM.search(lowered)
    if match:
        raise _Refusal(
            "12-hour times (am/pm) are not accepted; use the 24-hour clock, e.g. 18:00 for 6pm.",
            match.group(0),
        )
    match = _HOUR_H.search(lowered)
    if match:
        raise _Refusal("write times as HH:MM, e.g. 18:00.", match.group(0))
    match = _NAMED_OFFSET.search(lowered)
    if match:
        raise _Refusal(
            "write an offset as +HH:MM after the time, e.g. `2019-10-02 20:00 +02:00`, "
            "or just give the time in UTC.",
            match.group(0),
        )


def _diagnose_token(token: str) -> str:
    if token in _RELATIVE:
        return "relative days and times are not accepted; give the date or the weekday."
    if token in _ZONE_NAMES:
        return f"time zone abbreviations are ambiguous and not accepted. {_ZONE_EXAMPLES}"
    if _SLASH_DOT_DATE.search(token):
        return "ambiguous; write dates as YYYY-MM-DD (year-month-day) and times as HH:MM."
    if _SHORT_HOUR.search(token) or _LONG_HOUR.search(token):
        return "write times as HH:MM with two-digit hours, e.g. 08:00 or 20:00."
    if _BARE_OFFSET.fullmatch(token):
        return "write an offset as +HH:MM, e.g. +02:00."
    if re.fullmatch(r"[0-9]+-[0-9]+(?:-[0-9]+)?", token):
        return "not a date; write dates as YYYY-MM-DD, e.g. 2019-10-02."
    return "unknown word."


_ZONE_EXAMPLES = (
    "Give a zone name of the tz database such as `Europe/Berlin` or `America/New_York`, "
    "an offset such as +02:00, or UTC."
)


@cache
def _zone_names() -> dict[str, str]:
    """Every Area/Location zone name the tz database knows, by its lower-case spelling
    (the bare names it also has, such as ``CET`` or ``Japan``, are abbreviations or aliases)."""
    return {name.lower(): name for name in available_timezones() if "/" in name}


def available_zone_names() -> list[str]:
    """Every zone name :func:`zone_named` accepts (``UTC`` and the Area/Location names)."""
    return sorted({"UTC", *_zone_names().values()})


def _known_zone(lowered: str) -> ZoneInfo:
    if _ZONE_WORD.fullmatch(lowered):
        return ZoneInfo("UTC")
    if lowered in _ZONE_NAMES:
        raise _Refusal(f"time zone abbreviations are ambiguous and not accepted. {_ZONE_EXAMPLES}")
    name = _zone_names().get(lowered)
    if name is None:
        close = difflib.get_close_matches(lowered, list(_zone_names()), n=3, cutoff=0.6)
        hint = (
            "did you mean " + " or ".join(f"`{_zone_names()[c]}`" for c in close) + "? "
            if close
            else ""
        )
        raise _Refusal(f"not a time zone I know; {hint}{_ZONE_EXAMPLES}", lowered)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):  # pragma: no cover - listed but unreadable
        raise _Refusal(f"not a time zone I know. {_ZONE_EXAMPLES}", lowered) from None


def _instant(day: date, clock: time, zone: tzinfo) -> datetime:
    """The UTC instant of a wall-clock time in ``zone``: refused when a clock change skips
    it (it never happens there) or repeats it (it happens twice)."""
    local = datetime.combine(day, clock, tzinfo=zone)
    if local.utcoffset() != local.replace(fold=1).utcoffset():
        name = getattr(zone, "key", str(zone))
        back = local.astimezone(UTC).astimezone(zone)
        if back.replace(tzinfo=None) != local.replace(tzinfo=None):
            raise _Refusal(
                f"that time does not exist in {name}: the clocks go forward then. "
                "Give another time, or the time in UTC."
            )
        raise _Refusal(
            f"that time happens twice in {name}: the clocks go back then. Give the time "
            "with its offset (e.g. +02:00) or in UTC."
        )
    return local.astimezone(UTC)


def _zone(text: str | None) -> tzinfo:
    if text is None or _ZONE_WORD.fullmatch(text):
        return UTC
    if _ZONE_NAME.fullmatch(text):
        return _known_zone(text)
    match = _OFFSET.fullmatch(text)
    if match is None:  # pragma: no cover - _tokens only lets zones through
        raise _Refusal("not a time zone.", text)
    sign, hours, minutes = match.groups()
    if int(minutes) > 59:
        raise _Refusal("not a valid offset; minutes go from 00 to 59.", text)
    offset = timedelta(hours=int(hours), minutes=int(minutes))
    if offset > _MAX_OFFSET:
        raise _Refusal("not a valid offset; offsets go up to ±14:00.", text)
    if offset == timedelta(0):
        return UTC
    return timezone(-offset if sign == "-" else offset)


def _clock(text: str) -> tuple[int, int, int]:
    match = _TIME.fullmatch(text)
    if match is None:  # pragma: no cover - _tokens only lets times through
        raise _Refusal("not a time.", text)
    hour, minute = int(match.group(1)), int(match.group(2))
    second = int(match.group(3)) if match.group(3) else 0
    if hour > 23:
        raise _Refusal("not a valid time; hours go from 00 to 23.", text)
    if minute > 59:
        raise _Refusal("not a valid time; minutes go from 00 to 59.", text)
    if second > 59:
        raise _Refusal("not a valid time; seconds go from 00 to 59.", text)
    return hour, minute, second


def _date(text: str) -> date:
    match = _DATE.fullmatch(text)
    if match is None:  # pragma: no cover - _tokens only lets dates through
        raise _Refusal("not a date.", text)
    try:
        return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        raise _Refusal("not a real date (YYYY-MM-DD).", text) from None


def _round_day(
    name: str, clock: time, zone: tzinfo, round_start: datetime, round_end: datetime
) -> datetime:
    """The instant of ``name clock`` on a day of the round, read in the zone it is given in.

    The candidates are the days so named between the round's first and last
    day on that zone's calendar (with Monday-Sunday UTC rounds and no offset,
    exactly one).  The one whose instant lies inside the round wins; when none
    does but there is only one candidate, it is returned anyway and the caller
    refuses it as outside the round, as for a time given with a date.
    """
    weekday = _WEEKDAYS[name]
    first = round_start.astimezone(zone).date()
    last = round_end.astimezone(zone).date()
    candidates: list[datetime] = []
    inside: list[datetime] = []
    ahead = timedelta(days=(weekday - first.weekday()) % 7)
    day = first + ahead if date.max - first >= ahead else date.max
    while day <= last and day.weekday() == weekday and len(inside) < 2:
        instant = _instant(day, clock, zone)
        candidates.append(instant)
        if round_start <= instant <= round_end:
            inside.append(instant)
        if date.max - day < timedelta(days=7):
            break
        day += timedelta(days=7)
    if len(inside) == 1:
        return inside[0]
    if not candidates:
        span = f"{_day_text(round_start)} to {_day_text(round_end)}"
        raise _Refusal(
            f"there is no {_WEEKDAY_NAMES[weekday]} in this round ({span}); "
            "give a day of the round or the date.",
            name,
        )
    if len(candidates) == 1:
        return candidates[0]
    raise _Refusal(
        f"this round has more than one {_WEEKDAY_NAMES[weekday]}; give the date instead.", name
    )


def _day_text(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%a %Y-%m-%d %H:%M UTC")
