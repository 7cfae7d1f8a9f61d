"""Who qualifies from the Swiss under any tiebreak chain (rule III.E.4-5): the table a
format's chain ranks (`swiss_ranking`) decides the places, and with the 2019 chain the
qualifiers are those of the 2019 table."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import swiss_table
from bot.rules.stages import swiss_qualifiers
from bot.rules.tiebreaks import SWISS_CHAIN_2019, SWISS_CHAIN_2020, SWISS_CHAIN_2022, swiss_ranking

SEEDING = ["ann", "bea", "cid", "dan", "eve", "fay", "gus", "hal", "ira"]
# One round: three wins, a draw, Ira's bye: four players on one point for three places.
ROUND = [
    ("ann", "bea", 1.0, 0.0),
    ("cid", "dan", 1.0, 0.0),
    ("eve", "fay", 1.0, 0.0),
    ("gus", "hal", 0.5, 0.5),
    ("ira", None, 1.0, 0.0),
]


def test_kashdan_leaves_the_bye_out_the_2019_chain_ties_all_four() -> None:
    kashdan = swiss_ranking(SEEDING, [ROUND], SWISS_CHAIN_2022)
    assert swiss_qualifiers(kashdan, 3) == (["ann", "cid", "eve"], [])
    old = swiss_ranking(SEEDING, [ROUND], SWISS_CHAIN_2019)
    assert swiss_qualifiers(old, 3) == ([], ["ann", "cid", "eve", "ira"])
    # Median-Buchholz and the cumulative score are equal: the seed decides
    assert swiss_qualifiers(swiss_ranking(SEEDING, [ROUND], SWISS_CHAIN_2020), 3) == (
        ["ann", "cid", "eve"],
        [],
    )
    # a player who left takes no place: the bye's player moves up
    gone = swiss_ranking(SEEDING, [ROUND], SWISS_CHAIN_2022, withdrawn={"cid"})
    assert swiss_qualifiers(gone, 3) == (["ann", "eve", "ira"], [])


results = st.lists(
    st.tuples(
        st.sampled_from(SEEDING[:6]),
        st.sampled_from(SEEDING[:6]),
        st.sampled_from([(1.0, 0.0), (0.5, 0.5), (0.0, 1.0)]),
    ).filter(lambda r: r[0] != r[1]),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(results, st.integers(min_value=1, max_value=5))
def test_the_2019_chain_qualifies_as_the_2019_table(
    games: list[tuple[str, str, tuple[float, float]]], places: int
) -> None:
    flat = [(a, b, pa, pb) for a, b, (pa, pb) in games]
    # one result a round, so any pairing history is a valid Swiss for the ranking
    ranked = swiss_ranking(SEEDING[:6], [[r] for r in flat], SWISS_CHAIN_2019)
    table = swiss_table.standings(SEEDING[:6], flat)
    assert swiss_qualifiers(ranked, places) == swiss_qualifiers(table, places)
