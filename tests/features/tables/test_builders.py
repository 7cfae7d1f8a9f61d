"""The tables from plain data: worked examples, and the numbers are the rules' own."""

from __future__ import annotations

import itertools

import pytest

from bot.features.tables.builders import (
    candidates_table,
    final_table,
    final_time_controls,
    swiss_table,
)
from bot.features.tables.render import render_text
from bot.features.tables.types import FinalGame, SwissPairing, Table
from bot.rules import candidates, swiss
from bot.rules import swiss_table as swiss_rules
from bot.rules.final import FinalFormat

NAMES = {"a": "Ann", "b": "Bea", "c": "Cid", "d": "Dan"}
# Round 1: Ann beats Cid, Bea and Dan draw. Round 2: Ann-Bea still to play, Dan wins by
# forfeit against Cid.
PAIRINGS = [
    SwissPairing(1, "a", "c", 1.0, 0.0),
    SwissPairing(1, "b", "d", 0.5, 0.5),
    SwissPairing(2, "a", "b", None, None),
    SwissPairing(2, "d", "c", 1.0, 0.0, forfeit=True),
]


def test_swiss_worked_example() -> None:
    table = swiss_table(["a", "b", "c", "d"], PAIRINGS, names=NAMES, qualifiers=2)
    # Dan 1.5 (draw + forfeit win), Ann 1, Bea 0.5, Cid 0. Median-Buchholz with fewer than
    # three opponents is the plain sum: Dan 0.5 + 0, Ann 0, Bea 1.5, Cid 1 + 1.5.
    assert table.headers == ("No", "Player", "Pts", "WvT", "MBH", "R1", "R2")
    assert table.rows == (
        ("1", "Dan", "1.5", "0", "0.5", "=3", "+4f"),
        ("2", "Ann", "1", "0", "0", "+4", "3"),
        ("3", "Bea", "0.5", "0", "1.5", "=1", "2"),
        ("4", "Cid", "0", "0", "2.5", "-2", "-1f"),
    )
    assert table.highlight == (True, True, False, False)
    assert render_text(table) == "\n".join(
        [
            "**Qualification standings**",
            "```",
            "  No  Player  Pts  WvT  MBH  R1   R2",
            "------------------------------------",
            "*  1  Dan     1.5    0  0.5  =3  +4f",
            "*  2  Ann       1    0    0  +4    3",
            "   3  Bea     0.5    0  1.5  =1    2",
            "   4  Cid       0    0  2.5  -2  -1f",
            "```",
            "`*` in the top 2.",
            # issue 32: the legend explains WvT and MBH, "No" and a bye (it said "No: line")
            "No: place in this table. Pts: points. WvT, the first tiebreak: matches won "
            "against the players on the same points (of players level on points, who beat "
            "more of the others ranks higher). MBH, the second: Median-Buchholz, the "
            "opponents' points without the highest and the lowest (rule III.E.5). R1...: the "
            "opponent's No, + won, = drawn, - lost, f by forfeit, no sign still to play; bye: "
            "no opponent that round.",
        ]
    )


def test_swiss_byes_withdrawals_and_shared_ranks() -> None:
    pairings = [
        SwissPairing(1, "a", "b", 1.0, 0.0),
        SwissPairing(1, "c", None, 1.0, None),
        SwissPairing(2, "c", "a", 0.5, 0.5),
        SwissPairing(2, "b", None, 1.0, None),
    ]
    table = swiss_table(["a", "b", "c"], pairings, names=NAMES, withdrawn={"b"}, qualifiers=3)
    by_name = {row[1]: row for row in table.rows}
    assert by_name["Cid"][5:] == ("bye", "=1")
    assert by_name["Bea (wd)"][5:] == ("-1", "bye")
    assert table.highlight == (True, True, False)  # the withdrawn player is never marked
    assert "(wd): withdrawn or disqualified" in table.footnote
    # Ann and Cid both 1.5 and drew, but their Median-Buchholz differ (Ann met Bea and
    # Cid: 2.5; Cid met Ann: 1.5), so no rank is shared.
    assert [row[1] for row in table.rows] == ["Ann", "Cid", "Bea (wd)"]
    assert "shared rank" not in table.footnote
    tied = swiss_table(["a", "b"], [SwissPairing(1, "a", "b", 0.5, 0.5)], names=NAMES)
    assert [row[0] for row in tied.rows] == ["1", "2"]
    assert "Shared ranks (equal on every tiebreak): No 1-2." in tied.footnote


