"""A player leaving a knock-out or a final match under way: the format's leaving rule
applied to the stages started and unfinished (2020-2024 rules, "Disqualification and
withdrawals"; 2019's Final keeps rule VIII.C, `FinalStage.replace_finalist`).

Why here: discipline records the leaving (rule VIII's Swiss and Candidates effects) and
publishes `PlayerLeft`; the stages under way are the rounds feature's. For every started,
unfinished row of a knock-out or a final match that holds the player, the stage's entrants
are read again (`StageAdvance.outcomes`, the stage's entry rules) through the pure rule
`bot.rules.leaving.on_leaving`:

* The players below move up ("the other players below them in their Candidate pool move
  up one position in their placement in the Semifinal Matches"; "the other players below
  them in the Semifinals and Candidates move up one position in their placement in the
  Final Matches", 2024; 2020: "in their round robin pool"): each match whose pair changed
  is voided (forfeited without a winner, its due actions cancelled) and the new pair is
  published in a new round of the row; who moved up into the stage hears it by DM, the new
  match's thread pings both players, the TD gets what changed.
* A knock-out match under way: the rules are silent. When a game of the leaver's match is
  recorded, or the re-seating would change a match already under way or decided, the
  matches played stand and the opponent wins the leaver's pending match, as a
  Qualification match's (rule VIII.A.1; `knockout_leaving(started=True)`); the knock-out
  then routes its winner on as ever (and the Third Place Playoff takes the next below the
  leaver). Nobody left to move up in a knock-out: the same.
* Cascade: a Grand Finalist leaving moves their Semifinal opponent up into the Grand Final;
  the Third Place Playoff, which held that opponent, is read again too and takes the next
  player below from the Candidates.

A stage not started yet needs nothing here: its start reads who left (`Outcomes.left`).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import stage_kinds
from bot.audit import Actor, record
from bot.config import Config
from bot.due import cancel
from bot.features.discipline.common import forfeit_to
from bot.features.matches.context import announce, match_label
from bot.features.matches.round_post import queue_round_post_update
from bot.features.rounds import records
from bot.features.rounds import stage_text as words
from bot.features.rounds.advance import StageAdvance
from bot.features.rounds.final import FinalStage
from bot.features.rounds.progress import RoundProgress
from bot.features.rounds.records import DONE_STATES, pairing_json
from bot.features.rounds.starters import is_2019_final, match_name, replacement_window
from bot.features.rounds.types import PairingLine, RoundPreview
from bot.format import flow
from bot.format.entry import entry_rules
from bot.format.model import Stage as FormatStage
from bot.outbox import enqueue_dm
from bot.rules import advancement as adv
from bot.rules.knockout import Pairing
from bot.rules.leaving import LeaveEffect, Leaving, on_leaving
from bot.rules.withdrawals import DISQUALIFICATION, WITHDRAWAL, StageMatch
from bot.td_alerts import notify_td
from db.models import Game, Match, MatchState, Player, Stage, StageState

__all__ = ["StageLeaving"]

FORFEIT_WHY = "left a knock-out match under way"


class StageLeaving:
    """Applying the format's leaving rule to the knock-outs and final matches under way,
    inside the transaction that recorded the leaving."""

    def __init__(
        self, config: Config, progress: RoundProgress, final: FinalStage, advance: StageAdvance
    ) -> None:
        self.config = config
        self.progress = progress
        self.final = final
        self.advance = advance

    async def player_left(
        self, session: AsyncSession, player_id: int, actor: Actor, now: datetime
    ) -> set[int]:
        """Every started, unfinished knock-out or final match row holding the player, and
        those holding a player who moved up out of them (the cascade), in format order.
        Returns the rounds a forfeit decided a match of (the caller closes them)."""
        player = await session.get(Player, player_id)
        rows = [
            row
            for row in await session.scalars(
                select(Stage)
                .where(Stage.state != StageState.FINISHED)
                .order_by(Stage.position, Stage.id)
            )
            if stage_kinds.is_match_stage(self.config.format, row)
            and row.key in self.config.format.keys()
        ]
        closing: set[int] = set()
        if player is None or not any(player_id in row.seeding for row in rows):
            return closing
        moved: set[int] = set()  # who moved up into a row changed here
        before: adv.Outcomes | None = None
        for row in rows:
            if player_id not in row.seeding and not moved & set(row.seeding):
                continue
            spec = self.config.format.stage(row.key)
            if is_2019_final(spec):  # rule VIII.C: the Candidates runner-up steps in
                await self.final.replace_finalist(session, player_id, actor, now)
                continue
            if before is None:  # the outcomes as they were before the player left
                outcomes, _ = await self.advance.outcomes(session)
                before = replace(outcomes, left=outcomes.left - {player.lichess_id})
            moved |= await self._apply(session, row, spec, player, before, actor, now, closing)
        return closing

    async def _apply(
        self,
        session: AsyncSession,
        row: Stage,
        spec: FormatStage,
        player: Player,
        before: adv.Outcomes,
        actor: Actor,
        now: datetime,
        closing: set[int],
    ) -> set[int]:
        """One row: the players below move up, or the opponent wins (a knock-out under
        way). Returns the ids of the players who moved up into it."""
        kind = adv.StageKind(spec.kind)
        reason = DISQUALIFICATION if player.disqualified_at else WITHDRAWAL
        rules = entry_rules(spec)
        live = await records.live_matches(session, row)
        try:
            probe = on_leaving(
                kind, Leaving(player.lichess_id, reason, entry_rules=rules, outcomes=before)
            )
            new: tuple[Pairing, ...] | None = flow.pairings(
                self.config.format, row.key, probe.entrants
            )
        except ValueError:  # too few players left below, or an outcome missing
            new = None
        names = await _names(session, row, live, new)
        changed = {
            board: pairing
            for board, pairing in enumerate(new or (), start=1)
            if _pair(live.get(board), names) != (pairing.first, pairing.second)
        }
        started = new is None or any(
            [await _under_way(session, live[b]) for b in changed if b in live]
        )
        own = tuple(
            _stage_match(m, names)
            for m in live.values()
            if player.id in (m.player_a_id, m.player_b_id)
        )
        effect = _decide(kind, player.lichess_id, reason, rules, before, own, started)
        how = words.left_how(player.disqualified_at is not None)
        if effect.changes:
            await self._forfeits(session, row, player, effect, names, how, actor, now, closing)
            return set()
        if new is None or not changed:
            if new is None:
                content = words.stage_not_reseated(row.name, player.lichess_username, how)
                notify_td(session, self.config, now=now, content=content)
            return set()
        return await self._reseat(
            session, row, spec, player, live, new, changed, names, how, actor, now
        )

    async def _forfeits(
        self,
        session: AsyncSession,
        row: Stage,
        player: Player,
        effect: LeaveEffect,
        names: dict[str, Player],
        how: str,
        actor: Actor,
        now: datetime,
        closing: set[int],
    ) -> None:
        """The opponent wins the leaver's pending knock-out match (rule VIII.A.1's way)."""
        won: list[tuple[str, str]] = []
        for change in effect.changes:
            match = await session.get(Match, change.match_id)
            winner = names.get(change.forfeit_winner or "")
            if match is None or winner is None:
                continue
            match.points_a, match.points_b = change.points_a, change.points_b
            details = {"why": FORFEIT_WHY, "by_disqualification": True}
            await forfeit_to(
                session,
                match,
                winner.id,
                loser_id=player.id,
                actor=actor,
                now=now,
                details=details,
            )
            closing.add(match.round_id)
            await queue_round_post_update(session, match.round_id, now=now, board=match.board)
            name = _match_name(self.config, row, match.board)
            won.append((name, winner.lichess_username))
            if winner.discord_id is not None:
                content = words.knockout_forfeit_dm(player.lichess_username, how, name)
                enqueue_dm(session, user_id=winner.discord_id, now=now, content=content)
        if won:
            content = words.knockout_forfeit_td(player.lichess_username, how, won)
            notify_td(session, self.config, now=now, content=content)

    async def _reseat(
        self,
        session: AsyncSession,
        row: Stage,
        spec: FormatStage,
        player: Player,
        live: dict[int, Match],
        new: tuple[Pairing, ...],
        changed: dict[int, Pairing],
        names: dict[str, Player],
        how: str,
        actor: Actor,
        now: datetime,
    ) -> set[int]:
        """Void each changed match and publish the new pairs in a new round of the row."""
        voided: list[int] = []
        voided_names: list[str] = []  # as the TD reads them: place and players
        for board in changed:
            old = live.get(board)
            if old is None or old.state in DONE_STATES:
                continue
            old.state, old.finished_at = MatchState.FORFEITED, now
            old.forfeit_winner_id = None
            old.points_a = old.points_b = None
            await cancel(session, subject_type="match", subject_id=old.id, now=now)
            await queue_round_post_update(session, old.round_id, now=now, board=old.board)
            voided.append(old.id)
            voided_names.append(await match_label(session, self.config.format, old))
        before_ids = set(row.seeding)
        row.seeding = [names[n].id for p in new for n in p.players]
        last = await records.last_round(session, row)
        number = (last.number if last is not None else 0) + 1
        row.total_rounds = number
        after = max(now, last.starts_at if last is not None else row.started_at or now)
        starts_at, deadline = replacement_window(self.config, spec, after)
        lines = [
            PairingLine(
                board,
                names[p.first].lichess_username,
                2 * board - 1,
                names[p.second].lichess_username,
                2 * board,
            )
            for board, p in changed.items()
        ]
        preview = RoundPreview(number, number, 2 * len(lines), starts_at, deadline, lines)
        await self.progress.publish(session, row, preview, actor, now)
        await records.save_stage_outcome(
            session, row.key, now, pairings=[pairing_json(p) for p in new]
        )
        matches = [
            (p.name, line.player_a, line.player_b or "")
            for p, line in zip(changed.values(), lines, strict=True)
        ]
        moved = {names[n].id for p in changed.values() for n in p.players} - before_ids
        record(
            session,
            at=now,
            actor=actor,
            action="stage_reseated",
            subject_type="stage",
            subject_id=row.id,
            details={
                "key": row.key,
                "left": player.id,
                "voided": voided,
                "pairings": [list(m) for m in matches],
                "moved_up": sorted(moved),
            },
        )
        left = player.lichess_username
        announce(session, self.config, now, words.stage_reseated(row.name, left, how, matches))
        content = words.stage_reseated_td(row.name, left, how, voided_names, matches)
        notify_td(session, self.config, now=now, content=content)
        for pairing in changed.values():
            for me, them in ((pairing.first, pairing.second), (pairing.second, pairing.first)):
                newcomer = names[me]
                if newcomer.id in moved and newcomer.discord_id is not None:
                    content = words.moved_up_dm(
                        row.name, left, how, pairing.name, names[them].lichess_username
                    )
                    enqueue_dm(session, user_id=newcomer.discord_id, now=now, content=content)
        return moved


def _decide(
    kind: adv.StageKind,
    player: str,
    reason: str,
    rules: tuple[adv.EntryRule, ...],
    before: adv.Outcomes,
    own: tuple[StageMatch, ...],
    started: bool,
) -> LeaveEffect:
    """The pure rule's answer; none when the entrants cannot be read again."""
    leaving = Leaving(
        player, reason, matches=own, entry_rules=rules, outcomes=before, started=started
    )
    try:
        return on_leaving(kind, leaving)
    except ValueError:
        return LeaveEffect()


