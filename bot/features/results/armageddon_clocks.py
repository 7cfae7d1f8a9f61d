"""The Armageddon's clocks, checked from Lichess's clock record when its game is read
(rule III.G.6.b): White plays with the time of their bid, but a Lichess challenge gives
both sides Black's clock, so White must treat the difference as already used. A White whose
clock went below that lost on time: the game counts as Black's win, and the players and the
TD are told why. Without a clock record the TD checks, as before.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.audit import Actor, record
from bot.config import Config
from bot.features.matches.context import post_for_match
from bot.features.results import armageddon_text as wording
from bot.features.results.stage_rules import MatchRecord
from bot.lichess.models import LichessGame
from bot.rules.armageddon import white_over_bid
from bot.td_alerts import notify_td


def checked_result(
    session: AsyncSession,
    config: Config,
    ctx: MatchRecord,
    game: LichessGame,
    result_a: float,
    *,
    black_s: int,
    name: str,
    actor: Actor,
    now: datetime,
) -> float:
    """Side a's result of the Armageddon `game` once White's clock is checked against
    their bid: as played, or Black's win when White went below it."""
    bid = ctx.armageddon_white_bid
    if bid is None:
        return result_a
    white_is_a = game.white_id == ctx.a.lichess_id
    white, black = (ctx.a, ctx.b) if white_is_a else (ctx.b, ctx.a)
    if not game.clocks:
        text = wording.no_clock_record_td(name, white.lichess_username, game.id, black_s - bid)
        notify_td(session, config, now=now, content=text)
        return result_a
    over = white_over_bid(game.clocks, black_s=black_s, white_bid_s=bid)
    if over is None:
        return result_a
    record(
        session,
        at=now,
        actor=actor,
        action="armageddon_over_bid",
        subject_type="match",
        subject_id=ctx.match.id,
        details={"game": game.id, "move": over.move, "left_cs": over.left_cs,
                 "limit_cs": over.limit_cs, "result_a_played": result_a},
    )  # fmt: skip
    words = (white.lichess_username, black.lichess_username, game.id, over.move)
    post_for_match(
        session,
        [ctx.a, ctx.b],
        thread_id=ctx.thread_id,
        now=now,
        content=wording.over_bid_thread(name, *words, over.left_cs, over.limit_cs),
    )
    notify_td(session, config, now=now, content=wording.over_bid_td(name, *words))
    return 0.0 if white_is_a else 1.0
