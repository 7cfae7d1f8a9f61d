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
    REINSTATED,
    WIN_POINTS,
    WITHDRAWN,
    decide_match,
    dm_player,
    forfeit_to,
    load_player,
    matches_of,
    settle_rounds,
    snapshot,
    stage_of,
)
from bot.features.matches.context import announce, place_of
from bot.features.matches.round_post import queue_round_post_update
from bot.format.model import Format
from bot.message_text import quote
from bot.rules import match_conduct, withdrawals
from bot.td_alerts import notify_td
from db.models import (
    AuditEntry,
    Match,
    MatchState,
    Player,
    Round,
    RoundState,
    StageKind,
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
        raise WrongStage(wording.already_disqualified(player.lichess_username))
    public = wording.ENGINE_PUBLIC if engine_mark else wording.PLAIN_PUBLIC
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
    undo, notes = await apply_leave(
        session, player, engine_mark, actor, now, rounds, fmt=config.format
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
    tournament = config.tournament.short_name
    changes = await _changes(session, config, player, undo)
    announce(
        session,
        config,
        now,
        # no walkovers named here: a disqualification may follow a cheat report, and naming
        # the opponent could point at its reporter (rule VII.A); the opponent has their DM
        wording.disqualified_public(player.lichess_username, tournament, public),
    )
    dm_player(session, player, now, wording.disqualified_dm(tournament, public))
    notify_td(
        session,
        config,
        now=now,
        content=wording.disqualified_td(
            player.lichess_username, quote(reason), [c[1] for c in changes], notes
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
        raise WrongStage(wording.no_longer_in(player.lichess_username))
    player.withdrawn_at = now
    rounds: set[int] = set()
    undo, notes = await apply_leave(
        session, player, False, actor, now, rounds, how=wording.WITHDREW, fmt=config.format
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
    name = player.lichess_username
    changes = await _changes(session, config, player, undo)
    announce(
        session,
        config,
        now,
        wording.withdrawn_public(name, config.tournament.short_name, wording.walkovers(changes)),
    )
    notify_td(
        session,
        config,
        now=now,
        content=wording.withdrawn_td(name, [c[1] for c in changes], notes),
    )
    await settle_rounds(session, events, player.id, rounds, actor, now)
    await events.publish(session, PlayerLeft(actor, player_id=player.id), now)
    return notes


async def _changes(
    session: AsyncSession, config: Config, player: Player, undo: list[dict[str, Any]]
) -> list[tuple[str, str, str]]:
    """Each match the leaving changed as people name it: (opponent, place, kind)."""
    changes = []
    for entry in undo:
        match = await session.get(Match, entry["match_id"])
        if match is None:
            continue
        their_id = match.player_b_id if match.player_a_id == player.id else match.player_a_id
        opponent = await session.get(Player, their_id) if their_id else None
        place = await place_of(session, config.format, match)
        changes.append((opponent.lichess_username if opponent else "?", place, entry["kind"]))
    return changes


async def apply_leave(
    session: AsyncSession,
    player: Player,
    engine_mark: bool,
    actor: Actor,
    now: datetime,
    rounds: set[int],
    how: str = wording.DISQUALIFIED,
    fmt: Format | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """What leaving does to the stored results, stage by stage (rules VIII.A-C); each
    opponent whose match changed is told what it means for them."""
    undo: list[dict[str, Any]] = []
    notes: list[str] = []
    swiss = await stage_of(session, StageKind.SWISS)
    tiebreak = await stage_of(session, StageKind.TIEBREAK)
    candidates = await stage_of(session, StageKind.CANDIDATES)
    final = await stage_of(session, StageKind.FINAL)
    plan = withdrawals.leave_plan(
        swiss=swiss.state.value if swiss else None,
        tiebreak=tiebreak.state.value if tiebreak else None,
        candidates=candidates.state.value if candidates else None,
        final=final.state.value if final else None,
        in_final=final is not None and player.id in final.seeding,
        reason=withdrawals.ENGINE if engine_mark else withdrawals.DISQUALIFICATION,
    )
    if plan.swiss:
        notes += await _apply_swiss(
            session, player, plan.adjudicate, actor, now, undo, rounds, how=how
        )
    elif plan.swiss_finished_unadjudicated:
        notes.append(wording.swiss_finished_not_adjudicated())
    if plan.tiebreak:
        notes += await _apply_swiss(
            session, player, False, actor, now, undo, rounds, kind=StageKind.TIEBREAK, how=how
        )
    if plan.candidates_finished:
        notes.append(wording.candidates_finished_kept())
    elif plan.candidates:
        notes += await _apply_candidates(session, player, actor, now, undo, rounds)
    if plan.final:
        notes.append(wording.final_replaced())
    await _tell_opponents(session, player, undo, how, now, fmt)
    return undo, notes


async def _tell_opponents(
    session: AsyncSession,
    player: Player,
    undo: list[dict[str, Any]],
    how: str,
    now: datetime,
    fmt: Format | None,
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
            place = await place_of(session, fmt, match)
            text = wording.opponent_left(player.lichess_username, how, place, entry["kind"])
            dm_player(session, opponent, now, text)


def _stage_match(match: Match) -> withdrawals.StageMatch:
    """A stored match as rule VIII's functions read it."""
    return withdrawals.StageMatch(
        id=match.id,
        a=str(match.player_a_id),
        b=str(match.player_b_id) if match.player_b_id else None,
        state=match.state.value,
        points_a=match.points_a,
        points_b=match.points_b,
        forfeit_winner=str(match.forfeit_winner_id) if match.forfeit_winner_id else None,
    )


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
    """Rule VIII.A (`withdrawals.swiss_changes`): unfinished match to the opponent; an
    engine mark adjudicates the rest. Each change is stored with its undo and audit row."""
    matches = {m.id: m for m in await matches_of(session, player.id, kind)}
    changes = withdrawals.swiss_changes(
        [_stage_match(m) for m in matches.values()],
        str(player.id),
        engine=engine_mark,
        win_points=WIN_POINTS,
    )
    for change in changes:
        match = matches[change.match_id]
        before = snapshot(match)
        match.points_a, match.points_b = change.points_a, change.points_b
        undo.append({**before, "kind": change.kind})
        rounds.add(match.round_id)
        if change.kind == "unfinished":
            assert change.forfeit_winner is not None
            details = {"reason": wording.forfeit_reason(how), "by_disqualification": True}
            await forfeit_to(
                session,
                match,
                int(change.forfeit_winner),
                loser_id=player.id,
                actor=actor,
                now=now,
                details=details,
            )
            continue
        record(
            session,
            at=now,
            actor=actor,
            action="match_adjudicated",
            subject_type="match",
            subject_id=match.id,
            details={
                "why": wording.ADJUDICATED_WHY,
                "player_id": player.id,
                "before": [before["points_a"], before["points_b"]],
                "after": [change.points_a, change.points_b],
            },
        )
    return []


async def _apply_candidates(
    session: AsyncSession,
    player: Player,
    actor: Actor,
    now: datetime,
    undo: list[dict[str, Any]],
    rounds: set[int],
) -> list[str]:
    """Rule VIII.B (`withdrawals.candidates_disregarded`): every Candidates match of the
    player is disregarded."""
    matches = {m.id: m for m in await matches_of(session, player.id, StageKind.CANDIDATES)}
    gone = withdrawals.candidates_disregarded(
        [_stage_match(m) for m in matches.values()], str(player.id)
    )
    for match_id in gone:
        match = matches[match_id]
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
            details={"why": wording.DISREGARDED_WHY, "player_id": player.id, "before": before},
        )
    return []


# --- reinstatement --------------------------------------------------------------------------


async def reinstate(
    session: AsyncSession, config: Config, *, player_id: int, actor: Actor, now: datetime
) -> None:
    """The TD reverses a disqualification: undo what can still be undone, list the rest."""
    player = await load_player(session, player_id)
    if player.disqualified_at is None:
        raise WrongStage(wording.not_disqualified(player.lichess_username))
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
    announce(session, config, now, wording.reinstated_public(player.lichess_username))
    dm_player(session, player, now, wording.reinstated_dm(config.tournament.short_name))
    notify_td(
        session,
        config,
        now=now,
        content=wording.reinstated_td(
            player.lichess_username,
            [await place_of(session, config.format, m) for m in await _rows(session, restored)],
            [await place_of(session, config.format, m) for m in await _rows(session, left)],
        ),
    )
    await session.flush()
    for round_id in sorted(rounds):
        await queue_round_post_update(session, round_id, now=now)


async def disqualify_for_forfeits(
    session: AsyncSession,
    config: Config,
    events: EventBus,
    *,
    player: Player,
    forfeits: int,
    round_id: int,
    actor: Actor,
    now: datetime,
) -> bool:
    """Rule VI.F: a player still in whose forfeits reach the limit is disqualified (True);
    otherwise nothing happens here (False) and the caller tells the TD the count."""
    limit = config.match_day.forfeits_for_disqualification
    still_in = player.disqualified_at is None and player.withdrawn_at is None
    if not match_conduct.disqualified_by_forfeits(forfeits, limit, still_in=still_in):
        return False
    await apply_disqualification(
        session,
        config,
        events,
        player=player,
        reason=wording.forfeits_reason(forfeits),
        engine_mark=False,
        actor=actor,
        now=now,
        public=wording.forfeits_public(forfeits),
        settle={round_id},
    )
    return True


async def _rows(session: AsyncSession, ids: list[int]) -> list[Match]:
    return [m for i in ids if (m := await session.get(Match, i)) is not None]
