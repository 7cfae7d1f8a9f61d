"""When rounds and stages fall: the format's week (`config.format.week`), through the pure
functions of `bot.rules.week`.

* Round 1 starts at the first start of the week at or after `swiss.first_round_start`
  (2019: that Monday 00:00 itself; a 2021 week over a Monday date: the Tuesday after).
* A round runs from its start to the week's round end (2019: Sunday 23:59:59; 2021 on:
  Monday 23:59:59), one a week (`bot.rules.week.round_window`).
* A stage starts at the week start at or after the last round's end, plus the stage's
  `break_weeks` (`bot.rules.week.stage_start_after`).
* The offers are due by the week's `offers_due` (its last second; the deadline is checked
  at the next one, as `bot.features.negotiation` does).

`swiss.round_days` other than 7 keeps the plain arithmetic of `bot.rules.stages.round_window`
(a round of that many days from its start): the week describes 7-day rounds.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.config import Config
from bot.rules import stages as stage_rules
from bot.rules import week as week_rules

SECOND = timedelta(seconds=1)
WEEK_DAYS = 7


def _week(config: Config) -> week_rules.Week:
    return config.format.week.rule_week()


def first_round_start(config: Config) -> datetime:
    """Round 1's start: the week's first start at or after the configured one."""
    start = config.swiss.first_round_start
    if config.swiss.round_days != WEEK_DAYS:
        return start
    return week_rules.next_start(_week(config), start)


def round_times(config: Config, first_start: datetime, number: int) -> tuple[datetime, datetime]:
    """Round `number` (from 1) of rounds one a week from `first_start` (a stage's first
    round): its start and its last second (rule IV.A, IV.F)."""
    days = config.swiss.round_days
    if days != WEEK_DAYS:
        return stage_rules.round_window(first_start, days, number)
    week = _week(config)
    window = week_rules.round_window(week, week_rules.next_start(week, first_start), number)
    return window.start, window.round_end


def stage_start(
    config: Config, after: datetime, kind: str | None, *, key: str | None = None
) -> datetime:
    """The first round of the format stage `key` (without a key: the first of format kind
    `kind`, `round_robin` or `final_match`; None for the tiebreak matches, which are no
    stage of the format) after a stage whose last round ended at `after`: the next week
    start, then the stage's break weeks."""
    stages = (config.format.stage(key),) if key else config.format.of_kind(kind) if kind else ()
    breaks = stages[0].break_weeks if stages else 0
    return week_rules.stage_start_after(_week(config), after, break_weeks=breaks)


def offers_due(config: Config, starts_at: datetime) -> datetime:
    """When a round starting at `starts_at` checks its offers (rule V.C): a second after the
    week's last second for them (2019: Thursday 00:00; 2021 on: Saturday 00:00)."""
    return starts_at + week_rules.round_offsets(_week(config)).offers_due + SECOND
