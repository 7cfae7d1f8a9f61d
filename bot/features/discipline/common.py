"""What forfeits and disqualifications share: reading a player's matches, snapshots for
undoing, the messages, and closing a match decided off the board."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any, cast

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import due
from bot.audit import Actor, record
from bot.errors import InvalidInput
from bot.events import EventBus, PlayerForfeited
from bot.features.discipline import text as wording
from bot.features.matches.round_post import queue_round_post_update
from bot.outbox import enqueue_dm
from bot.rules import match_conduct, withdrawals
from bot.rules.candidates import CandidateResult
from db.models import (
    AuditEntry,
    IncidentState,
    Match,
    MatchIncident,
    MatchState,
    Player,
    Round,
    Stage,
    StageKind,
)

DONE_STATES = (MatchState.FINISHED, MatchState.FORFEITED, MatchState.BYE)
WIN_POINTS = 1.0
DISQUALIFIED = "player_disqualified"
REINSTATED = "player_reinstated"
WITHDRAWN = "player_withdrawn"
FORFEITED = "match_forfeited"
# A match ruled a draw when negotiation failed (2020 on: `format.no_offers`, `format.no_fault`),
# with the players it counts a forfeit for (`details["forfeit_ids"]`); a later `/td round
# set-score` of the match (`SCORE_SET`) replaces the ruling, and its forfeits no longer count.
RULED_DRAW = "match_ruled_draw"
SCORE_SET = "score_set"
INCIDENT_SUBJECT = "incident"


# --- reading -----------------------------------------------------------------------------------


async def load_player(session: AsyncSession, player_id: int) -> Player:
    player = await session.get(Player, player_id)
    if player is None:
        raise InvalidInput(wording.no_player_id(player_id))
    return player


async def matches_of(session: AsyncSession, player_id: int, kind: StageKind) -> list[Match]:
    return list(
        (
            await session.scalars(
                select(Match)
                .join(Round, Match.round_id == Round.id)
                .join(Stage, Round.stage_id == Stage.id)
                .where(
                    Stage.kind == kind,
                    or_(Match.player_a_id == player_id, Match.player_b_id == player_id),
                )
                .order_by(Round.number, Match.board)
            )
        ).all()
    )


async def stage_of(session: AsyncSession, kind: StageKind) -> Stage | None:
    return cast(Stage | None, await session.scalar(select(Stage).where(Stage.kind == kind)))


async def count_forfeits(session: AsyncSession, player_id: int) -> int:
    """Matches this player lost by forfeit that count for rule VI.F
    (`match_conduct.counted_forfeits`: those a disqualification gave away do not), and the
    matches ruled a draw with a forfeit for them (`format.no_offers`, 2020 on: "both players
    will count as having forfeited a game")."""
    lost = await _lost_by_forfeit(session, player_id)
    drawn = await _drawn_with_forfeit(session, player_id)
    return match_conduct.counted_forfeits([*lost, *(False for _ in range(drawn))])


async def _drawn_with_forfeit(session: AsyncSession, player_id: int) -> int:
    """The ruled draws that count a forfeit for `player_id` and still stand."""
    ruled = (
        await session.scalars(
            select(AuditEntry).where(
                AuditEntry.action == RULED_DRAW, AuditEntry.subject_type == "match"
            )
        )
    ).all()
    mine = [e for e in ruled if player_id in e.details.get("forfeit_ids", [])]
    if not mine:
        return 0
    rescored = (
        await session.scalars(
            select(AuditEntry).where(
                AuditEntry.action == SCORE_SET,
                AuditEntry.subject_type == "match",
                AuditEntry.subject_id.in_([e.subject_id for e in mine]),
            )
        )
    ).all()
    return sum(
        1 for e in mine if not any(r.subject_id == e.subject_id and r.id > e.id for r in rescored)
    )


async def _lost_by_forfeit(session: AsyncSession, player_id: int) -> list[bool]:
    """One flag per match `player_id` lost by forfeit: whether a disqualification gave it."""
    rows = (
        await session.scalars(
            select(Match).where(
                Match.state == MatchState.FORFEITED,
                Match.forfeit_winner_id.is_not(None),
                Match.forfeit_winner_id != player_id,
                or_(Match.player_a_id == player_id, Match.player_b_id == player_id),
            )
        )
    ).all()
    if not rows:
        return []
    entries = (
        await session.scalars(
            select(AuditEntry).where(
                AuditEntry.action == FORFEITED,
                AuditEntry.subject_type == "match",
                AuditEntry.subject_id.in_([m.id for m in rows]),
            )
        )
    ).all()
    dq_matches = {e.subject_id for e in entries if e.details.get("by_disqualification")}
    return [m.id in dq_matches for m in rows]


def snapshot(match: Match) -> dict[str, Any]:
    return {
        "match_id": match.id,
        "state": match.state.value,
        "points_a": match.points_a,
        "points_b": match.points_b,
        "forfeit_winner_id": match.forfeit_winner_id,
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
    }


def after_state(match: Match) -> dict[str, Any]:
    return {
        "state": match.state.value,
        "points_a": match.points_a,
        "points_b": match.points_b,
        "forfeit_winner_id": match.forfeit_winner_id,
    }


def name_of(players: dict[int, Player], player_id: int | None) -> str:
    player = players.get(player_id or 0)
    return player.lichess_username if player else "?"


async def load_players(session: AsyncSession, ids: set[int]) -> dict[int, Player]:
    return {
        p.id: p for p in (await session.scalars(select(Player).where(Player.id.in_(ids)))).all()
    }


def dm_player(session: AsyncSession, player: Player, now: datetime, content: str) -> None:
    if player.discord_id is not None:
        enqueue_dm(session, user_id=player.discord_id, now=now, content=content)


async def close_incidents(session: AsyncSession, match_id: int, now: datetime) -> None:
    """A decided match has no open incident left: resolve them and cancel their timers."""
    incidents = (
        await session.scalars(
            select(MatchIncident).where(
                MatchIncident.match_id == match_id,
                MatchIncident.state.in_((IncidentState.OPEN, IncidentState.CONFIRMED)),
            )
        )
    ).all()
    for incident in incidents:
        incident.state = IncidentState.RESOLVED
        incident.resolved_at = now
        await due.cancel(session, subject_type=INCIDENT_SUBJECT, subject_id=incident.id, now=now)


async def decide_match(session: AsyncSession, match: Match, now: datetime) -> None:
    """Common bookkeeping once a match is decided off the board."""
    match.finished_at = match.finished_at or now
    await due.cancel(session, subject_type="match", subject_id=match.id, now=now)
    await close_incidents(session, match.id, now)


async def forfeit_to(
    session: AsyncSession,
    match: Match,
    winner_id: int,
    *,
    loser_id: int,
    actor: Actor,
    now: datetime,
    details: dict[str, Any],
) -> None:
    """Close `match` as forfeited to `winner_id` and put it on record (the audit log's
    `match_forfeited`, with who won, who lost and `details`)."""
    match.state = MatchState.FORFEITED
    match.forfeit_winner_id = winner_id
    await decide_match(session, match, now)
    record(
        session,
        at=now,
        actor=actor,
        action=FORFEITED,
        subject_type="match",
        subject_id=match.id,
        details={"winner_id": winner_id, "loser_id": loser_id, **details},
    )


async def settle_rounds(
    session: AsyncSession,
    events: EventBus,
    player_id: int,
    round_ids: set[int],
    actor: Actor,
    now: datetime,
) -> None:
    """Update the pairings posts and tell the rounds (a round may be complete now)."""
    await session.flush()
    for round_id in sorted(round_ids):
        await queue_round_post_update(session, round_id, now=now)
    if round_ids:
        event = PlayerForfeited(actor, player_id=player_id, round_ids=tuple(sorted(round_ids)))
        await events.publish(session, event, now)


def robin_match_result(
    match: Match, field: Collection[int], names: Mapping[int, str], games: float
) -> CandidateResult | None:
    """A stored round-robin match as rule 8.2 (VIII.B) counts it
    (`withdrawals.robin_result`), its players named by `names` (the Candidates table, the
    console and the stage flow each name them their own way): one place reads a match for
    every table, so a disregarded match is disregarded everywhere."""
    ids = {match.player_a_id, match.player_b_id, match.forfeit_winner_id}
    name = {pid: names[pid] for pid in ids if pid is not None and pid in names}
    stage_match = withdrawals.StageMatch(
        id=match.id,
        a=name.get(match.player_a_id, ""),
        b=name.get(match.player_b_id) if match.player_b_id is not None else None,
        state=match.state.value,
        points_a=match.points_a,
        points_b=match.points_b,
        forfeit_winner=name.get(match.forfeit_winner_id) if match.forfeit_winner_id else None,
    )
    return withdrawals.robin_result(
        stage_match,
        field={name[pid] for pid in ids & set(field) if pid in name},
        scores=(match.score_a, match.score_b),
        games=games,
    )
