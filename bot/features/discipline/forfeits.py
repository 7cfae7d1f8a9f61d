"""Forfeits (rule VI.F), inside the caller's transaction: a second forfeit disqualifies."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.audit import Actor
from bot.config import Config
from bot.errors import InvalidInput, WrongStage
from bot.events import EventBus
from bot.features.discipline import text as wording
from bot.features.discipline.common import (
    WIN_POINTS,
    count_forfeits,
    forfeit_to,
    load_players,
    settle_rounds,
)
from bot.features.discipline.disqualification import disqualify_for_forfeits
from bot.features.matches.context import match_label, mention, place_of, post_for_match
from bot.message_text import quote
from bot.rules import match_conduct
from bot.td_alerts import notify_td
from db.models import (
    Match,
    MatchState,
    Player,
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
    """Forfeit an undecided match to ``winner_id`` (rule I.E, VI.D, VI.E, VIII); True when it
    disqualified the loser (rule VI.F, `match_conduct.disqualified_by_forfeits`)."""
    match = await session.get(Match, match_id)
    refusal = match_conduct.forfeit_refusal(
        exists=match is not None,
        players=(match.player_a_id, match.player_b_id) if match else (0, None),
        winner_id=winner_id,
        state=match.state.value if match else "",
    )
    if refusal == "no_match":
        raise InvalidInput(wording.no_such_match(match_id))
    assert match is not None
    if refusal == "not_a_player":
        winner_row = await session.get(Player, winner_id)
        name = winner_row.lichess_username if winner_row else None
        label = await match_label(session, config.format, match)
        raise InvalidInput(wording.not_in_match(name, label))
    if refusal == "decided":
        raise WrongStage(wording.match_decided(await match_label(session, config.format, match)))
    assert match.player_b_id is not None
    loser_id = match.player_b_id if winner_id == match.player_a_id else match.player_a_id
    match.points_a, match.points_b = match_conduct.forfeit_result(
        (match.player_a_id, match.player_b_id), winner_id, win_points=WIN_POINTS
    )
    match.state = MatchState.FORFEITED  # counted below among the loser's forfeits
    match.forfeit_winner_id = winner_id
    await session.flush()
    players = await load_players(session, {winner_id, loser_id})
    winner, loser = players[winner_id], players[loser_id]
    forfeits = await count_forfeits(session, loser_id)
    details = {"reason": reason, "forfeits_of_loser": forfeits}
    await forfeit_to(
        session, match, winner_id, loser_id=loser_id, actor=actor, now=now, details=details
    )
    # A decision about both players: once, in the round's thread mentioning them (their copy;
    # by DM without a thread). A match result is not stage news (docs/MESSAGES.md).
    round_ = await session.get(Round, match.round_id)
    place = await place_of(session, config.format, match)
    post_for_match(
        session,
        [winner, loser],
        thread_id=match.thread_id or (round_.thread_id if round_ else None),
        now=now,
        content=wording.forfeit_decided(place, mention(winner), mention(loser), quote(reason)),
    )
    text = wording.forfeit_decided(
        place, winner.lichess_username, loser.lichess_username, quote(reason)
    )
    if await disqualify_for_forfeits(
        session,
        config,
        events,
        player=loser,
        forfeits=forfeits,
        round_id=match.round_id,
        actor=actor,
        now=now,
    ):
        return True
    limit = config.match_day.forfeits_for_disqualification
    notify_td(
        session,
        config,
        now=now,
        content=wording.forfeit_counted_td(text, loser.lichess_username, forfeits, limit),
    )
    await settle_rounds(session, events, loser_id, {match.round_id}, actor, now)
    return False
