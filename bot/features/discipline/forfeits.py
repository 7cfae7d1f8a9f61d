"""Forfeits (rule VI.F), inside the caller's transaction: a second forfeit disqualifies."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.audit import Actor, record
from bot.config import Config
from bot.errors import InvalidInput, WrongStage
from bot.events import EventBus
from bot.features.discipline import text as wording
from bot.features.discipline.common import (
    DONE_STATES,
    FORFEITED,
    WIN_POINTS,
    count_forfeits,
    decide_match,
    load_players,
    settle_rounds,
)
from bot.features.discipline.disqualification import (
    apply_disqualification,
)
from bot.features.matches.context import mention, post_for_match
from bot.message_text import quote
from bot.td_alerts import notify_td
from db.models import (
    Match,
    MatchState,
    Round,
)

# --- forfeits (rule VI.F) --------------------------------------------------------------------


async def forfeit_match(
    session: AsyncSession,
    config: Config,
    events: EventBus,
    *,
    match_id: int,
    winner_id: int,
    reason: str,
    actor: Actor,
    now: datetime,
) -> bool:
    """Forfeit an undecided match to ``winner_id``; True when it disqualified the loser (VI.F)."""
    match = await session.get(Match, match_id)
    if match is None or match.player_b_id is None:
        raise InvalidInput(f"There is no match {match_id} with two players.")
    if winner_id not in (match.player_a_id, match.player_b_id):
        raise InvalidInput(f"Player {winner_id} does not play match {match_id}.")
    if match.state in DONE_STATES:
        raise WrongStage(f"Match {match_id} already has a result.")
    loser_id = match.player_b_id if winner_id == match.player_a_id else match.player_a_id
    match.state = MatchState.FORFEITED
    match.forfeit_winner_id = winner_id
    match.points_a, match.points_b = (
        (WIN_POINTS, 0.0) if winner_id == match.player_a_id else (0.0, WIN_POINTS)
    )
    await decide_match(session, match, now)
    await session.flush()
    players = await load_players(session, {winner_id, loser_id})
    winner, loser = players[winner_id], players[loser_id]
    forfeits = await count_forfeits(session, loser_id)
    record(
        session,
        at=now,
        actor=actor,
        action=FORFEITED,
        subject_type="match",
        subject_id=match.id,
        details={
            "winner_id": winner_id,
            "loser_id": loser_id,
            "reason": reason,
            "forfeits_of_loser": forfeits,
        },
    )
    # A decision about both players: once, in the round's thread mentioning them (their copy;
    # by DM without a thread). A match result is not stage news (docs/MESSAGES.md).
    round_ = await session.get(Round, match.round_id)
    post_for_match(
        session,
        [winner, loser],
        thread_id=match.thread_id or (round_.thread_id if round_ else None),
        now=now,
        content=wording.forfeit_decided(match.id, mention(winner), mention(loser), quote(reason)),
    )
    text = wording.forfeit_decided(
        match.id, winner.lichess_username, loser.lichess_username, quote(reason)
    )
    limit = config.match_day.forfeits_for_disqualification
    disqualified = False
    if forfeits >= limit and loser.disqualified_at is None and loser.withdrawn_at is None:
        await apply_disqualification(
            session,
            config,
            events,
            player=loser,
            reason=f"rule VI.F: {forfeits} forfeited matches",
            engine_mark=False,
            actor=actor,
            now=now,
            public=f"forfeited {forfeits} matches (rule VI.F)",
            settle={match.round_id},
        )
        disqualified = True
    else:
        notify_td(
            session,
            config,
            now=now,
            content=(
                f"{text} {loser.lichess_username} now has {forfeits} forfeit(s); "
                f"{limit} disqualify (rule VI.F). Reverse with /td round set-score if needed."
            ),
        )
        await settle_rounds(session, events, loser_id, {match.round_id}, actor, now)
    return disqualified
