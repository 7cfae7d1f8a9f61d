"""The per-stage settings of the configuration before formats existed (`swiss.qualifiers`,
`stages.final_games`, `tournament.match_games`, `negotiation.offers_due_hours` ...), kept as
a view of the format so there is one truth.

Why: configs written for earlier versions set those keys, and parts of the bot still read
them. `reconcile` runs on the raw configuration before validation: a key an old config sets
is written into every stage of its kind (the old spelling wins, so an old config keeps
meaning what it meant), then every key is filled from the format's first stage of its kind.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from pydantic import ValidationError

from bot.format.model import WEEKDAYS, Format

__all__ = ["LEGACY_KEYS", "reconcile"]


def _same(value: Any) -> Any:
    return value


def _invert(value: Any) -> Any:
    return not value


def _clock_text(value: Any) -> Any:
    """{minutes: 2, increment: 0} -> "2+0"."""
    if isinstance(value, dict):
        return f"{value.get('minutes', 2)}+{value.get('increment', 0)}"
    return value


def _clock_mapping(value: Any) -> Any:
    """ "2+0" -> {minutes: 2, increment: 0}."""
    if isinstance(value, str) and "+" in value:
        minutes, increment = value.split("+", 1)
        return {"minutes": int(minutes), "increment": int(increment)}
    return value


@dataclass(frozen=True)
class LegacyKey:
    """`section.key` of the old configuration = `field` of every stage of `kinds`."""

    section: str
    key: str
    kinds: tuple[str, ...]
    field: str
    to_format: Callable[[Any], Any] = _same
    from_format: Callable[[Any], Any] = _same


_FINAL = ("final_match",)
LEGACY_KEYS: tuple[LegacyKey, ...] = (
    LegacyKey("tournament", "match_games", ("swiss", "round_robin", "knockout"), "match_games"),
    LegacyKey("tournament", "early_stop_score", ("swiss", "knockout"), "stop_score"),
    LegacyKey("swiss", "rounds_rounding", ("swiss",), "rounds_rounding"),
    LegacyKey("swiss", "extra_rounds", ("swiss",), "extra_rounds"),
    LegacyKey("swiss", "qualifiers", ("swiss",), "qualifiers"),
    LegacyKey("swiss", "bye_points", ("swiss",), "bye_points"),
    LegacyKey("swiss", "short_median_buchholz", ("swiss",), "short_median_buchholz"),
    LegacyKey(
        "stages", "candidates_early_stop", ("round_robin",), "play_all_games", _invert, _invert
    ),
    LegacyKey("stages", "final_games", _FINAL, "games"),
    LegacyKey("stages", "final_lead", _FINAL, "lead"),
    LegacyKey("stages", "final_extension_games", _FINAL, "extension_games"),
    LegacyKey("stages", "final_lead_rule_games", _FINAL, "lead_rule_games"),
    LegacyKey("stages", "final_armageddon_after", _FINAL, "armageddon_after"),
    LegacyKey("stages", "final_armageddon_black_seconds", _FINAL, "armageddon_black_seconds"),
    LegacyKey("stages", "final_days", _FINAL, "days"),
    LegacyKey(
        "stages",
        "final_tiebreak_time_control",
        _FINAL,
        "tiebreak_clock",
        _clock_text,
        _clock_mapping,
    ),
)

# The week's instants as hours from the round's start, as `negotiation` has them. The offers
# are due by an inclusive last second ("Wednesday 23:59:59"), which is the exclusive boundary
# a second later; the weekend starts at its instant.
_WEEK_HOURS = (("offers_due_hours", "offers_due", True), ("weekend_hours", "weekend", False))


def _seconds(time: str) -> int:
    parts = [int(p) for p in time.split(":")] + [0]
    return parts[0] * 3600 + parts[1] * 60 + parts[2]


def _hours_after_start(week: dict[str, Any], point: dict[str, Any], inclusive: bool) -> float:
    start = WEEKDAYS.index(week.get("start", "monday"))
    day = (WEEKDAYS.index(point["weekday"]) - start) % 7
    seconds = day * 86400 + _seconds(str(point.get("time", "00:00:00")))
    if inclusive:  # the last second counts: the boundary is the next one
        seconds += 1
    return seconds / 3600


def _week_point(week: dict[str, Any], hours: float, inclusive: bool) -> dict[str, Any]:
    """The inverse: hours after the start -> a weekday and a time (for the offers, the last
    second that counts, as the rules write "by Wednesday 23:59:59")."""
    start = WEEKDAYS.index(week.get("start", "monday"))
    boundary = timedelta(hours=hours)
    point = boundary - timedelta(seconds=1) if inclusive else boundary
    weekday = WEEKDAYS[(start + point.days) % 7]
    clock = point.seconds
    return {
        "weekday": weekday,
        "time": f"{clock // 3600:02d}:{clock % 3600 // 60:02d}:{clock % 60:02d}",
    }


def _stages_of(fmt: dict[str, Any], kinds: tuple[str, ...]) -> list[dict[str, Any]]:
    return [s for s in fmt.get("stages") or () if isinstance(s, dict) and s.get("kind") in kinds]


def reconcile(data: dict[str, Any], default_format: dict[str, Any]) -> dict[str, Any]:
    """`data` (a raw configuration mapping) with one truth: old keys it sets go into its
    format (or the default one), and every old key is then read from that format."""
    out = copy.deepcopy(data)
    fmt = copy.deepcopy(out.get("format") or default_format)
    for legacy in LEGACY_KEYS:
        section = out.get(legacy.section)
        if isinstance(section, dict) and legacy.key in section:
            for stage in _stages_of(fmt, legacy.kinds):
                stage[legacy.field] = legacy.to_format(section[legacy.key])
    negotiation = out.get("negotiation")
    week = dict(fmt.get("week") or {})
    if isinstance(negotiation, dict):
        for hours_key, point, last_second in _WEEK_HOURS:
            if hours_key in negotiation:
                week[point] = _week_point(week, float(negotiation[hours_key]), last_second)
    if week:
        fmt["week"] = week
    try:  # every field spelled out, defaults included; a bad format is reported later
        fmt = Format.model_validate(fmt).model_dump(mode="json")
        week = fmt["week"]
    except ValidationError:
        pass
    for legacy in LEGACY_KEYS:
        stages = _stages_of(fmt, legacy.kinds)
        if stages and legacy.field in stages[0]:
            section = dict(out.get(legacy.section) or {})
            section[legacy.key] = legacy.from_format(stages[0][legacy.field])
            out[legacy.section] = section
    if week:
        negotiation = dict(out.get("negotiation") or {})
        for hours_key, point, last_second in _WEEK_HOURS:
            if point in week:
                negotiation[hours_key] = _hours_after_start(week, week[point], last_second)
        out["negotiation"] = negotiation
    out["format"] = fmt
    return out
