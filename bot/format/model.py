"""A championship format as data: an ordered list of stages, each of a kind from a small
catalogue, with its own settings and entry rules, plus the settings the whole format shares
(the week, what a failed negotiation gives, the equal-bid rule, what leaving does).

Why data: the ACWC changed its format almost every year (2019: Swiss, Candidates, Final;
2020: a Knock-Out before two pools; 2021 on: two pools, Semifinals, Grand Final and Third
Place Playoff). A new edition is a preset of this model (`bot/format/presets/`), never code.
The defaults are the 2019 edition, which is what the bot ran before formats existed.

The stage kinds (`StageKindName`) are the catalogue; each kind's settings are one class
here, and the pure rules that run it are in `bot/rules/`. docs/ARCHITECTURE.md, "How to add
a stage kind", says what a new kind takes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import time
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from bot.rules import week as week_rules

__all__ = [
    "EntryRule",
    "FinalMatchStage",
    "Format",
    "KnockoutStage",
    "PoolSpec",
    "RoundRobinStage",
    "Stage",
    "SwissStage",
    "WeekSpec",
]

Weekday = Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
WEEKDAYS: tuple[Weekday, ...] = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
)
SwissTiebreakKey = Literal[
    "wins_against_tied", "median_buchholz", "cumulative", "kashdan", "sonneborn_berger", "seed"
]
RobinTiebreakKey = Literal[
    "match_points",
    "game_points",
    "mutual_match",
    "mutual_games",
    "overall_games",
    "previous_final",
    "earlier_stage_place",
]
PreSeededRole = Literal["champion", "runner_up"]
_KEY = re.compile(r"^[a-z][a-z0-9_]{0,30}$")
_CLOCK = re.compile(r"^\d{1,3}\+\d{1,2}$")


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _stage_key(value: str) -> str:
    """Keys name stages and pools in commands, exports and URLs: short, lowercase, no spaces."""
    if not _KEY.match(value):
        raise ValueError("use 1-31 lowercase letters, digits or _, starting with a letter")
    return value


def _clock(value: str) -> str:
    """A Lichess clock as "minutes+increment" (increment at most 60, as Lichess allows)."""
    if not _CLOCK.match(value) or int(value.split("+")[1]) > 60:
        raise ValueError('a clock is "minutes+increment", e.g. "2+5" (increment at most 60)')
    return value


# --- entry rules: who plays a stage -------------------------------------------------------


class Registered(_Part):
    """Every approved registrant who is not pre-seeded into a later stage (the Swiss)."""

    rule: Literal["registered"] = "registered"


class Top(_Part):
    """The best `count` of an earlier stage's final ranking (rule III.E.4: the top 3; 2021
    on: the top 10, "or more if a pre-seeded player doesn't play")."""

    rule: Literal["top"] = "top"
    stage: str
    count: int = Field(ge=1, le=256)
    plus_absent_pre_seeded: bool = False


class Places(_Part):
    """Named places of an earlier stage's ranking (2020: Swiss places 1-4 to the
    Candidates; 2019: the Candidates winner, the one pool's first place)."""

    rule: Literal["places"] = "places"
    stage: str
    places: tuple[int, ...] = Field(min_length=1)


class PoolPlaces(_Part):
    """Places in the pools of an earlier round-robin stage, e.g. the 2019 Candidates winner
    (`[[candidates, 1]]`)."""

    rule: Literal["pool_places"] = "pool_places"
    stage: str
    places: tuple[tuple[str, int], ...] = Field(min_length=1)


class Winners(_Part):
    """The winners of an earlier knock-out stage's matches, in pairing order."""

    rule: Literal["winners"] = "winners"
    stage: str


class Losers(_Part):
    """The losers of an earlier knock-out stage's matches, in pairing order."""

    rule: Literal["losers"] = "losers"
    stage: str


class PreSeeded(_Part):
    """A pre-seeded player (the previous champion or runner-up, `players.pre_seeded`), and
    who takes the seat when they are absent (2019: the Candidates runner-up replaces an
    absent champion in the Final, rule VIII.C.1)."""

    rule: Literal["pre_seeded"] = "pre_seeded"
    role: PreSeededRole
    if_absent: PoolPlaces | Places | None = None


