"""The Swiss table by the format's tiebreak chain: its columns are the chain's, named in
words, its numbers `bot.rules.tiebreaks.swiss_ranking`'s, and its post and picture keep
Discord's limits however long the chain."""

from __future__ import annotations

import io

from PIL import Image

from bot.discord_limits import MESSAGE_CONTENT
from bot.features.tables.builders import swiss_table
from bot.features.tables.render import render_png, render_text
from bot.features.tables.types import SwissPairing
from bot.rules.tiebreaks import SWISS_CHAIN_2019, SWISS_CHAIN_2022, SWISS_TIEBREAKS, swiss_ranking

NAMES = {"a": "Ann", "b": "Bea", "c": "Cid", "d": "Dan", "e": "Eve"}
# Round 1: Ann beats Bea, Cid and Dan draw, Eve a bye. Round 2: Eve beats Ann, Bea beats
# Cid, Dan a bye.
PAIRINGS = [
    SwissPairing(1, "a", "b", 1.0, 0.0),
    SwissPairing(1, "c", "d", 0.5, 0.5),
    SwissPairing(1, "e", None, 1.0, None),
    SwissPairing(2, "e", "a", 1.0, 0.0),
    SwissPairing(2, "b", "c", 1.0, 0.0),
    SwissPairing(2, "d", None, 1.0, None),
]


def test_the_2022_chain_shows_its_columns_in_words() -> None:
    table = swiss_table(list(NAMES), PAIRINGS, names=NAMES, chain=SWISS_CHAIN_2022)
    assert table.headers == (
        "No",
        "Player",
        "Pts",
        "Median-Buchholz",
        "Cumulative",
        "Kashdan",
        "Seed",
        "R1",
        "R2",
    )
    # Eve 2 (bye, win), Dan 1.5 (draw, bye), Ann 1, Bea 1, Cid 0.5. Ann met Bea (1) and
    # Eve (2), Bea met Ann (1) and Cid (0.5): Ann is ahead of Bea on Median-Buchholz.
    ranked = swiss_ranking(
        list(NAMES),
        [[(p.a, p.b, p.points_a or 0.0, p.points_b or 0.0) for p in PAIRINGS if p.round == r]
         for r in (1, 2)],
        SWISS_CHAIN_2022,
    )  # fmt: skip
    assert [row[1] for row in table.rows] == [NAMES[r.player] for r in ranked]
    assert table.rows[0] == ("1", "Eve", "2", "1", "3", "4", "5", "bye", "+3")
    ann = next(row for row in table.rows if row[1] == "Ann")
    # Median-Buchholz: Bea 1 + Eve 2; cumulative 1 + 1; Kashdan: a win 4, a loss 1; seed 1
    assert ann[2:7] == ("1", "3", "2", "5", "1")
    assert "Kashdan: 4 for a match won, 2 drawn, 1 lost, 0 for a bye." in table.footnote
    assert "Ties on points are broken in that order." in table.footnote
    assert "WvT" not in table.footnote


def test_the_2019_chain_is_the_table_it_always_was() -> None:
    old = swiss_table(list(NAMES), PAIRINGS, names=NAMES)
    assert swiss_table(list(NAMES), PAIRINGS, names=NAMES, chain=SWISS_CHAIN_2019) == old
    assert old.headers[3:5] == ("WvT", "MBH")
    # the same chain's keys in another order are another chain: named in words
    other = swiss_table(list(NAMES), PAIRINGS, names=NAMES, chain=SWISS_CHAIN_2019[::-1])
    assert other.headers[3:5] == ("Median-Buchholz", "Wins v tied")


def test_every_tiebreak_of_the_catalogue_fits_discords_limits() -> None:
    """The widest chain on a 48-player table after 9 rounds: the post keeps its legend and
    fits a message, the picture stays within its width."""
    seeding = [f"player_with_a_long_name_{i:02d}" for i in range(48)]
    pairings = [
        SwissPairing(r, seeding[(i + r) % 48], seeding[(i + r + 24) % 48], 0.5, 0.5)
        if i % 4
        else SwissPairing(r, seeding[(i + r) % 48], seeding[(i + r + 24) % 48], 1.0, 0.0)
        for r in range(1, 10)
        for i in range(0, 24)
    ]
    chain = tuple(SWISS_TIEBREAKS)
    table = swiss_table(seeding, pairings, rounds=9, qualifiers=3, chain=chain)
    assert table.headers[3:9] == (
        "Wins v tied",
        "Median-Buchholz",
        "Cumulative",
        "Kashdan",
        "Sonneborn-Berger",
        "Seed",
    )
    text = render_text(table)
    assert len(text) <= MESSAGE_CONTENT
    assert text.endswith(table.footnote) and "more rows: see the picture" in text
    image = Image.open(io.BytesIO(render_png(table)))
    assert 800 <= image.width <= 1600
