"""The whole championship read in one session, so the export and the standings see one
consistent state even while the bot keeps running."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import (
    AuditEntry,
    Game,
    Match,
    MatchIncident,
    Player,
    Registration,
    Round,
    Stage,
    TDDecision,
    TimeOffer,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Snapshot:
    """Every row the export needs, each list in id order (plain loaded rows, no lazy loads)."""

    players: list[Player]
    registrations: list[Registration]
    stages: list[Stage]
    rounds: list[Round]
    matches: list[Match]
    games: list[Game]
    offers: list[TimeOffer]
    incidents: list[MatchIncident]
    decisions: list[TDDecision]
    audit: list[AuditEntry]

    @cached_property
    def players_by_id(self) -> dict[int, Player]:
        return {p.id: p for p in self.players}

    def stage(self, kind: str) -> Stage | None:
        return next((s for s in self.stages if s.kind.value == kind), None)

    def rounds_of(self, stage: Stage) -> list[Round]:
        return sorted((r for r in self.rounds if r.stage_id == stage.id), key=lambda r: r.number)

    def matches_of(self, stage: Stage) -> list[Match]:
        order = {r.id: r.number for r in self.rounds_of(stage)}
        found = [m for m in self.matches if m.round_id in order]
        return sorted(found, key=lambda m: (order[m.round_id], m.board, m.id))

    def games_of(self, match: Match) -> list[Game]:
        return self._games_by_match.get(match.id, [])

    @cached_property
    def _games_by_match(self) -> dict[int, list[Game]]:
        """Each match's games in order, indexed once: a page of a 500-player round asks
        for 250 matches' games, and scanning every game for each took seconds."""
        by_match: dict[int, list[Game]] = {}
        for game in self.games:
            by_match.setdefault(game.match_id, []).append(game)
        for games in by_match.values():
            games.sort(key=lambda g: g.number)
        return by_match


async def _all(session: AsyncSession, model: type[T], order: Any) -> list[T]:
    rows: Sequence[T] = (await session.scalars(select(model).order_by(order))).all()
    return list(rows)


async def read_snapshot(sessions: async_sessionmaker[AsyncSession]) -> Snapshot:
    """Every table the export covers, read in one session (one transaction)."""
    async with sessions() as session, session.begin():
        return Snapshot(
            players=await _all(session, Player, Player.id),
            registrations=await _all(session, Registration, Registration.id),
            stages=await _all(session, Stage, Stage.id),
            rounds=await _all(session, Round, Round.id),
            matches=await _all(session, Match, Match.id),
            games=await _all(session, Game, Game.id),
            offers=await _all(session, TimeOffer, TimeOffer.id),
            incidents=await _all(session, MatchIncident, MatchIncident.id),
            decisions=await _all(session, TDDecision, TDDecision.id),
            audit=await _all(session, AuditEntry, AuditEntry.id),
        )