EntryRule = Annotated[
    Registered | Top | Places | PoolPlaces | Winners | Losers | PreSeeded,
    Field(discriminator="rule"),
]


def _sources(entry: tuple[EntryRule, ...]) -> Iterator[str]:
    for rule in entry:
        if isinstance(rule, PreSeeded):
            if rule.if_absent is not None:
                yield rule.if_absent.stage
        elif not isinstance(rule, Registered):
            yield rule.stage


# --- the stage kinds ---------------------------------------------------------------------


class _StageBase(_Part):
    key: str
    name: str = Field(min_length=1, max_length=40)
    entry: tuple[EntryRule, ...] = Field(min_length=1)
    # Weeks left free between the end of the stages this one draws from and its start
    # (2020 on: "a 1-week break between the Qualification and Candidates round").
    break_weeks: int = Field(0, ge=0, le=8)

    _key = field_validator("key")(_stage_key)


class SwissStage(_StageBase):
    """Rule III.E: a Swiss of matches, log2(N) rounded up or down plus `extra_rounds`."""

    kind: Literal["swiss"] = "swiss"
    rounds_rounding: Literal["up", "down"] = "up"
    extra_rounds: int = Field(2, ge=0, le=10)
    match_games: int = Field(10, ge=1, le=100)
    stop_score: float | None = Field(5.5, gt=0)  # either player may stop at this score
    bye_points: float = Field(1.0, ge=0)
    qualifiers: int = Field(3, ge=1)
    tiebreaks: tuple[SwissTiebreakKey, ...] = ("wins_against_tied", "median_buchholz")
    # Median-Buchholz with fewer than 3 opponents: sum them (2019: a median needs three), or
    # drop the best and worst anyway (the TDs' tool of 2021-2023).
    short_median_buchholz: Literal["sum", "drop"] = "sum"
    # Rule III.E.5: matches between players still tied across the qualifying places.
    tiebreak_matches: bool = True


class PoolSpec(_Part):
    key: str
    name: str = Field(min_length=1, max_length=40)

    _key = field_validator("key")(_stage_key)


class RoundRobinStage(_StageBase):
    """Rule III.F and the 2020+ Candidates: one or more pools, one match per pair."""

    kind: Literal["round_robin"] = "round_robin"
    pools: tuple[PoolSpec, ...] = Field(min_length=1, max_length=8)
    placement: Literal["single", "snake", "table"] = "single"
    # For `table`: per number of pre-seeded players present, each pool's Swiss places
    # (editions.md's 2021-2024 tables); keys are the counts as strings in YAML.
    placement_table: dict[int, dict[str, tuple[int, ...]]] = {}
    # The pools the present pre-seeded players take, in priority order (champion first): an
    # absent champion lets the runner-up take the first (2021: "the upper pool").
    pre_seeded_pools: tuple[str, ...] = ()
    match_games: int = Field(10, ge=1, le=100)
    play_all_games: bool = True  # rule III.F.2: game points may break ties
    tiebreaks: tuple[RobinTiebreakKey, ...] = ("match_points", "game_points")

    @model_validator(mode="after")
    def _pools_known(self) -> RoundRobinStage:
        names = [pool.key for pool in self.pools]
        if len(set(names)) != len(names):
            raise ValueError("two pools have the same key")
        for pool in self.pre_seeded_pools:
            if pool not in names:
                raise ValueError(f"pre_seeded_pools names an unknown pool {pool!r}")
        if self.placement == "single" and len(self.pools) != 1:
            raise ValueError("placement 'single' needs exactly one pool")
        if self.placement == "table" and not self.placement_table:
            raise ValueError("placement 'table' needs a placement_table")
        for present, table in self.placement_table.items():
            if set(table) != set(names):
                raise ValueError(f"placement_table[{present}] must list every pool once")
            places = [p for pool in table.values() for p in pool]
            if sorted(places) != list(range(1, len(places) + 1)):
                raise ValueError(f"placement_table[{present}] must use places 1..N once each")
        return self


