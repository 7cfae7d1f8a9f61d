"""How a knock-out or final match was decided, as the posts that close it tell it: the
score over the games before the Armageddon, and whether the Armageddon decided it and how
(rule III.G.6: it adds no point; a draw is Black's). The match's stored score counts the
Armageddon as a game, which is why a post reading it directly said "15–16" where the
table said "15-15"."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import Config
from bot.features.rounds import text as wording
from bot.rules import final_schemes
from db.models import Game, Match, Player, Stage


@dataclass(frozen=True)
class ArmageddonResult:
    """The Armageddon's White and Black player ids and whether it was drawn."""

    white_id: int
    black_id: int
    drawn: bool


@dataclass(frozen=True)
class Verdict:
    """Side a's and b's points over the games before any Armageddon, how many games that
    was, and the Armageddon when one was played; ``forfeit`` for a match given away."""

    score_a: float
    score_b: float
    games: int
    armageddon: ArmageddonResult | None = None
    forfeit: bool = False


async def verdict(session: AsyncSession, config: Config, stage: Stage, match: Match) -> Verdict:
    """How `match` of the knock-out or final-match row `stage` ended."""
    if match.forfeit_winner_id is not None:
        return Verdict(match.score_a, match.score_b, 0, forfeit=True)
    games = (
        await session.scalars(
            select(Game)
            .where(Game.match_id == match.id, Game.counted.is_(True))
            .order_by(Game.number, Game.id)
        )
    ).all()
    point = final_schemes.armageddon_point(config.row_match_format(stage.key))
    score_a, score_b = match.score_a, match.score_b  # every counted game, Armageddon too
    armageddon = None
    if len(games) > point:
        last = games[point]
        drawn = last.result_a == 0.5
        armageddon = ArmageddonResult(last.white_player_id, last.black_player_id, drawn)
        score_a, score_b = score_a - last.result_a, score_b - (1.0 - last.result_a)
    return Verdict(score_a, score_b, round(score_a + score_b), armageddon)


async def result_line(
    session: AsyncSession, config: Config, stage: Stage, match: Match, winner: Player
) -> str:
    """The decided match in the words of the post that closes it (`wording.match_result`)."""
    found = await verdict(session, config, stage, match)
    a = await session.get(Player, match.player_a_id)
    b = await session.get(Player, match.player_b_id or 0)
    assert a is not None and b is not None
    names = {a.id: a.lichess_username, b.id: b.lichess_username}
    armageddon = found.armageddon
    return wording.match_result(
        a.lichess_username,
        b.lichess_username,
        found.score_a,
        found.score_b,
        games=found.games,
        winner=winner.lichess_username,
        armageddon=(
            None
            if armageddon is None
            else (names[armageddon.white_id], names[armageddon.black_id], armageddon.drawn)
        ),
        forfeit=found.forfeit,
    )
