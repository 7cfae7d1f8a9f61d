"""A simulated Final that goes to the Armageddon, won in the bids by the Challenger.

Lichess gives White to the first of an open challenge's two users, and the fake Lichess does
the same: the simulated Armageddon is played on the link the bot opens, with the colours
that link gives. The bot must list the bid winner first, or the game it asked for is
refused and the Final never ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acwc_sim import games as sim_games
from acwc_sim.run import Simulation, simulate
from db.models import Match, Player, Stage, StageKind

pytestmark = pytest.mark.slow

CHAMPION = "arimakat"  # the previous champion of the simulated edition


async def test_the_challenger_wins_the_bids_and_the_armageddon_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan_games = Simulation.plan_games

    def final_to_the_armageddon(
        self: Simulation, stage: Stage, match: Match, a: Player, b: Player, *args: Any, **kw: Any
    ) -> Any:
        if stage.kind is not StageKind.FINAL:
            return plan_games(self, stage, match, a, b, *args, **kw)
        # 15-15 after 30 games, then the Armageddon: the Challenger (player B) wins it
        results = iter([1.0, 0.0] * 15 + [0.0])
        with monkeypatch.context() as patch:
            patch.setattr(sim_games, "game_result", lambda rng, ra, rb: next(results))
            return plan_games(self, stage, match, a, b, *args, **kw)

    def bids(self: Simulation, match: Match, player: Player) -> int:
        return 150 if player.lichess_id == CHAMPION else 115  # the Challenger bids lower

    monkeypatch.setattr(Simulation, "plan_games", final_to_the_armageddon)
    monkeypatch.setattr(Simulation, "bid", bids)
    result = await simulate(8, 3, tmp_path)
    assert "the Final went to the Armageddon" in " | ".join(result["incidents"])
    final = result["standings"]["final"]
    armageddon = final["rows"][30]  # the 31st game, on the link with the Challenger first
    assert armageddon[:4] == ["31", "Armageddon", result["challenger"], CHAMPION], armageddon
    assert result["champion"] == result["challenger"] != CHAMPION
    story = (tmp_path / "transcript.md").read_text(encoding="utf-8")
    assert f"**{result['challenger']}** plays White" in story
    assert f"**{result['challenger']}** has White in the first game of this link" in story
