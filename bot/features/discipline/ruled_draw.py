"""A match ruled a draw because its negotiation failed (2020 on), inside the caller's
transaction: both made no offers (`format.no_offers: draw_both_forfeit_a_game`, a forfeit
each) or nobody was at fault (`format.no_fault: draw`, no forfeit). The outcome is the pure
rule's (`bot.rules.no_agreement`); a forfeit counts toward rule VI.F's "forfeited in two
different matches" like any other (`common.count_forfeits`), and a second one disqualifies.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.audit import Actor, record
from bot.config import Config
from bot.events import EventBus, MatchFinished
from bot.features.discipline import text as wording
from bot.features.discipline.common import (
    RULED_DRAW,
    count_forfeits,
    decide_match,
    load_players,
)
from bot.features.discipline.disqualification import disqualify_for_forfeits
from bot.features.matches.round_post import queue_round_post_update
from bot.rules.no_agreement import NoAgreementOutcome
from bot.td_alerts import notify_td
from db.models import Match, MatchState


async def rule_draw(
    session: AsyncSession,
    config: Config,
    events: EventBus,
    *,
    match: Match,
    outcome: NoAgreementOutcome,
    rule: str,
    decided: str,
    actor: Actor,
    now: datetime,
) -> list[str]:
    """Record `match` as the drawn match `outcome` gives (its points and game score), count
    its forfeits, and close the round as any result does (`MatchFinished`). `rule` names
    the setting that applied (the audit log's), `decided` says what happened to the TD.
    Returns the Lichess names of the players the forfeit disqualified."""
    if outcome.points is None or outcome.game_score is None or match.player_b_id is None:
        raise ValueError("a ruled draw needs a match of two players and a drawn outcome")
    match.score_a, match.score_b = outcome.game_score
    match.points_a, match.points_b = outcome.points
    match.state = MatchState.FINISHED
    await decide_match(session, match, now)
    ids = (match.player_a_id, match.player_b_id)
    forfeit_ids = [pid for pid, counts in zip(ids, outcome.forfeits, strict=True) if counts]
    record(
        session,
        at=now,
        actor=actor,
        action=RULED_DRAW,
        subject_type="match",
        subject_id=match.id,
        details={
            "rule": rule,
            "score": [match.score_a, match.score_b],
            "forfeit_ids": forfeit_ids,
        },
    )
    await session.flush()
    players = await load_players(session, set(ids))
    limit = config.match_day.forfeits_for_disqualification
    disqualified: list[str] = []
    for pid in forfeit_ids:
        player = players[pid]
        forfeits = await count_forfeits(session, pid)
        if await disqualify_for_forfeits(
            session,
            config,
            events,
            player=player,
            forfeits=forfeits,
            round_id=match.round_id,
            actor=actor,
            now=now,
        ):
            disqualified.append(player.lichess_username)
            continue
        notify_td(
            session,
            config,
            now=now,
            content=wording.forfeit_counted_td(decided, player.lichess_username, forfeits, limit),
        )
    await session.flush()
    await queue_round_post_update(session, match.round_id, now=now)
    await events.publish(
        session, MatchFinished(actor, match_id=match.id, round_id=match.round_id), now
    )
    return disqualified
