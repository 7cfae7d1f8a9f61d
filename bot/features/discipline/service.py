"""Forfeits, disqualifications and reinstatements (rules VI.F and VIII), inside the caller's
transaction.

Other services call these three functions; each changes the stored results the way rule VIII
says, records why in the audit log, queues the announcements and the TD's note, and lets the
rounds service close a round whose last open match just got decided.

How the results are stored after a disqualification:

* Swiss (VIII.A.1): the player is no longer paired (pairing skips ``disqualified_at``); an
  unfinished match becomes FORFEITED with ``forfeit_winner_id`` = the opponent, points 1/0.
* Swiss with an engine mark (VIII.A.2): every finished Swiss match of theirs gets points
  0 for them and 1 for the opponent (a bye of theirs 0); the game scores are kept.
* Candidates (VIII.B): every match of theirs becomes FORFEITED with ``forfeit_winner_id``
  None and no points: **a FORFEITED match without a winner is disregarded** and the
  Candidates standings must skip it.
* Final (VIII.C): the Final has no service yet, so the TD gets a note with the rule.

Every changed match is snapshotted in the ``player_disqualified`` audit entry (``undo``), so
``reinstate`` can put back what is still safe to put back and lists the rest for the TD.
A forfeit counts towards rule VI.F when the match is FORFEITED with a winner other than the
player; a match forfeited *because of* a disqualification is marked ``by_disqualification`` in
its audit entry and does not count (the player is out already).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import desc, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import due
from bot.audit import Actor, record
from bot.config import Config
from bot.errors import InvalidInput, WrongStage
from bot.events import EventBus, PlayerForfeited
from bot.features.matches.round_post import queue_round_post_update
from bot.outbox import enqueue_channel, enqueue_dm
from bot.rules import withdrawals
from bot.td_alerts import notify_td
from db.models import (
    AuditEntry,
    IncidentState,
    Match,
    MatchIncident,
    MatchState,
    Player,
    Round,
    RoundState,
    Stage,
    StageKind,
    StageState,
)

__all__ = ["count_forfeits", "disqualify", "forfeit_match", "reinstate"]

DONE_STATES = (MatchState.FINISHED, MatchState.FORFEITED, MatchState.BYE)
WIN_POINTS = 1.0
DISQUALIFIED = "player_disqualified"
REINSTATED = "player_reinstated"
FORFEITED = "match_forfeited"
INCIDENT_SUBJECT = "incident"


# --- reading -----------------------------------------------------------------------------------


async def _player(session: AsyncSession, player_id: int) -> Player:
    player = await session.get(Player, player_id)
    if player is None:
        raise InvalidInput(f"There is no player #{player_id}.")
    return player


async def _matches_of(session: AsyncSession, player_id: int, kind: StageKind) -> list[Match]:
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


async def _stage(session: AsyncSession, kind: StageKind) -> Stage | None:
    return cast(Stage | None, await session.scalar(select(Stage).where(Stage.kind == kind)))


async def count_forfeits(session: AsyncSession, player_id: int) -> int:
    """Matches this player lost by forfeit (rule VI.F), leaving out disqualification effects."""
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
        return 0
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
    return sum(1 for m in rows if m.id not in dq_matches)


def _snapshot(match: Match) -> dict[str, Any]:
    return {
        "match_id": match.id,
        "state": match.state.value,
        "points_a": match.points_a,
        "points_b": match.points_b,
        "forfeit_winner_id": match.forfeit_winner_id,
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
    }


def _after(match: Match) -> dict[str, Any]:
    return {
        "state": match.state.value,
        "points_a": match.points_a,
        "points_b": match.points_b,
        "forfeit_winner_id": match.forfeit_winner_id,
    }


def _name(players: dict[int, Player], player_id: int | None) -> str:
    player = players.get(player_id or 0)
    return player.lichess_username if player else "?"


async def _players(session: AsyncSession, ids: set[int]) -> dict[int, Player]:
    return {
        p.id: p for p in (await session.scalars(select(Player).where(Player.id.in_(ids)))).all()
    }


def _dm(session: AsyncSession, player: Player, now: datetime, content: str) -> None:
    if player.discord_id is not None:
        enqueue_dm(session, user_id=player.discord_id, now=now, content=content)


def _announce(session: AsyncSession, config: Config, now: datetime, content: str) -> None:
    channel = config.discord.announcement_channel_id
    if channel:
        enqueue_channel(session, channel_id=channel, now=now, content=content)


async def _close_incidents(session: AsyncSession, match_id: int, now: datetime) -> None:
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


async def _decide_match(session: AsyncSession, match: Match, now: datetime) -> None:
    """Common bookkeeping once a match is decided off the board."""
    match.finished_at = match.finished_at or now
    await due.cancel(session, subject_type="match", subject_id=match.id, now=now)
    await _close_incidents(session, match.id, now)


async def _settle_rounds(
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
        raise InvalidInput(f"There is no match #{match_id} with two players.")
    if winner_id not in (match.player_a_id, match.player_b_id):
        raise InvalidInput(f"Player #{winner_id} does not play match #{match_id}.")
    if match.state in DONE_STATES:
        raise WrongStage(f"Match #{match_id} already has a result.")
    loser_id = match.player_b_id if winner_id == match.player_a_id else match.player_a_id
    match.state = MatchState.FORFEITED
    match.forfeit_winner_id = winner_id
    match.points_a, match.points_b = (
        (WIN_POINTS, 0.0) if winner_id == match.player_a_id else (0.0, WIN_POINTS)
    )
    await _decide_match(session, match, now)
    await session.flush()
    players = await _players(session, {winner_id, loser_id})
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
    text = (
        f"Match #{match.id}: **{winner.lichess_username}** wins by forfeit against "
        f"**{loser.lichess_username}** ({reason})."
    )
    round_ = await session.get(Round, match.round_id)
    thread = match.thread_id or (round_.thread_id if round_ else None)
    if thread:
        enqueue_channel(session, channel_id=thread, now=now, content=text)
    _announce(session, config, now, f"Result: {text}")
    _dm(session, winner, now, text)
    _dm(session, loser, now, text)
    limit = config.match_day.forfeits_for_disqualification
    disqualified = False
    if forfeits >= limit and loser.disqualified_at is None and loser.withdrawn_at is None:
        await _disqualify(
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
                f"{limit} disqualify (rule VI.F). Reverse with /td set-score if needed."
            ),
        )
        await _settle_rounds(session, events, loser_id, {match.round_id}, actor, now)
    return disqualified


# --- disqualification (rule VIII) ---------------------------------------------------------


async def disqualify(
    session: AsyncSession,
    config: Config,
    events: EventBus,
    *,
    player_id: int,
    reason: str,
    engine_mark: bool,
    actor: Actor,
    now: datetime,
) -> None:
    """Disqualify a player and apply rule VIII to the stored results (caller's transaction)."""
    player = await _player(session, player_id)
    if player.disqualified_at is not None:
        raise WrongStage(f"{player.lichess_username} is already disqualified.")
    public = "a Lichess engine mark (rules VII.C, VIII.A.2)" if engine_mark else "rule VIII"
    await _disqualify(
        session,
        config,
        events,
        player=player,
        reason=reason,
        engine_mark=engine_mark,
        actor=actor,
        now=now,
        public=public,
        settle=set(),
    )


async def _disqualify(
    session: AsyncSession,
    config: Config,
    events: EventBus,
    *,
    player: Player,
    reason: str,
    engine_mark: bool,
    actor: Actor,
    now: datetime,
    public: str,
    settle: set[int],
) -> None:
    player.disqualified_at = now
    player.disqualification_reason = reason
    undo: list[dict[str, Any]] = []
    notes: list[str] = []
    rounds = set(settle)
    swiss = await _stage(session, StageKind.SWISS)
    if swiss is not None and swiss.state is not StageState.FINISHED:
        notes += await _apply_swiss(session, player, engine_mark, actor, now, undo, rounds)
    elif engine_mark and swiss is not None:
        notes.append(
            "The qualification is finished: its results were NOT adjudicated (rule VIII.A.2); "
            "correct them by hand if needed."
        )
    candidates = await _stage(session, StageKind.CANDIDATES)
    if candidates is not None:
        if candidates.state is StageState.FINISHED:
            notes.append("The Candidates are finished: their results were left as they are.")
        else:
            notes += await _apply_candidates(session, player, actor, now, undo, rounds)
    final = await _stage(session, StageKind.FINAL)
    if final is not None or player.pre_seeded_stage is StageKind.FINAL:
        notes.append(
            "Final (rule VIII.C): if the champion left, the Challenger plays the Candidates "
            "runner-up; if the Challenger left, the runner-up becomes the Challenger. "
            "Arrange the Final accordingly."
        )
    record(
        session,
        at=now,
        actor=actor,
        action=DISQUALIFIED,
        subject_type="player",
        subject_id=player.id,
        details={"reason": reason, "engine_mark": engine_mark, "undo": undo, "notes": notes},
    )
    _announce(
        session,
        config,
        now,
        f"⛔ **{player.lichess_username}** is disqualified from the "
        f"{config.tournament.short_name}: {public}.",
    )
    _dm(
        session,
        player,
        now,
        f"You have been disqualified from the {config.tournament.short_name}: {public}. "
        "Contact the tournament director if you think this is a mistake.",
    )
    changed = ", ".join(f"#{u['match_id']}" for u in undo) or "none"
    notify_td(
        session,
        config,
        now=now,
        content=(
            f"⛔ {player.lichess_username} (player #{player.id}) is disqualified. Reason: "
            f"{reason}. Matches changed: {changed}."
            + ("".join(f"\n• {n}" for n in notes))
            + f"\nReverse with `/td reinstate player:{player.lichess_username}`."
        ),
    )
    await _settle_rounds(session, events, player.id, rounds, actor, now)


async def _apply_swiss(
    session: AsyncSession,
    player: Player,
    engine_mark: bool,
    actor: Actor,
    now: datetime,
    undo: list[dict[str, Any]],
    rounds: set[int],
) -> list[str]:
    """Rule VIII.A: unfinished match to the opponent; an engine mark adjudicates the rest."""
    notes: list[str] = []
    matches = await _matches_of(session, player.id, StageKind.SWISS)
    for match in matches:
        if match.state in DONE_STATES or match.player_b_id is None:
            continue
        opponent_id = match.player_b_id if match.player_a_id == player.id else match.player_a_id
        before = _snapshot(match)
        _, _, _, opp_points = withdrawals.swiss_unfinished_match_result(
            str(player.id), str(opponent_id), win_points=WIN_POINTS
        )
        match.state = MatchState.FORFEITED
        match.forfeit_winner_id = opponent_id
        match.points_a, match.points_b = (
            (0.0, opp_points) if match.player_a_id == player.id else (opp_points, 0.0)
        )
        await _decide_match(session, match, now)
        undo.append({**before, "kind": "unfinished"})
        rounds.add(match.round_id)
        record(
            session,
            at=now,
            actor=actor,
            action=FORFEITED,
            subject_type="match",
            subject_id=match.id,
            details={
                "winner_id": opponent_id,
                "loser_id": player.id,
                "reason": "opponent disqualified (rule VIII.A.1)",
                "by_disqualification": True,
            },
        )
    if not engine_mark:
        return notes
    finished = [m for m in matches if m.state is MatchState.FINISHED or m.state is MatchState.BYE]
    finished += [
        m
        for m in matches
        if m.state is MatchState.FORFEITED and m.forfeit_winner_id not in (None, player.id)
    ]
    results: list[withdrawals.SwissResult] = [
        (
            str(m.player_a_id),
            str(m.player_b_id) if m.player_b_id else None,
            m.points_a or 0.0,
            m.points_b or 0.0,
        )
        for m in finished
    ]
    adjudicated = withdrawals.adjudicate_engine(results, str(player.id), win_points=WIN_POINTS)
    for match, (_, _, pa, pb) in zip(finished, adjudicated, strict=True):
        if (match.points_a, match.points_b) == (pa, pb):
            continue
        before = _snapshot(match)
        match.points_a, match.points_b = pa, pb
        undo.append({**before, "kind": "engine"})
        rounds.add(match.round_id)
        record(
            session,
            at=now,
            actor=actor,
            action="match_adjudicated",
            subject_type="match",
            subject_id=match.id,
            details={
                "why": "engine mark of a player: finished match given to the opponent "
                "(rule VIII.A.2); game scores kept",
                "player_id": player.id,
                "before": [before["points_a"], before["points_b"]],
                "after": [pa, pb],
            },
        )
    return notes


async def _apply_candidates(
    session: AsyncSession,
    player: Player,
    actor: Actor,
    now: datetime,
    undo: list[dict[str, Any]],
    rounds: set[int],
) -> list[str]:
    """Rule VIII.B: every Candidates match of the player is disregarded."""
    for match in await _matches_of(session, player.id, StageKind.CANDIDATES):
        if match.state is MatchState.FORFEITED and match.forfeit_winner_id is None:
            continue
        before = _snapshot(match)
        match.state = MatchState.FORFEITED
        match.forfeit_winner_id = None
        match.points_a = match.points_b = None
        await _decide_match(session, match, now)
        undo.append({**before, "kind": "disregarded"})
        rounds.add(match.round_id)
        record(
            session,
            at=now,
            actor=actor,
            action="match_disregarded",
            subject_type="match",
            subject_id=match.id,
            details={
                "why": "a player left the Candidates: all their matches are disregarded "
                "(rule VIII.B)",
                "player_id": player.id,
                "before": before,
            },
        )
    return []


# --- reinstatement --------------------------------------------------------------------------


async def reinstate(
    session: AsyncSession, config: Config, *, player_id: int, actor: Actor, now: datetime
) -> None:
    """The TD reverses a disqualification: undo what can still be undone, list the rest."""
    player = await _player(session, player_id)
    if player.disqualified_at is None:
        raise WrongStage(f"{player.lichess_username} is not disqualified.")
    entry = await session.scalar(
        select(AuditEntry)
        .where(
            AuditEntry.action == DISQUALIFIED,
            AuditEntry.subject_type == "player",
            AuditEntry.subject_id == player.id,
        )
        .order_by(desc(AuditEntry.at), desc(AuditEntry.id))
        .limit(1)
    )
    undo: list[dict[str, Any]] = list(entry.details.get("undo", [])) if entry else []
    restored: list[int] = []
    left: list[int] = []
    rounds: set[int] = set()
    for item in undo:
        match = await session.get(Match, item["match_id"])
        if match is None:
            continue
        round_ = await session.get(Round, match.round_id)
        reopen = item["kind"] != "engine" and item["state"] not in [s.value for s in DONE_STATES]
        if reopen and (round_ is None or round_.state is not RoundState.PUBLISHED):
            left.append(match.id)  # the round is closed (maybe paired on): the TD decides
            continue
        match.state = MatchState(item["state"])
        match.points_a, match.points_b = item["points_a"], item["points_b"]
        match.forfeit_winner_id = item["forfeit_winner_id"]
        match.finished_at = (
            datetime.fromisoformat(item["finished_at"]) if item["finished_at"] else None
        )
        restored.append(match.id)
        rounds.add(match.round_id)
    previous_reason = player.disqualification_reason
    player.disqualified_at = None
    player.disqualification_reason = None
    record(
        session,
        at=now,
        actor=actor,
        action=REINSTATED,
        subject_type="player",
        subject_id=player.id,
        details={
            "previous_reason": previous_reason,
            "restored": restored,
            "not_restored": left,
        },
    )
    _announce(
        session,
        config,
        now,
        f"✅ The tournament director has reversed the disqualification of "
        f"**{player.lichess_username}**.",
    )
    _dm(
        session,
        player,
        now,
        f"The tournament director reversed your disqualification from the "
        f"{config.tournament.short_name}.",
    )
    extra = (
        f" Not restored (their round is closed; fix with /td set-score if needed): "
        f"{', '.join(f'#{m}' for m in left)}."
        if left
        else ""
    )
    notify_td(
        session,
        config,
        now=now,
        content=(
            f"{player.lichess_username} is reinstated. Restored matches: "
            f"{', '.join(f'#{m}' for m in restored) or 'none'}.{extra} They are paired again "
            "from the next round on."
        ),
    )
    await session.flush()
    for round_id in sorted(rounds):
        await queue_round_post_update(session, round_id, now=now)
