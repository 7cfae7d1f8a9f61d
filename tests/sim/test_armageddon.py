"""A simulated Final that goes to the Armageddon, won in the bids by the Challenger, in the
plain run of a documented seed (acwc_sim.games.ARMAGEDDON_SEEDS): no monkeypatching.

Lichess gives White to the first of an open challenge's two users, and the fake Lichess does
the same: the simulated Armageddon is played on the link the bot opens, with the colours
that link gives. The bot must list the bid winner first, or the game it asked for is
refused and the Final never ends.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acwc_sim.games import ARMAGEDDON_SEEDS
from acwc_sim.run import simulate

pytestmark = pytest.mark.slow

CHAMPION = "arimakat"  # the previous champion of the simulated edition


async def test_the_challenger_wins_the_bids_and_the_armageddon_counts(tmp_path: Path) -> None:
    assert 3 in ARMAGEDDON_SEEDS  # the seed docs/FEATURES.md names for this path
    result = await simulate(8, 3, tmp_path)
    assert "the Final went to the Armageddon" in " | ".join(result["incidents"])
    final = result["standings"]["final"]
    games = [row for row in final["rows"] if row[0].isdigit()]
    # 12 games, extensions of two to 24 (rule III.G.3), 2+0 games to 30 (III.G.5), then 31
    assert [row[1] for row in games].count("Armageddon") == 1
    armageddon = final["rows"][30]  # the 31st game, on the link with the Challenger first
    assert armageddon[:4] == ["31", "Armageddon", result["challenger"], CHAMPION], armageddon
    assert result["champion"] == result["challenger"] != CHAMPION
    story = (tmp_path / "transcript.md").read_text(encoding="utf-8")
    assert f"**{result['challenger']}** plays White" in story
    assert f"**{result['challenger']}** has White in the first game of this link" in story
    assert "2+0" in story  # the tiebreak games' clock was announced


async def test_a_seed_without_a_planned_final_rolls_its_games(tmp_path: Path) -> None:
    assert 2 not in ARMAGEDDON_SEEDS
    result = await simulate(6, 2, tmp_path)
    assert "the Final went to the Armageddon" not in " | ".join(result["incidents"])
    assert result["champion"] is not None
