"""The bracket read from the database: each match stage of the bracket's stored matches,
as the plain `Played` values `bracket.build_bracket` takes.

Why the games are read: the bracket notes an Armageddon that decided a match and shows the
score of the games before it (the Armageddon decides, it adds nothing to the score: rule
III.G.6 for the final matches, and the knock-outs play it the same way). Which game was the
Armageddon is what the stage's match format says came next before it
(`builders.final_time_controls` over `Config.match_format`).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import Config
from bot.features.tables.bracket import bracket_stages, build_bracket
from bot.features.tables.builders import ARMAGEDDON, final_time_controls
from bot.features.tables.reading import match_winner
from bot.features.tables.stored import (
    counted_games,
    players_by_id,
    published_rounds,
    round_matches,
)
from bot.features.tables.types import Bracket, Played
from bot.rules.final import FinalFormat
from db.models import Game, Match, MatchState, Player, Stage, StageState

__all__ = ["read_bracket"]


async def read_bracket(session: AsyncSession, config: Config, key: str) -> Bracket | None:
    """The bracket stage `key` is drawn in, as stored now; None when it is in none (a
    Swiss, a pool, 2019's lone Final, a key outside the format)."""
    keys = bracket_stages(config.format, key)
    if not keys:
        return None
    played: dict[tuple[str, int], Played] = {}
    for k in keys:
        row = await session.scalar(
            select(Stage)
            .where(Stage.key == k, Stage.state != StageState.PLANNED)
            .order_by(Stage.id)
            .limit(1)
        )
        if row is not None:
            played.update(await _played(session, config, row))
    return build_bracket(config.format, key, played, config.tournament.short_name)


async def _played(
    session: AsyncSession, config: Config, row: Stage
) -> dict[tuple[str, int], Played]:
    """The row's matches by (stage key, board); a bye (no side b) is left out."""
    matches = await round_matches(session, await published_rounds(session, row))
    ids = {m.player_a_id for m in matches} | {m.player_b_id for m in matches if m.player_b_id}
    players = await players_by_id(session, ids)
    games = await counted_games(session, [m.id for m in matches])
    rules = config.match_format(row.key)
    out: dict[tuple[str, int], Played] = {}
    for match in matches:
        if match.player_b_id is None:
            continue
        out[(row.key, match.board)] = _one(match, players, games.get(match.id, []), rules)
    return out


def _one(match: Match, players: dict[int, Player], games: list[Game], rules: FinalFormat) -> Played:
    """One match as the bracket shows it: the stored score less the Armageddon's game (a
    score the TD set has no games), and how it was decided."""
    results = [g.result_a for g in games]
    controls = final_time_controls(results, rules)
    armageddon = [r for r, c in zip(results, controls, strict=True) if c == ARMAGEDDON]
    winner_id = match_winner(match)
    assert match.player_b_id is not None
    return Played(
        players[match.player_a_id].lichess_username,
        players[match.player_b_id].lichess_username,
        match.score_a - sum(armageddon),
        match.score_b - (len(armageddon) - sum(armageddon)),
        players[winner_id].lichess_username if winner_id in players else None,
        armageddon=winner_id is not None and bool(armageddon),
        forfeit=winner_id is not None and match.state is MatchState.FORFEITED,
    )