class KnockoutPairing(_Part):
    """One match of a knock-out: seats `a` and `b` of the stage's entrants, counted from 1
    in the order the entry rules list them (2020: entrants are Swiss places 5-12, so 1 v 8
    is 5 v 12; the Semifinals' entrants are upper 1st, lower 2nd, lower 1st, upper 2nd)."""

    name: str = Field(min_length=1, max_length=40)
    a: int = Field(ge=1)  # the higher seat, listed first
    b: int = Field(ge=1)


class TieBreak(_Part):
    """A drawn match: `games` more games (0: none), then an Armageddon."""

    games: int = Field(0, ge=0, le=24)
    clock: str | None = None  # None: the match's own clock (the texts are silent)

    @field_validator("clock")
    @classmethod
    def _lichess_clock(cls, value: str | None) -> str | None:
        return None if value is None else _clock(value)


class KnockoutStage(_StageBase):
    """The 2020 Knock-Out (Swiss 5 v 12 ... 8 v 9) and the 2021+ Semifinals (pool A 1st v
    pool B 2nd): one match per pairing; winners and losers both move on."""

    kind: Literal["knockout"] = "knockout"
    pairings: tuple[KnockoutPairing, ...] = Field(min_length=1)
    match_games: int = Field(10, ge=1, le=100)
    stop_score: float | None = Field(5.5, gt=0)
    tie: TieBreak = TieBreak()


class FinalMatchStage(_StageBase):
    """One match that decides places (rule III.G; 2020 on: the Grand Final and the Third
    Place Playoff, each a stage of this kind). `scheme` is how a tie goes on."""

    kind: Literal["final_match"] = "final_match"
    places: tuple[int, int] = (1, 2)  # the places the winner and the loser take
    scheme: Literal["lead_by_two", "tiebreak_games", "week_repeats"] = "lead_by_two"
    games: int = Field(12, ge=2)  # the first block (rule III.G.1)
    # lead_by_two (2019, 2020): rule III.G.2-6.
    lead: float = Field(2.0, gt=0)
    extension_games: int = Field(2, ge=1)
    lead_rule_games: int = Field(24, ge=2)
    armageddon_after: int = Field(30, ge=2)
    # When the tiebreak clock starts: at an equal score after `lead_rule_games` (2019) or
    # after `lead_rule_games` whatever the score (2020).
    clock_change: Literal["at_equal_score", "after_lead_rule_games"] = "at_equal_score"
    tiebreak_clock: str = "2+0"
    # tiebreak_games (2022 on): a tie after `games` -> `tiebreak_games` more, then Armageddon.
    tiebreak_games: int = Field(4, ge=0, le=24)
    # week_repeats (2021): a tied week of `games` is played again, up to `weeks` weeks.
    weeks: int = Field(3, ge=1, le=8)
    armageddon_black_seconds: int = Field(180, ge=2, le=3600)  # rule III.G.6.a
    # Rule IV.C: the finalists play at their own pace; the TD hears of it after this long.
    days: int = Field(90, ge=1)

    _clock = field_validator("tiebreak_clock")(_clock)


Stage = Annotated[
    SwissStage | RoundRobinStage | KnockoutStage | FinalMatchStage, Field(discriminator="kind")
]


# --- what the whole format shares -----------------------------------------------------------


class WeekTime(_Part):
    weekday: Weekday
    time: str = "00:00:00"  # UTC, HH:MM or HH:MM:SS

    @field_validator("time")
    @classmethod
    def _hhmmss(cls, value: str) -> str:
        parts = value.split(":")
        ok = len(parts) in (2, 3) and all(p.isdigit() and len(p) == 2 for p in parts)
        if not ok or int(parts[0]) > 23 or any(int(p) > 59 for p in parts[1:]):
            raise ValueError('a time is "HH:MM" or "HH:MM:SS" in UTC')
        return value if len(parts) == 3 else value + ":00"


