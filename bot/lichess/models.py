"""Plain, immutable views of the Lichess data the bot uses.

Every datetime is timezone-aware UTC.  The ``from_api`` constructors accept the
JSON as Lichess sends it (timestamps in milliseconds) as well as the dicts berserk
returns (timestamps already turned into ``datetime``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

LICHESS_SITE = "https://lichess.org"

#: Game statuses that mean the game did not (yet) produce a result.
UNFINISHED_STATUSES = frozenset({"created", "started", "aborted", "noStart"})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_utc(value: Any) -> datetime:
    """Normalise a Lichess timestamp (ms since epoch, datetime or ISO string) to aware UTC."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)
    if isinstance(value, bool):
        raise TypeError(f"not a timestamp: {value!r}")
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    if isinstance(value, str):
        if value.lstrip("-").isdigit():
            return datetime.fromtimestamp(int(value) / 1000, tz=UTC)
        return to_utc(datetime.fromisoformat(value.replace("Z", "+00:00")))
    raise TypeError(f"not a timestamp: {value!r}")


def to_millis(value: datetime) -> int:
    """Milliseconds since the epoch of a datetime (naive datetimes are taken as UTC)."""
    return (to_utc(value) - _EPOCH) // timedelta(milliseconds=1)


def _opt_int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class LichessUser:
    """Public data of a Lichess account (``GET /api/user/{name}``)."""

    id: str
    username: str
    created_at: datetime | None
    disabled: bool
    tos_violation: bool
    is_bot: bool
    bio: str
    location: str
    antichess_games: int | None

    @property
    def url(self) -> str:
        """Profile page on lichess.org."""
        return f"{LICHESS_SITE}/@/{self.username}"

    @classmethod
    def from_api(cls, data: Mapping[str, Any]) -> LichessUser:
        """Build from a Lichess user JSON object (closed accounts included)."""
        username = str(data.get("username") or data.get("id") or "")
        created = data.get("createdAt")
        profile = _mapping(data.get("profile"))
        antichess = _mapping(_mapping(data.get("perfs")).get("antichess"))
        return cls(
            id=str(data.get("id") or username).lower(),
            username=username,
            created_at=to_utc(created) if created is not None else None,
            disabled=bool(data.get("disabled", False)),
            tos_violation=bool(data.get("tosViolation", False)),
            is_bot=data.get("title") == "BOT",
            bio=str(profile.get("bio") or ""),
            location=str(profile.get("location") or ""),
            antichess_games=_opt_int(antichess.get("games")) if antichess else None,
        )


@dataclass(frozen=True)
class LichessGame:
    """One game from the games export (``GET /api/games/user/{name}``)."""

    id: str
    rated: bool
    variant: str
    perf: str
    status: str
    created_at: datetime
    last_move_at: datetime
    white_id: str | None
    black_id: str | None
    white_rating: int | None
    black_rating: int | None
    white_rating_diff: int | None
    black_rating_diff: int | None
    winner: str | None
    clock_initial: int | None
    clock_increment: int | None
    # Each side's remaining time after each of its moves, in centiseconds, interleaved from
    # the side that moved first (the export's `clocks`, sent only when asked for).
    clocks: tuple[int, ...] = ()

    @property
    def url(self) -> str:
        """Game page on lichess.org."""
        return f"{LICHESS_SITE}/{self.id}"

    @property
    def finished(self) -> bool:
        """True when the game ended with a result (not created/started/aborted/noStart)."""
        return self.status not in UNFINISHED_STATUSES

    def color_of(self, user_id: str) -> str | None:
        """ "white"/"black" for the side ``user_id`` played (case-insensitive), else None."""
        uid = user_id.lower()
        if self.white_id is not None and self.white_id == uid:
            return "white"
        if self.black_id is not None and self.black_id == uid:
            return "black"
        return None

    def rating_after(self, user_id: str) -> int | None:
        """Rating of ``user_id`` after this game (rating + ratingDiff; rating if no diff)."""
        color = self.color_of(user_id)
        if color == "white":
            rating, diff = self.white_rating, self.white_rating_diff
        elif color == "black":
            rating, diff = self.black_rating, self.black_rating_diff
        else:
            return None
        if rating is None:
            return None
        return rating + (diff or 0)

    @classmethod
    def from_api(cls, data: Mapping[str, Any]) -> LichessGame:
        """Build from a Lichess game JSON object."""
        players = _mapping(data.get("players"))
        white = _mapping(players.get("white"))
        black = _mapping(players.get("black"))

        def user_id(player: Mapping[str, Any]) -> str | None:
            user = _mapping(player.get("user"))
            uid = user.get("id") or user.get("name")
            return str(uid).lower() if uid else None

        clock = _mapping(data.get("clock"))
        variant = data.get("variant", "standard")
        if isinstance(variant, Mapping):  # some endpoints send {"key": ..., "name": ...}
            variant = variant.get("key", "standard")
        created = to_utc(data["createdAt"])
        last_move = data.get("lastMoveAt")
        winner = data.get("winner")
        return cls(
            id=str(data["id"]),
            rated=bool(data.get("rated", False)),
            variant=str(variant),
            perf=str(data.get("perf") or data.get("speed") or ""),
            status=str(data.get("status", "")),
            created_at=created,
            last_move_at=to_utc(last_move) if last_move is not None else created,
            white_id=user_id(white),
            black_id=user_id(black),
            white_rating=_opt_int(white.get("rating")),
            black_rating=_opt_int(black.get("rating")),
            white_rating_diff=_opt_int(white.get("ratingDiff")),
            black_rating_diff=_opt_int(black.get("ratingDiff")),
            winner=winner if winner in ("white", "black") else None,
            clock_initial=_opt_int(clock.get("initial")) if clock else None,
            clock_increment=_opt_int(clock.get("increment")) if clock else None,
            clocks=tuple(int(c) for c in data.get("clocks") or () if isinstance(c, int)),
        )


