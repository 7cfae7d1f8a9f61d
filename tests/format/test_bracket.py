"""Which stages one bracket draws and where each seat comes from, read from the format's
entry rules alone (the Discord bracket and the web's share it)."""

from __future__ import annotations

from bot.config import Config, with_preset
from bot.features.matches.text import seat_text
from bot.format.bracket import bracket_stages, columns_of, seats, stage_matches
from bot.format.model import Format


def _format(preset: str) -> Format:
    return Config.model_validate(with_preset({"preset": preset})).format


def test_the_2021_bracket_is_the_semifinals_then_both_finals() -> None:
    fmt = _format("acwc-2021")
    keys = bracket_stages(fmt, "grand_final")
    assert keys == ("semifinals", "grand_final", "third_place")
    assert bracket_stages(fmt, "semifinals") == keys  # from any of its stages
    assert bracket_stages(fmt, "swiss") == ()  # plays no matches
    assert columns_of(fmt, keys) == {"semifinals": 0, "grand_final": 1, "third_place": 1}
    # the Semifinals cross the pools: upper 1st v lower 2nd, lower 1st v upper 2nd
    assert [seat_text(s) for s in seats(fmt, "semifinals")] == [
        "Upper pool 1st",
        "Lower pool 2nd",
        "Lower pool 1st",
        "Upper pool 2nd",
    ]
    assert stage_matches(fmt, "semifinals") == (("Semifinal 1", 1, 2), ("Semifinal 2", 3, 4))
    # the finals' seats come from the Semifinals' winners and losers, match by match
    grand = seats(fmt, "grand_final")
    assert [seat_text(s) for s in grand] == ["Winner of Semifinal 1", "Winner of Semifinal 2"]
    assert [s.feeder for s in grand] == [("semifinals", 0, True), ("semifinals", 1, True)]
    third = seats(fmt, "third_place")
    assert [seat_text(s) for s in third] == ["Loser of Semifinal 1", "Loser of Semifinal 2"]


def test_2019s_final_alone_is_no_bracket() -> None:
    fmt = _format("acwc-2019")
    assert bracket_stages(fmt, "final") == ()  # one match: the scoreboard tells it all
    assert seat_text(seats(fmt, "final")[0]) == "Previous champion"
