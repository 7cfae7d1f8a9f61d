"""The presets shipped with the bot: one YAML file per format in `bot/format/preset_files/`, each
a championship's configuration for one year plus the rules that date it for any other year.

A preset may `extend` another and change what differs (mappings merge key by key, a list is
replaced whole), as the editions did. `preset_config(name, year)` gives the configuration
mapping a config file starts from (`preset: acwc-2024` in it, then its own overrides): the
dates of that year are computed, never copied, so `acwc new-edition` and a plain `preset:`
agree on them.
"""

from __future__ import annotations

import calendar
import copy
from datetime import UTC, date, datetime, timedelta, timezone
from functools import cache
from importlib import resources
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.format.model import WEEKDAYS, Weekday

PRESETS_PACKAGE = "bot.format.preset_files"


class PresetError(Exception):
    """A preset that does not exist or cannot be read: the message says which and why."""


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DayRule(_Part):
    """A day of the edition's year (or `years_before` it) at `time` in `utc_offset`."""

    month: int = Field(ge=1, le=12)
    day: int = Field(ge=1, le=31)
    time: str = "00:00"
    utc_offset: str = "+00:00"
    years_before: int = Field(0, ge=0, le=5)

    def at(self, year: int) -> datetime:
        hours, minutes = (int(part) for part in self.time.split(":"))
        sign = -1 if self.utc_offset.startswith("-") else 1
        off_h, off_m = (int(part) for part in self.utc_offset.lstrip("+-").split(":"))
        zone = timezone(sign * timedelta(hours=off_h, minutes=off_m))
        local = datetime(
            year - self.years_before, self.month, self.day, hours, minutes, tzinfo=zone
        )
        return local.astimezone(UTC)


class NthWeekday(_Part):
    """The `nth` `weekday` of a month (-1: the last), 00:00 UTC: the first round's start."""

    month: int = Field(ge=1, le=12)
    weekday: Weekday
    nth: Literal[-1, 1, 2, 3, 4] = 1

    def at(self, year: int) -> datetime:
        wanted = WEEKDAYS.index(self.weekday)
        days = [
            day
            for day in range(1, calendar.monthrange(year, self.month)[1] + 1)
            if date(year, self.month, day).weekday() == wanted
        ]
        day = days[-1] if self.nth == -1 else days[self.nth - 1]
        return datetime(year, self.month, day, tzinfo=UTC)


class DateRules(_Part):
    """How a preset dates a year: each date of registration, eligibility and seeding."""

    registration_opens: DayRule
    first_round: NthWeekday
    registration_closes_hours_before: int = Field(12, ge=0, le=24 * 14)
    account_created_before: DayRule
    games_before: DayRule
    seeding_rating_at: DayRule
    seeding_peak_from: DayRule

    def resolve(self, year: int) -> dict[str, Any]:
        """The configuration sections these rules fill for `year`."""
        first = self.first_round.at(year)
        closes = first - timedelta(hours=self.registration_closes_hours_before)
        return {
            "registration": {
                "opens_at": self.registration_opens.at(year),
                "closes_at": closes,
                "account_created_before": self.account_created_before.at(year),
                "games_before": self.games_before.at(year),
            },
            "seeding": {
                "rating_at": self.seeding_rating_at.at(year),
                "peak_from": self.seeding_peak_from.at(year),
            },
            "swiss": {"first_round_start": first},
        }


class PresetFile(_Part):
    """One preset file as written: what it extends, its own year, its dates and config."""

    extends: str | None = None
    year: int = Field(ge=2000, le=2200)
    dates: DateRules
    config: dict[str, Any]


def preset_names() -> tuple[str, ...]:
    """The presets shipped with the bot, by name (their file names without `.yaml`)."""
    folder = resources.files(PRESETS_PACKAGE)
    names = (entry.name[: -len(".yaml")] for entry in folder.iterdir())
    return tuple(sorted(name for name in names if not name.startswith("_")))


@cache
def _read(name: str) -> PresetFile:
    if name not in preset_names():
        raise PresetError(f"no preset {name!r}; the presets are: {', '.join(preset_names())}")
    text = resources.files(PRESETS_PACKAGE).joinpath(f"{name}.yaml").read_text(encoding="utf-8")
    try:
        return PresetFile.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError) as exc:
        raise PresetError(f"preset {name!r} cannot be read: {exc}") from exc


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """`override` over `base`: mappings merge key by key, anything else is replaced. A list
    of keyed items (the format's stages) may be overridden by a mapping from key to changes
    (`format: {stages: {swiss: {qualifiers: 12}}}`), so one setting of one stage changes
    without restating the others; a key the list lacks is a `PresetError`."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        current = out.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            out[key] = merge(current, value)
        elif isinstance(value, dict) and isinstance(current, list) and _keyed(current):
            out[key] = _merge_keyed(current, value, key)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _keyed(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(i, dict) and "key" in i for i in value)


def _merge_keyed(items: list[dict[str, Any]], changes: dict[str, Any], name: str) -> list[Any]:
    known = [item["key"] for item in items]
    for item_key, change in changes.items():
        if item_key not in known:
            raise PresetError(f"{name}: no {item_key!r} to change; there are {', '.join(known)}")
        if not isinstance(change, dict):
            raise PresetError(f"{name}.{item_key}: give the settings to change as a mapping")
    return [merge(item, changes.get(item["key"]) or {}) for item in items]


def _own_config(name: str) -> dict[str, Any]:
    """The preset's config with every preset it extends under it (dates left out)."""
    preset = _read(name)
    base = _own_config(preset.extends) if preset.extends else {}
    return merge(base, preset.config)


def preset_year(name: str) -> int:
    """The year the preset was written for (its pre-seeded players are that year's)."""
    return _read(name).year


def preset_dates(name: str) -> DateRules:
    return _read(name).dates


def preset_config(name: str, year: int | None = None) -> dict[str, Any]:
    """The configuration mapping of preset `name` for `year` (its own year by default):
    every date computed from its rules, `{year}` filled in the championship's names."""
    year = preset_year(name) if year is None else year
    config = merge(_own_config(name), preset_dates(name).resolve(year))
    tournament = dict(config.get("tournament") or {})
    for key in ("name", "short_name"):
        if isinstance(tournament.get(key), str):
            tournament[key] = tournament[key].replace("{year}", str(year))
    config["tournament"] = {**tournament, "year": year}
    return config


def pre_seeded_names(name: str) -> frozenset[str]:
    """The preset's own pre-seeded players, lowercase: a config that still has them for
    another year has probably not been edited (`acwc doctor` warns)."""
    players = _own_config(name).get("players") or {}
    return frozenset(str(p["lichess"]).lower() for p in players.get("pre_seeded") or ())
