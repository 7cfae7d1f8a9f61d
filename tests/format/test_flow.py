"""What follows what, read from the presets: the 2024 championship after its Swiss, its
Candidates and its Semifinals, and 2020's Knock-Out, as the rules pages say."""

from __future__ import annotations

from bot.config import Config, with_preset
from bot.format.flow import destinations, ready, start
from bot.rules.advancement import CHAMPION, RUNNER_UP, EntryKind, Outcomes, StageOutcome

SWISS = tuple(f"s{place}" for place in range(1, 31))  # s1 won the Swiss, s2 second ...


def fmt(preset: str) -> Config:
    return Config.model_validate(with_preset({"preset": preset}))


def test_2024_after_the_swiss_the_candidates_pools_by_the_table() -> None:
    """Both pre-seeded present: "10th, 7th, 6th, 3rd and 1st place ... lower pool. The
    players in 9th, 8th, 5th, 4th and 2nd place ... upper"; the champion upper, the
    runner-up lower."""
    f = fmt("acwc-2024").format
    assert ready(f, finished={"swiss"}, started={"swiss"}) == ["candidates"]
    outcomes = Outcomes(
        {"swiss": StageOutcome(ranking=SWISS)}, {CHAMPION: "champ", RUNNER_UP: "second"}
    )
    begun = start(f, "candidates", outcomes)
    assert begun.pools == {
        "upper": ("s2", "s4", "s5", "s8", "s9", "champ"),
        "lower": ("s1", "s3", "s6", "s7", "s10", "second"),
    }
    assert [(e.player, e.rule, e.place) for e in begun.entries][:2] == [
        ("s1", EntryKind.TOP, 1),
        ("s2", EntryKind.TOP, 2),
    ]


def test_2024_without_the_champion_eleven_go_on_and_the_runner_up_is_upper() -> None:
    """One pre-seeded present: "11th, 8th, 7th, 4th, 2nd and 1st place ... lower"; the
    runner-up starts in the upper pool."""
    f = fmt("acwc-2024").format
    outcomes = Outcomes({"swiss": StageOutcome(ranking=SWISS)}, {CHAMPION: None, RUNNER_UP: "x"})
    begun = start(f, "candidates", outcomes)
    assert begun.pools["lower"] == ("s1", "s2", "s4", "s7", "s8", "s11")
    assert begun.pools["upper"] == ("s3", "s5", "s6", "s9", "s10", "x")


def test_2024_semifinals_cross_the_pools_and_the_finals_start_together() -> None:
    f = fmt("acwc-2024").format
    pools = {"upper": ("u1", "u2", "u3"), "lower": ("l1", "l2", "l3")}
    outcomes = Outcomes({"candidates": StageOutcome(pools=pools)})
    semis = start(f, "semifinals", outcomes)
    assert [(p.name, p.first, p.second) for p in semis.pairings] == [
        ("Semifinal 1", "u1", "l2"),
        ("Semifinal 2", "l1", "u2"),
    ]
    done = {"swiss", "candidates", "semifinals"}
    assert ready(f, finished=done, started=done) == ["grand_final", "third_place"]
    after = Outcomes(
        {
            "semifinals": StageOutcome(
                pairings=semis.pairings, winners={"Semifinal 1": "l2", "Semifinal 2": "l1"}
            )
        }
    )
    grand, third = start(f, "grand_final", after), start(f, "third_place", after)
    assert grand.pairings[0].players == ("l2", "l1")
    assert third.pairings[0].players == ("u1", "u2")


def test_2020_knock_out_5_v_12_and_its_winners_join_the_top_4() -> None:
    f = fmt("acwc-2020").format
    outcomes = Outcomes({"swiss": StageOutcome(ranking=SWISS)}, {CHAMPION: "a", RUNNER_UP: "o"})
    assert ready(f, finished={"swiss"}, started={"swiss"}) == ["knockout"]
    ko = start(f, "knockout", outcomes)
    assert [(p.first, p.second) for p in ko.pairings] == [
        ("s5", "s12"),
        ("s6", "s11"),
        ("s7", "s10"),
        ("s8", "s9"),
    ]
    won = {p.name: p.second for p in ko.pairings}  # every lower seed wins
    after = Outcomes(
        {
            "swiss": StageOutcome(ranking=SWISS),
            "knockout": StageOutcome(pairings=ko.pairings, winners=won),
        },
        {CHAMPION: "a", RUNNER_UP: "o"},
    )
    pools = start(f, "candidates", after).pools
    assert sorted(pools["upper"] + pools["lower"]) == sorted(
        ["s1", "s2", "s3", "s4", "s12", "s11", "s10", "s9", "a", "o"]
    )
    assert "a" in pools["upper"] and "o" in pools["lower"]


def test_2019_final_the_champion_or_else_the_candidates_runner_up() -> None:
    f = fmt("acwc-2019").format
    table = StageOutcome(ranking=("c1", "c2", "c3", "c4"), pools={"candidates": ("c1", "c2")})
    with_champion = Outcomes({"candidates": table}, {CHAMPION: "champ"})
    assert start(f, "final", with_champion).pairings[0].players == ("champ", "c1")
    without = Outcomes({"candidates": table}, {CHAMPION: None})
    final = start(f, "final", without)
    assert final.pairings[0].players == ("c2", "c1")
    assert final.entries[0].instead_of is CHAMPION


def test_where_each_swiss_place_goes() -> None:
    """2020: places 1-4 straight to the Candidates, 5-12 to the Knock-Out; 2019: the top 3
    to the Candidates; 2024: the top 10 (a place past them, for an absent pre-seeded
    player, goes with them)."""
    assert (
        destinations(fmt("acwc-2020").format, "swiss", 12) == ["Candidates"] * 4 + ["Knock-Out"] * 8
    )
    assert destinations(fmt("acwc-2019").format, "swiss", 3) == ["Candidates"] * 3
    assert destinations(fmt("acwc-2024").format, "swiss", 11) == ["Candidates"] * 11
