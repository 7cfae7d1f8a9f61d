"""Disqualification and reinstatement (rule VIII), inside the caller's transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import desc, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.audit import Actor, record
from bot.config import Config
from bot.errors import WrongStage
from bot.events import EventBus, PlayerLeft
from bot.features.discipline import text as wording
from bot.features.discipline.common import (
    DISQUALIFIED,
    DONE_STATES,
    FORFEITED,
    REINSTATED,
    WIN_POINTS,
    WITHDRAWN,
    announce,
    decide_match,
    dm_player,
    load_player,
    matches_of,
    settle_rounds,
    snapshot,
    stage_of,
)
from bot.features.matches.round_post import queue_round_post_update
from bot.message_text import quote
from bot.rules import withdrawals
from bot.td_alerts import notify_td
from db.models import (
    AuditEntry,
    Match,
    MatchState,
    Player,
    Round,
    RoundState,
    StageKind,
    StageState,
)

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
    player = await load_player(session, player_id)
    if player.disqualified_at is not None:
        raise WrongStage(f"{player.lichess_username} is already disqualified.")
    public = "a Lichess engine mark (rules VII.C, VIII.A.2)" if engine_mark else "rule VIII"
    await apply_disqualification(
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


async def apply_disqualification(
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
    rounds = set(settle)
    undo, notes = await apply_leave(session, player, engine_mark, actor, now, rounds)
    record(
        session,
        at=now,
        actor=actor,
        action=DISQUALIFIED,
        subject_type="player",
        subject_id=player.id,
        details={"reason": reason, "engine_mark": engine_mark, "undo": undo, "notes": notes},
    )
    announce(
        session,
        config,
        now,
        f"⛔ **{player.lichess_username}** is disqualified from the "
        f"{config.tournament.short_name}: {public}.",
    )
    dm_player(
        session,
        player,
        now,
        f"You have been disqualified from the {config.tournament.short_name}: {public}. "
        "Contact the tournament director if you think this is a mistake.",
    )
    changed = ", ".join(f"match {u['match_id']}" for u in undo) or "none"
    notify_td(
        session,
        config,
        now=now,
        content=(
            f"⛔ {player.lichess_username} (player {player.id}) is disqualified. Reason: "
            f"{quote(reason)}. Matches changed: {changed}."
            + ("".join(f"\n• {n}" for n in notes))
            + f"\nReverse with `/td discipline reinstate player:{player.lichess_username}`."
        ),
    )
    await settle_rounds(session, events, player.id, rounds, actor, now)
    await events.publish(session, PlayerLeft(actor, player_id=player.id), now)


async def withdraw(
    session: AsyncSession,
    config: Config,
    events: EventBus,
    *,
    player_id: int,
    actor: Actor,
    now: datetime,
) -> list[str]:
    """A player leaves during the championship: rule VIII applies as for a
    disqualification, without an engine mark (caller's transaction). Returns the notes."""
    player = await load_player(session, player_id)
    if player.withdrawn_at is not None or player.disqualified_at is not None:
        raise WrongStage(f"{player.lichess_username} is no longer in the championship.")
    player.withdrawn_at = now
    rounds: set[int] = set()
    undo, notes = await apply_leave(
        session, player, False, actor, now, rounds, how=wording.WITHDREW
    )
    record(
        session,
        at=now,
        actor=actor,
        action=WITHDRAWN,
        subject_type="player",
        subject_id=player.id,
        details={"undo": undo, "notes": notes},
    )
    announce(
        session,
        config,
        now,
        f"🚪 **{player.lichess_username}** has withdrawn from the "
        f"{config.tournament.short_name} (rule VIII).",
    )
    changed = ", ".join(f"match {u['match_id']}" for u in undo) or "none"
    notify_td(
        session,
        config,
        now=now,
        content=(
            f"🚪 {player.lichess_username} (player {player.id}) withdrew. Matches changed: "
            f"{changed}." + "".join(f"\n• {n}" for n in notes)
        ),
    )
    await settle_rounds(session, events, player.id, rounds, actor, now)
    await events.publish(session, PlayerLeft(actor, player_id=player.id), now)
    return notes


async def apply_leave(
    session: AsyncSession,
    player: Player,
    engine_mark: bool,
    actor: Actor,
    now: datetime,
    rounds: set[int],
    how: str = wording.DISQUALIFIED,
) -> tuple[list[dict[str, Any]], list[str]]:
    """What leaving does to the stored results, stage by stage (rules VIII.A-C); each
    opponent whose match changed is told what it means for them."""
    undo: list[dict[str, Any]] = []
    notes: list[str] = []
    swiss = await stage_of(session, StageKind.SWISS)
    if swiss is not None and swiss.state is not StageState.FINISHED:
        notes += await _apply_swiss(session, player, engine_mark, actor, now, undo, rounds, how=how)
    elif engine_mark and swiss is not None:
        notes.append(
            "The qualification is finished: its results were NOT adjudicated (rule VIII.A.2); "
            "correct them by hand if needed."
        )
    tiebreak = await stage_of(session, StageKind.TIEBREAK)
    if tiebreak is not None and tiebreak.state is not StageState.FINISHED:
        # Tiebreak matches are Swiss matches played off (III.E.5): the unfinished one goes
        # to the opponent (VIII.A.1), finished ones stay.
        notes += await _apply_swiss(
            session, player, False, actor, now, undo, rounds, kind=StageKind.TIEBREAK, how=how
        )
    candidates = await stage_of(session, StageKind.CANDIDATES)
    if candidates is not None:
        if candidates.state is StageState.FINISHED:
            notes.append("The Candidates are finished: their results were left as they are.")
        else:
            notes += await _apply_candidates(session, player, actor, now, undo, rounds)
    final = await stage_of(session, StageKind.FINAL)
    if final is not None and final.state is not StageState.FINISHED and player.id in final.seeding:
        notes.append(
            "Final (rule VIII.C): the Candidates runner-up takes the place of the one who "
            "left; the Final starts again between the two."
        )
    await _tell_opponents(session, player, undo, how, now)
    return undo, notes


async def _tell_opponents(
    session: AsyncSession, player: Player, undo: list[dict[str, Any]], how: str, now: datetime
) -> None:
    """Each opponent whose match the leaving changed hears it now, not days later from a
    table."""
    for entry in undo:
        match = await session.get(Match, entry["match_id"])
        if match is None or match.player_b_id is None:
            continue
        their_id = match.player_b_id if match.player_a_id == player.id else match.player_a_id
        opponent = await session.get(Player, their_id)
        if opponent is not None:
            text = wording.opponent_left(player.lichess_username, how, match.id, entry["kind"])
            dm_player(session, opponent, now, text)


async def _apply_swiss(
    session: AsyncSession,
    player: Player,
    engine_mark: bool,
    actor: Actor,
    now: datetime,
    undo: list[dict[str, Any]],
    rounds: set[int],
    kind: StageKind = StageKind.SWISS,
    how: str = wording.DISQUALIFIED,
) -> list[str]:
    """Rule VIII.A: unfinished match to the opponent; an engine mark adjudicates the rest."""
    notes: list[str] = []
    matches = await matches_of(session, player.id, kind)
    for match in matches:
        if match.state in DONE_STATES or match.player_b_id is None:
            continue
        opponent_id = match.player_b_id if match.player_a_id == player.id else match.player_a_id
        before = snapshot(match)
        _, _, _, opp_points = withdrawals.swiss_unfinished_match_result(
            str(player.id), str(opponent_id), win_points=WIN_POINTS
        )
        match.state = MatchState.FORFEITED
        match.forfeit_winner_id = opponent_id
        match.points_a, match.points_b = (
            (0.0, opp_points) if match.player_a_id == player.id else (opp_points, 0.0)
        )
        await decide_match(session, match, now)
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
                "reason": wording.forfeit_reason(how),
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
        before = snapshot(match)
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
    for match in await matches_of(session, player.id, StageKind.CANDIDATES):
        if match.state is MatchState.FORFEITED and match.forfeit_winner_id is None:
            continue
        before = snapshot(match)
        match.state = MatchState.FORFEITED
        match.forfeit_winner_id = None
        match.points_a = match.points_b = None
        await decide_match(session, match, now)
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
    player = await load_player(session, player_id)
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
    announce(
        session,
        config,
        now,
        f"✅ The tournament director has reversed the disqualification of "
        f"**{player.lichess_username}**.",
    )
    dm_player(
        session,
        player,
        now,
        f"The tournament director reversed your disqualification from the "
        f"{config.tournament.short_name}.",
    )
    extra = (
        f" Not restored (their round is closed; fix with /td round set-score if needed): "
        f"{', '.join(f'match {m}' for m in left)}."
        if left
        else ""
    )
    notify_td(
        session,
        config,
        now=now,
        content=(
            f"{player.lichess_username} is reinstated. Restored matches: "
            f"{', '.join(f'match {m}' for m in restored) or 'none'}.{extra} They are paired again "
            "from the next round on."
        ),
    )
    await session.flush()
    for round_id in sorted(rounds):
        await queue_round_post_update(session, round_id, now=now)