def _played(seeding: list[str], rounds: int, seed: int) -> list[SwissPairing]:
    """A whole Swiss paired by the rules, results from a fixed pattern."""
    pairings: list[SwissPairing] = []
    pattern = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5), (1.0, 0.0), (0.0, 1.0)]
    outcomes = itertools.cycle(pattern[seed:] + pattern[:seed])
    for number in range(1, rounds + 1):
        results = [(p.a, p.b, p.points_a or 0.0, p.points_b or 0.0) for p in pairings]
        for a, b in swiss.pair_round(seeding, results):
            if b is None:
                pairings.append(SwissPairing(number, a, None, 1.0, None))
            else:
                pa, pb = next(outcomes)
                pairings.append(SwissPairing(number, a, b, pa, pb))
    return pairings


@pytest.mark.parametrize("seed", range(4))
def test_swiss_rows_are_the_rules_standings(seed: int) -> None:
    seeding = [f"p{i}" for i in range(1, 10)]
    pairings = _played(seeding, 4, seed)
    table = swiss_table(seeding, pairings, qualifiers=3)
    results = [(p.a, p.b, p.points_a or 0.0, p.points_b or 0.0) for p in pairings]
    expected = swiss_rules.standings(seeding, results)
    assert [row[1] for row in table.rows] == [s.player for s in expected]
    assert [row[2:5] for row in table.rows] == [
        (f"{s.points:g}", str(s.wins_vs_tied), f"{s.median_buchholz:g}") for s in expected
    ]
    assert table.highlight == tuple(s.rank <= 3 for s in expected)
    place = {row[1]: int(row[0]) for row in table.rows}
    for p in pairings:  # every round cell names the opponent's line and the result
        cell = next(row for row in table.rows if row[1] == p.a)[4 + p.round]
        if p.b is None:
            assert cell == "bye"
        else:
            sign = "+" if (p.points_a or 0) > (p.points_b or 0) else "-"
            sign = "=" if p.points_a == p.points_b else sign
            assert cell == f"{sign}{place[p.b]}"


CANDIDATES = ["Ann", "Cid", "Eve", "Ogul1"]
ROBIN = [
    ("Ann", "Ogul1", 6.0, 4.0),
    ("Cid", "Eve", 7.0, 3.0),
    ("Ogul1", "Eve", 5.0, 5.0),
    ("Ann", "Cid", 5.0, 5.0),
    ("Cid", "Ogul1", 6.0, 4.0),
    ("Eve", "Ann", 2.0, 8.0),
]


def test_candidates_crosstable_worked_example() -> None:
    table = candidates_table(CANDIDATES, ROBIN)
    # Ann and Cid 2.5 match points, Ann ahead on game points 19-18 (rule III.F.3).
    assert table.headers == ("No", "Player", "1", "2", "3", "4", "MP", "GP")
    assert table.rows == (
        ("1", "Ann", "x", "5", "6", "8", "2.5", "19"),
        ("2", "Cid", "5", "x", "6", "7", "2.5", "18"),
        ("3", "Ogul1", "4", "4", "x", "5", "0.5", "13"),
        ("4", "Eve", "2", "3", "5", "x", "0.5", "10"),
    )
    assert table.highlight == (True, False, False, False)
    expected = candidates.standings(CANDIDATES, ROBIN)
    assert [(r[1], r[6], r[7]) for r in table.rows] == [
        (s.player, f"{s.points:g}", f"{s.game_points:g}") for s in expected
    ]
    assert render_text(table).splitlines()[2:8] == [
        "  No  Player  1  2  3  4   MP  GP",
        "---------------------------------",
        "*  1  Ann     x  5  6  8  2.5  19",
        "   2  Cid     5  x  6  7  2.5  18",
        "   3  Ogul1   4  4  x  5  0.5  13",
        "   4  Eve     2  3  5  x  0.5  10",
    ]