@dataclass(frozen=True)
class OpenChallenge:
    """An open challenge (``POST /api/challenge/open``): players join through ``url``.

    ``rated``, ``variant``, the clock and ``user_ids`` are what Lichess made of the request
    (``open.userIds``: the first gets White); the bot checks them before posting the link."""

    id: str
    url: str
    rated: bool | None = None
    variant: str | None = None
    clock_limit: int | None = None
    clock_increment: int | None = None
    user_ids: tuple[str, ...] = ()

    @property
    def white_id(self) -> str | None:
        """Who gets White: the first of the two users the link is open to."""
        return self.user_ids[0] if self.user_ids else None

    @classmethod
    def from_api(cls, data: Mapping[str, Any]) -> OpenChallenge:
        """Build from the challenge JSON (top level or nested under ``challenge``)."""
        if "id" not in data and isinstance(data.get("challenge"), Mapping):
            data = data["challenge"]
        cid = str(data["id"])
        variant = data.get("variant")
        if isinstance(variant, Mapping):
            variant = variant.get("key")
        control = _mapping(data.get("timeControl"))
        rated = data.get("rated")
        users = _mapping(data.get("open")).get("userIds") or ()
        return cls(
            id=cid,
            url=str(data.get("url") or f"{LICHESS_SITE}/{cid}"),
            rated=rated if isinstance(rated, bool) else None,
            variant=str(variant) if variant is not None else None,
            clock_limit=_opt_int(control.get("limit")) if control.get("type") == "clock" else None,
            clock_increment=(
                _opt_int(control.get("increment")) if control.get("type") == "clock" else None
            ),
            user_ids=tuple(str(u).lower() for u in users if u),
        )

    def mismatch(
        self, *, users: tuple[str, str], variant: str, clock: tuple[int, int], rated: bool
    ) -> str | None:
        """What differs from the challenge asked for, or None when it is the one asked for."""
        wrong = []
        if self.rated is not rated:
            wrong.append(f"rated is {self.rated}, not {rated}")
        if self.variant != variant:
            wrong.append(f"variant is {self.variant}, not {variant}")
        if (self.clock_limit, self.clock_increment) != clock:
            wrong.append(
                f"clock is {self.clock_limit}+{self.clock_increment} s, not {clock[0]}+{clock[1]} s"
            )
        asked = tuple(u.lower() for u in users)
        if self.user_ids != asked:
            wrong.append(f"players (White first) are {list(self.user_ids)}, not {list(asked)}")
        return "; ".join(wrong) or None


__all__ = ["LichessGame", "LichessUser", "OpenChallenge", "to_millis", "to_utc"]