class WeekSpec(_Part):
    """The championship week (rule IV): when a round starts and ends, when the offers are
    due (rule V.C), when "the weekend" starts (rule V.H). Every instant is UTC."""

    start: Weekday = "monday"
    round_end: WeekTime = WeekTime(weekday="sunday", time="23:59:59")
    offers_due: WeekTime = WeekTime(weekday="wednesday", time="23:59:59")
    weekend: WeekTime = WeekTime(weekday="saturday")

    def rule_week(self) -> week_rules.Week:
        """This week as the pure rules take it (`bot.rules.week.Week`): rounds, stage
        starts and the negotiation deadlines are computed from it."""

        def boundary(weekday: Weekday, at: str) -> week_rules.Boundary:
            hour, minute, second = (int(part) for part in at.split(":"))
            return week_rules.Boundary(WEEKDAYS.index(weekday), time(hour, minute, second))

        return week_rules.Week(
            boundary(self.start, "00:00:00"),
            boundary(self.offers_due.weekday, self.offers_due.time),
            boundary(self.weekend.weekday, self.weekend.time),
            boundary(self.round_end.weekday, self.round_end.time),
        )


class Format(_Part):
    """The championship's stages, in the order they are told, and what they share."""

    stages: tuple[Stage, ...] = Field(min_length=1)
    week: WeekSpec = WeekSpec()
    # Both players made none of their offers in time: the TD assigns a time (2019, rule
    # V.F), or the match is a draw and each has forfeited a game (2020 on).
    no_offers: Literal["td_assigns", "draw_both_forfeit_a_game"] = "td_assigns"
    # Offers made but nothing agreed by the weekend and nobody at fault: the TD assigns a
    # time (2019, rule V.I), or the match is a draw (2020 on).
    no_fault: Literal["td_assigns", "draw"] = "td_assigns"
    # Equal Armageddon bids: the previous champion decides (2019, rule III.G.6.c), or a
    # rock-paper-scissors game the TD records (2020 on).
    equal_bids: Literal["previous_champion", "rock_paper_scissors"] = "previous_champion"

    @model_validator(mode="after")
    def _stages_fit_together(self) -> Format:
        seen: dict[str, Stage] = {}
        for stage in self.stages:
            if stage.key in seen:
                raise ValueError(f"two stages have the key {stage.key!r}")
            for source in _sources(stage.entry):
                if source not in seen:
                    raise ValueError(
                        f"stage {stage.key!r} takes players from {source!r}, "
                        "which is not an earlier stage"
                    )
            _check_sources(stage, seen)
            seen[stage.key] = stage
        if not any(isinstance(r, Registered) for r in self.stages[0].entry):
            raise ValueError("the first stage must take the registered players")
        return self

    def stage(self, key: str) -> Stage:
        """The stage with this key (KeyError names the keys there are)."""
        for stage in self.stages:
            if stage.key == key:
                return stage
        raise KeyError(f"no stage {key!r}; the format has {', '.join(self.keys())}")

    def keys(self) -> tuple[str, ...]:
        return tuple(stage.key for stage in self.stages)

    def of_kind(self, kind: str) -> tuple[Stage, ...]:
        return tuple(stage for stage in self.stages if stage.kind == kind)

    def pre_seeded_stage(self, role: str) -> str | None:
        """The stage a pre-seeded player of this role enters, or None when none takes them."""
        for stage in self.stages:
            if any(isinstance(r, PreSeeded) and r.role == role for r in stage.entry):
                return stage.key
        return None


def _check_sources(stage: Stage, seen: dict[str, Stage]) -> None:
    """An entry rule takes from a stage of the kind that produces what it names."""
    for rule in stage.entry:
        target = rule.if_absent if isinstance(rule, PreSeeded) else rule
        if isinstance(target, PoolPlaces):
            source = seen[target.stage]
            pools = {p.key for p in source.pools} if isinstance(source, RoundRobinStage) else set()
            for pool, _place in target.places:
                if pool not in pools:
                    raise ValueError(f"{stage.key!r}: {target.stage!r} has no pool {pool!r}")
        if isinstance(target, Winners | Losers) and not isinstance(
            seen[target.stage], KnockoutStage | FinalMatchStage
        ):
            raise ValueError(f"{stage.key!r}: {target.stage!r} is not a knock-out stage")
    if isinstance(stage, KnockoutStage):
        seats = sorted(seat for p in stage.pairings for seat in (p.a, p.b))
        if seats != list(range(1, len(seats) + 1)):
            raise ValueError(f"{stage.key!r}: the pairings must use seats 1..N once each")
