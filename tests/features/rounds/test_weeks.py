"""The rounds follow the format's week (`config.format.week`, `bot.features.rounds.weeks`):
2019 as before, a 2021 week (Tuesday to Monday) over the 2019 stages, break weeks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.config import Config, with_preset
from bot.events import EventBus
from bot.features.negotiation.common import round_deadlines_of
from bot.features.rounds import weeks
from bot.features.rounds.progress import RoundProgress
from bot.features.rounds.text import preview_text
from bot.features.rounds.types import PairingLine, RoundPreview
from bot.format.presets import preset_names
from bot.rules import negotiation
from bot.rules import stages as stage_rules
from bot.rules.week import round_offsets
from db.models import Round

# The acwc-2024 preset's week.
WEEK_2024: dict[str, Any] = {
    "start": "tuesday",
    "round_end": {"weekday": "monday", "time": "23:59:59"},
    "offers_due": {"weekday": "friday", "time": "23:59:59"},
    "weekend": {"weekday": "saturday", "time": "00:00"},
}


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def config_2019(**format_changes: Any) -> Config:
    data: dict[str, Any] = {"preset": "acwc-2019"}
    if format_changes:
        data["format"] = format_changes
    return Config.model_validate(with_preset(data))


def test_the_2024_preset_has_the_week_these_tests_use() -> None:
    week = Config.model_validate(with_preset({"preset": "acwc-2024"})).format.week
    assert week.model_dump(mode="json") == config_2019(week=WEEK_2024).format.week.model_dump(
        mode="json"
    )


def test_2019_rounds_and_stage_starts_are_as_before() -> None:
    config = config_2019()
    first = weeks.first_round_start(config)
    assert first == config.swiss.first_round_start == utc(2019, 9, 30)
    for number in range(1, 9):
        assert weeks.round_times(config, first, number) == stage_rules.round_window(
            first, 7, number
        )
    for after in (utc(2019, 10, 6, 23, 59, 59), utc(2019, 10, 9, 12), utc(2019, 10, 14)):
        assert weeks.stage_start(config, after, "round_robin") == stage_rules.next_monday(after)
        assert weeks.stage_start(config, after, "final_match") == stage_rules.next_monday(after)
        assert weeks.stage_start(config, after, None) == stage_rules.next_monday(after)
    assert weeks.offers_due(config, first) == utc(2019, 10, 3)  # Thursday 00:00


def test_a_2021_week_runs_tuesday_to_monday() -> None:
    config = config_2019(week=WEEK_2024)
    # The 2019 preset dates round 1 on Monday 30 September: the week starts on Tuesdays.
    first = weeks.first_round_start(config)
    assert first == utc(2019, 10, 1) and first.strftime("%A") == "Tuesday"
    start, end = RoundProgress(config, EventBus()).round_window(1)
    assert (start, end) == (utc(2019, 10, 1), utc(2019, 10, 7, 23, 59, 59))
    assert end.strftime("%A") == "Monday"
    assert RoundProgress(config, EventBus()).round_window(3) == (
        utc(2019, 10, 15),
        utc(2019, 10, 21, 23, 59, 59),
    )
    # the offers: by Friday 23:59:59, checked at Saturday 00:00
    assert weeks.offers_due(config, start) == utc(2019, 10, 5)
    round_ = Round(stage_id=1, number=1, starts_at=start, deadline=end)
    due = round_deadlines_of(round_, config)
    assert (due.offers_due, due.weekend, due.round_end) == (utc(2019, 10, 5), utc(2019, 10, 5), end)
    # the next stage starts the Tuesday after the last round's Monday
    assert weeks.stage_start(config, end, "round_robin") == utc(2019, 10, 8)


def test_the_round_preview_shows_the_weeks_days() -> None:
    config = config_2019(week=WEEK_2024)
    start, end = RoundProgress(config, EventBus()).round_window(1)
    preview = RoundPreview(1, 5, 2, start, end, [PairingLine(1, "A", 1, "B", 2)])
    text = preview_text(preview, published=False)
    assert "2019-10-01 00:00 UTC" in text and "2019-10-07 23:59 UTC" in text


def test_break_weeks_of_the_stage_being_started() -> None:
    config = config_2019(
        week=WEEK_2024, stages={"candidates": {"break_weeks": 1}, "final": {"break_weeks": 2}}
    )
    swiss_end = utc(2019, 11, 11, 23, 59, 59)  # a Monday
    assert weeks.stage_start(config, swiss_end, "round_robin") == utc(2019, 11, 19)
    assert weeks.stage_start(config, swiss_end, "final_match") == utc(2019, 11, 26)
    assert weeks.stage_start(config, swiss_end, None) == utc(2019, 11, 12)  # tiebreak matches


@pytest.mark.parametrize("preset", preset_names())
def test_every_presets_offers_are_due_by_its_weekend(preset: str) -> None:
    """`negotiation.deadlines` refuses offers due after the weekend: every preset's week
    passes, and gives the instants the engine schedules."""
    config = Config.model_validate(with_preset({"preset": preset}))
    first = weeks.first_round_start(config)
    off = round_offsets(config.format.week.rule_week())
    d = negotiation.deadlines(
        first,
        offers_due_offset=off.offers_due,
        weekend_offset=off.weekend,
        round_end_offset=off.round_end,
    )
    start, end = weeks.round_times(config, first, 1)
    assert (start, end) == (first, d.round_end)
    engine = round_deadlines_of(Round(stage_id=1, number=1, starts_at=start, deadline=end), config)
    assert engine.offers_due == d.offers_due + timedelta(seconds=1) <= engine.weekend == d.weekend
