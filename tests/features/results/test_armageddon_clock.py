"""The Armageddon's Black clock is configuration (rule III.G.6.a): bids, the game's clock and
what the finalists and the TD are told follow it."""

from __future__ import annotations

import pytest

from bot.config import Config
from bot.errors import InvalidInput
from bot.features.results import text as wording
from bot.features.results.armageddon import parse_bid
from bot.features.results.armageddon_text import revealed_td


def test_a_bid_over_blacks_clock_is_refused_with_the_range() -> None:
    assert parse_bid("2:30", 150) == 150
    with pytest.raises(InvalidInput, match=r"from 0:01 to 2:30"):
        parse_bid("2:40", 150)
    assert parse_bid("2:40") == 160  # the 2019 default, 3:00


def test_the_finalists_and_the_td_read_the_configured_clock() -> None:
    assert Config().stages.final_armageddon_black_seconds == 180
    ask = wording.armageddon_bid_request(30, 150)
    assert "Black has 2:30 and draw odds" in ask and "0:01 to 2:30" in ask
    reveal = wording.armageddon_reveal(
        "Champ", 100, "Chall", 90, "Chall", "Champ", 90, equal=False, black_clock=150
    )
    assert "plays Black with 2:30" in reveal and "treat 1:00 of their clock" in reveal
    td = revealed_td("Final", "Chall", 90, 150)
    # the bot checks the clock record itself; the TD only when Lichess sends none
    assert "against 2:30" in td and "if it fell below 1:00" in td