async def _names(
    session: AsyncSession,
    row: Stage,
    live: dict[int, Match],
    new: tuple[Pairing, ...] | None,
) -> dict[str, Player]:
    """The players of the row, of its matches and of its new pairings, by Lichess id."""
    ids = set(row.seeding)
    for m in live.values():
        ids |= {m.player_a_id, m.player_b_id or 0}
    found = await session.scalars(select(Player).where(Player.id.in_(ids)))
    out = {p.lichess_id: p for p in found}
    wanted = {n for p in new or () for n in p.players} - set(out)
    if wanted:
        more = await session.scalars(select(Player).where(Player.lichess_id.in_(wanted)))
        out.update({p.lichess_id: p for p in more})
    return out


def _pair(match: Match | None, names: dict[str, Player]) -> tuple[str, str] | None:
    """A stored match as the Lichess ids of its sides."""
    if match is None:
        return None
    by_id = {p.id: n for n, p in names.items()}
    return by_id.get(match.player_a_id, ""), by_id.get(match.player_b_id or 0, "")


def _stage_match(match: Match, names: dict[str, Player]) -> StageMatch:
    """A stored match as the leaving rule reads it (players by Lichess id)."""
    by_id = {p.id: n for n, p in names.items()}
    return StageMatch(
        match.id,
        by_id.get(match.player_a_id, ""),
        by_id.get(match.player_b_id or 0) if match.player_b_id else None,
        match.state.value,
        match.points_a,
        match.points_b,
        by_id.get(match.forfeit_winner_id or 0) if match.forfeit_winner_id else None,
    )


async def _under_way(session: AsyncSession, match: Match) -> bool:
    """A match decided, or with a game of it recorded: the leaver's place is no longer
    re-seated over it (the rules are silent; the opponent wins)."""
    if match.state in DONE_STATES or match.score_a or match.score_b:
        return True
    game = await session.scalar(
        select(Game.id).where(Game.match_id == match.id, Game.counted.is_(True)).limit(1)
    )
    return game is not None


def _match_name(config: Config, row: Stage, board: int) -> str:
    """A knock-out's match by its pairing's name ("Semifinal 1"), else the row's name."""
    return match_name(config.format, row.key, board) or row.name