def test_candidates_partial_disregarded_and_shared() -> None:
    # Eve was disqualified: her matches are simply absent (rule VIII.B).
    table = candidates_table(CANDIDATES, ROBIN[:1] + ROBIN[3:4], withdrawn={"Eve"})
    by_name = {row[1]: row for row in table.rows}
    assert by_name["Eve (wd)"][2:] == ("", "", "", "x", "0", "0")
    assert by_name["Ann"][6:] == ("1.5", "11")
    level = candidates_table(CANDIDATES, [(a, b, 5.0, 5.0) for a, b, _, _ in ROBIN])
    assert "Shared ranks (equal on every tiebreak): No 1-4." in level.footnote
    # all four share first place: none of them is "first place" for sure (issue 27: a mark
    # on every tied row read as if all of them were through)
    assert level.highlight == (False, False, False, False)


def test_final_game_by_game_with_the_total() -> None:
    games = [
        FinalGame(1, "2+5", "Ann", "Bob", 1.0),
        FinalGame(2, "2+5", "Bob", "Ann", 0.5),
        FinalGame(3, "2+5", "Ann", "Bob", 0.0),
        FinalGame(4, "2+5", "Bob", "Ann", 1.0),  # Ann wins with Black
    ]
    table = final_table("Ann", "Bob", games)
    assert table.title == "Final: Ann vs Bob"
    assert table.headers == ("Game", "TC", "White", "Black", "Result", "Score")
    assert table.rows == (
        ("1", "2+5", "Ann", "Bob", "1-0", "1-0"),
        ("2", "2+5", "Bob", "Ann", "1/2-1/2", "1.5-0.5"),
        ("3", "2+5", "Ann", "Bob", "0-1", "1.5-1.5"),
        ("4", "2+5", "Bob", "Ann", "0-1", "2.5-1.5"),
        ("", "", "", "", "Total", "2.5-1.5"),
    )
    assert table.total_rows == 1
    lines = render_text(table).splitlines()
    rule = "-" * len(lines[2])
    assert lines[2:10] == [
        "Game  TC   White  Black   Result    Score",
        rule,
        "   1  2+5  Ann    Bob        1-0      1-0",
        "   2  2+5  Bob    Ann    1/2-1/2  1.5-0.5",
        "   3  2+5  Ann    Bob        0-1  1.5-1.5",
        "   4  2+5  Bob    Ann        0-1  2.5-1.5",
        rule,
        "                           Total  2.5-1.5",
    ]


SMALL_FINAL = FinalFormat(base_games=2, lead_rule_games=4, armageddon_after=6, time_control="2+5")


def test_final_time_controls_follow_the_rules() -> None:
    # 2019: 12 games at 2+5; from 24 games on 2+0; after 30 at 15-15, the Armageddon.
    rules = FinalFormat(time_control="2+5", tiebreak_time_control="2+0")
    assert final_time_controls([0.5] * 31, rules) == ["2+5"] * 24 + ["2+0"] * 6 + ["Armageddon"]
    assert final_time_controls([0.5] * 7, SMALL_FINAL) == ["2+5"] * 4 + ["2+0"] * 2 + ["Armageddon"]


def test_final_armageddon_decides_without_adding_to_the_score() -> None:
    results = [0.5] * 7
    controls = final_time_controls(results, SMALL_FINAL)
    games = [
        FinalGame(n, tc, *(("Ann", "Bob") if n % 2 else ("Bob", "Ann")), r)
        for n, (tc, r) in enumerate(zip(controls, results, strict=True), start=1)
    ]
    table = final_table("Ann", "Bob", games, winner="Bob")
    assert table.rows[6] == ("7", "Armageddon", "Ann", "Bob", "1/2-1/2", "3-3")
    assert table.rows[-1] == ("", "", "", "", "Total", "3-3")
    # Ann had White: a drawn Armageddon is Black's (rule III.G.6.a).
    assert "Armageddon: Bob wins it" in table.footnote and "Bob wins the Final." in table.footnote
    with pytest.raises(ValueError):
        final_table("Ann", "Bob", [FinalGame(1, "2+5", "Ann", "Cid", 1.0)])


def test_table_checks_its_shape() -> None:
    with pytest.raises(ValueError):
        Table("t", ("a", "b"), (("1",),))
    with pytest.raises(ValueError):
        Table("t", ("a",), (("1",),), highlight=(True, False))
    with pytest.raises(ValueError):
        Table("t", ("a",), (("1",),), total_rows=2)
    auto = Table("t", ("name", "n"), (("Ann", "1.5"), ("Bob", "")))
    assert auto.alignments() == ("left", "right")
