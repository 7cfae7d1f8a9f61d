"""The outcome of a simulated championship, as `result.json` records it."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from acwc_sim.games import SimBase
from bot.format.model import FinalMatchStage
from db.models import Match, MatchState, Round, Setting, Stage, StageKind


async def championship_result(sim: SimBase, seed: int) -> dict[str, Any]:
    """What `result.json` holds: the same for the same seed, killed and restarted or not."""
    standings: dict[str, Any] = {}
    assert sim.bot.sessions is not None
    async with sim.bot.sessions() as session:
        stages = {s.kind: s for s in await session.scalars(select(Stage))}
        outcome = await session.get(Setting, "stage_outcome:candidates")
    for kind in (StageKind.SWISS, StageKind.TIEBREAK, StageKind.CANDIDATES, StageKind.FINAL):
        if kind in stages:
            table = await sim.bot.svc.tables.standings(kind)
            standings[kind.value] = {
                "headers": list(table.headers),
                "rows": [list(r) for r in table.rows],
            }
    players = await sim.names()
    saved = json.loads(outcome.value) if outcome else []
    # the Challenger and runner-up: a 2019 database's list, or the saved outcome's ids
    order = saved if isinstance(saved, list) else saved.get("ids", [])
    champion = None
    # The title's match: the final match whose winner takes first place (2019: the Final;
    # later: the Grand Final, beside the Third Place Playoff).
    title = next(
        (
            s.key
            for s in sim.bot.config.format.stages
            if isinstance(s, FinalMatchStage) and s.places[0] == 1
        ),
        None,
    )
    async with sim.bot.sessions() as session:
        final = await session.scalar(select(Stage).where(Stage.key == title)) if title else None
    if final is not None:
        async with sim.bot.sessions() as session:
            decided = await session.scalar(
                select(Match)
                .join(Round, Match.round_id == Round.id)
                .where(Round.stage_id == final.id, Match.state == MatchState.FINISHED)
            )
        if decided is not None:
            won = (decided.points_a or 0) > (decided.points_b or 0)
            winner = decided.player_a_id if won else decided.player_b_id
            champion = players[winner or 0].lichess_username
    return {
        "seed": seed,
        "players": len(sim.players),
        "rounds": dict(sorted(sim.counters.rounds.items())),
        "standings": standings,
        "challenger": players[order[0]].lichess_username if order else None,
        "runner_up": players[order[1]].lichess_username if len(order) > 1 else None,
        "champion": champion,
        "incidents": sim.counters.incidents,
        "messages": sim.transcript.count,
        "lichess_requests": sim.requests.count() if sim.requests else sim.fake.request_count,
        "faults": dict(sorted(sim.faults.injected.items())) if sim.faults else {},
        "faults_observed": sim.faults.observed() if sim.faults else {},
        # what Discord would have refused (its limits): every message must fit
        "refused_by_discord": list(sim.h.breaches),
        # each stage of the format as it ran, and the entry rule that moved each player on
        "stages": await sim.bot.svc.console.stages(),
    }
