"""The bracket as data and as a picture, from the presets' formats (the entry rules of
rules2024/rules2020: "The winner of each pool ... against the second place player in the
opposite pool", "The winners of each Semifinal ... Grand Final, and the losers ... Third
Place Playoff"; 2020: Swiss 5-12 play 5 v 12 ... 8 v 9, the winners go to the Candidates)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.discord_limits import MESSAGE_CONTENT
from bot.features.tables.bracket import bracket_stages, build_bracket
from bot.features.tables.bracket_picture import bracket_picture, render_bracket_png
from bot.features.tables.text import bracket_lines, bracket_text
from bot.features.tables.types import Bracket, Played, Slot
from bot.format.model import Format
from bot.format.presets import preset_config


def fmt(name: str) -> Format:
    return Format.model_validate(preset_config(name)["format"])


F2024, F2020, F2019 = fmt("acwc-2024"), fmt("acwc-2020"), fmt("acwc-2019")


def names(bracket: Bracket) -> list[list[str]]:
    return [[m.name for m in column] for column in bracket.columns]


def test_which_stages_are_drawn_together() -> None:
    together = ("semifinals", "grand_final", "third_place")
    assert all(bracket_stages(F2024, key) == together for key in together)
    assert bracket_stages(F2024, "candidates") == bracket_stages(F2024, "swiss") == ()
    # 2020: the Knock-Out alone (its winners go to a round robin); the finals from the pools
    assert bracket_stages(F2020, "knockout") == ("knockout",)
    assert bracket_stages(F2020, "grand_final") == ("grand_final", "third_place")
    # 2019: the one Final is no bracket, its scoreboard says everything
    assert bracket_stages(F2019, "final") == ()
    assert build_bracket(F2019, "final", {}, "ACWC 2019") is None


def test_2024_at_the_semifinals() -> None:
    played = {
        ("semifinals", 1): Played("Ann", "Eve", 5.5, 2.0, "Ann"),
        ("semifinals", 2): Played("Gus", "Cat", 3.0, 2.0),  # still being played
    }
    bracket = build_bracket(F2024, "semifinals", played, "ACWC 2024")
    assert bracket is not None
    assert names(bracket) == [
        ["Semifinal 1", "Semifinal 2"],
        ["Grand Final", "Third Place Playoff"],
    ]
    assert bracket.headings == ("Semifinals", "Grand Final & Third Place Playoff")
    (sf1, sf2), (grand, third) = bracket.columns
    # upper 1st v lower 2nd, lower 1st v upper 2nd
    assert [s.origin for s in (*sf1.slots, *sf2.slots)] == [
        "Upper pool 1st",
        "Lower pool 2nd",
        "Lower pool 1st",
        "Upper pool 2nd",
    ]
    assert sf1.slots == (
        Slot("Ann", "Upper pool 1st", "5.5", True),
        Slot("Eve", "Lower pool 2nd", "2", False),
    )
    assert [s.won for s in sf2.slots] == [False, False] and [s.score for s in sf2.slots] == [
        "3",
        "2",
    ]
    assert sf1.notes[0] == "Ann wins" and not any("wins" in n for n in sf2.notes)
    assert "Winner to the Grand Final" in sf1.notes and "Loser to the Third Place Playoff" in (
        sf1.notes
    )
    # Semifinal 1 is decided: its winner and loser are known before the finals start
    assert grand.slots[0] == Slot("Ann", "Winner of Semifinal 1", feeder=(0, 0))
    assert grand.slots[1] == Slot(None, "Winner of Semifinal 2", feeder=(0, 1))
    assert third.slots[0] == Slot("Eve", "Loser of Semifinal 1", feeder=(0, 0), loser=True)
    assert third.slots[1] == Slot(None, "Loser of Semifinal 2", feeder=(0, 1), loser=True)
    assert bracket.champion is None and grand.notes == () and not grand.exits

    text = bracket_text(bracket)
    assert "Semifinal 1: **Ann** (Upper pool 1st) 5.5–2 Eve (Lower pool 2nd) · Ann wins" in text
    assert "Grand Final: Ann (Winner of Semifinal 1) v *Winner of Semifinal 2*" in text
    assert "Champion" not in text


def test_2024_before_any_result_has_placeholders() -> None:
    bracket = build_bracket(F2024, "grand_final", {}, "ACWC 2024")
    assert bracket is not None
    lines = bracket_lines(bracket, markdown=False)
    assert "Semifinal 1: [Upper pool 1st] v [Lower pool 2nd]" in lines[2]
    assert "Grand Final: [Winner of Semifinal 1] v [Winner of Semifinal 2]" in lines
    assert "Third Place Playoff: [Loser of Semifinal 1] v [Loser of Semifinal 2]" in lines


def test_2024_at_the_grand_final_the_armageddon_and_the_champion() -> None:
    played = {
        ("semifinals", 1): Played("Ann", "Eve", 5.5, 2.0, "Ann"),
        ("semifinals", 2): Played("Gus", "Cat", 5.0, 5.0, "Cat", armageddon=True),
        ("grand_final", 1): Played("Ann", "Cat", 7.0, 5.0, "Ann"),
        ("third_place", 1): Played("Eve", "Gus", 6.0, 6.0),
    }
    bracket = build_bracket(F2024, "grand_final", played, "ACWC 2024")
    assert bracket is not None
    (_, sf2), (grand, third) = bracket.columns
    assert sf2.notes[0] == "Cat wins on Armageddon" and sf2.slots[1].won
    assert [s.score for s in sf2.slots] == ["5", "5"]  # the Armageddon adds nothing
    assert grand.notes == ("Ann wins: champion",) and grand.slots[0].won
    assert bracket.champion == "Ann"
    assert third.notes == () and not any(s.won for s in third.slots)
    text = bracket_text(bracket)
    assert text.endswith("**Champion: Ann**")
    assert "Cat wins on Armageddon" in text
    # decided third place: "3rd place"
    played[("third_place", 1)] = Played("Eve", "Gus", 5.0, 7.0, "Gus", forfeit=True)
    bracket = build_bracket(F2024, "third_place", played, "ACWC 2024")
    assert bracket is not None and bracket.columns[1][1].notes == (
        "Gus wins by forfeit: 3rd place",
    )


def test_2020_knockout_goes_to_the_candidates() -> None:
    played = {
        ("knockout", 1): Played("Q05", "Q12", 2.0, 5.5, "Q12"),
        ("knockout", 2): Played("Q06", "Q11", 1.0, 0.0),
    }
    bracket = build_bracket(F2020, "knockout", played, "ACWC 2020")
    assert bracket is not None
    assert names(bracket) == [["Knock-Out 1", "Knock-Out 2", "Knock-Out 3", "Knock-Out 4"]]
    origins = [tuple(s.origin for s in m.slots) for m in bracket.columns[0]]
    assert origins == [
        (f"Qualification {a}th", f"Qualification {b}th")
        for a, b in ((5, 12), (6, 11), (7, 10), (8, 9))
    ]
    ko1, ko2, ko3, _ = bracket.columns[0]
    assert ko1.slots[1].won and ko1.notes == ("Q12 wins", "Winner to the Candidates")
    assert ko2.notes == ("Winner to the Candidates",)
    assert [s.player for s in ko3.slots] == [None, None]
    assert all(m.exits == ("to the Candidates",) for m in bracket.columns[0])
    assert bracket.champion is None
    assert "Knock-Out 3: *Qualification 7th* v *Qualification 10th*" in bracket_text(bracket)


def test_2020_finals_from_the_pools() -> None:
    bracket = build_bracket(F2020, "third_place", {}, "ACWC 2020")
    assert bracket is not None
    assert names(bracket) == [["Grand Final", "Third Place Playoff"]]
    grand, third = bracket.columns[0]
    assert [s.origin for s in grand.slots] == ["Upper pool 1st", "Lower pool 1st"]
    assert [s.origin for s in third.slots] == ["Upper pool 2nd", "Lower pool 2nd"]
    assert all(s.feeder is None for s in (*grand.slots, *third.slots))


LONG = "A" * 29 + "_"  # a long Lichess name, with a character Markdown would read


@pytest.mark.parametrize("stage", ["semifinals", "grand_final"])
def test_the_picture_and_its_text_twin(stage: str) -> None:
    played = {
        ("semifinals", 1): Played(LONG, "Eve", 5.5, 2.0, LONG),
        ("semifinals", 2): Played("Gus", "Cat", 5.0, 5.0, "Cat", armageddon=True),
        ("grand_final", 1): Played(LONG, "Cat", 7.0, 5.0, LONG),
    }
    bracket = build_bracket(F2024, stage, played, "ACWC 2024")
    assert bracket is not None
    picture = Image.open(io.BytesIO(render_bracket_png(bracket)))
    assert picture.format == "PNG" and 800 <= picture.width <= 1600
    assert 400 <= picture.height <= 2000
    text = bracket_text(bracket)
    assert len(text) <= MESSAGE_CONTENT
    for name in ("Eve", "Gus", "Cat", "A" * 29 + "\\_"):
        assert name in text
    # the outbox stores the bracket as JSON and draws the same picture from it
    assert Bracket.from_json(bracket.to_json()) == bracket
    file, png = bracket_picture({"bracket": bracket.to_json()})
    assert file == "bracket.png" and png == render_bracket_png(bracket)
