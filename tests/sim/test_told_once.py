"""Issue 32, "told twice, told wrong, not told", measured on the 24-player seed-1
championship: no text a person reads carries a database id (a player, claim or offer by
its row number), and what was told twice is told once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acwc_sim.games import ANNOUNCE
from acwc_sim.run import simulate
from tests.sim.readers import posts

pytestmark = pytest.mark.slow

#: A row id as people would read it: "IvoKahn44 (player 17)", "Claim 3", "(offer 116)",
#: "(match 13)", "Match 12 (a vs b)". No reply in the run echoes a value typed by the TD
#: (the only place a typed number may come back: "There is no match 12"), so none is spared.
ROW_ID = re.compile(r"(?i)\b(player|claim|offer|incident|match) #?\d+")


async def test_no_row_id_and_nothing_told_twice(tmp_path: Path) -> None:
    await simulate(24, 1, tmp_path)
    sent = posts(tmp_path / "discord.jsonl")
    story = (tmp_path / "transcript.md").read_text(encoding="utf-8")
    assert sent and not ROW_ID.findall(story), sorted(
        {line for line in story.splitlines() if ROW_ID.search(line)}
    )[:5]
    # a decision the post fixing the time tells is not told before it as "you will be told"
    assert not [p for p in sent if "You will be told the time" in p.content]
    # the Final's pairing: once in the announcement channel, with how it is played
    announced = [p.content for p in sent if p.where == str(ANNOUNCE)]
    final = [a for a in announced if "**arimakat**" in a and "Final" in a and "vs" in a]
    assert not [a for a in announced if "is set!" in a], final
    # the Armageddon's rules reach each finalist once: in the bid request
    told = [p for p in sent if "(rule III.G.6.a)" in p.content and p.where != str(ANNOUNCE)]
    assert len({p.dm_user_id for p in told}) == len(told), [p.content[:80] for p in told]
    # the withdrawal post says which match the withdrawal gave to whom
    left = [a for a in announced if "has withdrawn" in a]
    assert left and all("by forfeit" in a for a in left), left
