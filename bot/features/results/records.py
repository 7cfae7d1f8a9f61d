"""Match day, read from Lichess: the records of the matches whose results are read, each
loaded with everything its results need (round, stage, players, games, the Armageddon's
bids), in a few queries for all of them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.config import Config
from bot.features.results.stage_rules import (
    ARMAGEDDON_KEY,
    UNDER_WAY,
    MatchRecord,
    StageRules,
)
from db.models import Game, Match, MatchState, Player, Round, Setting, Stage, StageKind


class MatchRecords:
    """Loading matches as `MatchRecord`s: one, several, or every match whose game link or
    results are due now."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], config: Config, rules: StageRules
    ) -> None:
        self.sessions = sessions
        self.config = config
        self.rules = rules

    async def one(self, session: AsyncSession, match_id: int) -> MatchRecord | None:
        return (await self.many(session, [match_id])).get(match_id)

    async def many(self, session: AsyncSession, match_ids: Sequence[int]) -> dict[int, MatchRecord]:
        """The records of these matches (byes left out), in a few queries for all of them:
        the poll reads every match under way at each run."""
        if not match_ids:
            return {}
        matches = [
            m
            for m in await session.scalars(select(Match).where(Match.id.in_(match_ids)))
            if m.player_b_id is not None
        ]
        rounds = await self._by_id(session, Round, {m.round_id for m in matches})
        stages = await self._by_id(session, Stage, {r.stage_id for r in rounds.values()})
        people = {m.player_a_id for m in matches} | {m.player_b_id or 0 for m in matches}
        players = await self._by_id(session, Player, people)
        games: dict[int, list[Game]] = {m.id: [] for m in matches}
        query = select(Game).where(Game.match_id.in_(games)).order_by(Game.match_id, Game.number)
        for game in await session.scalars(query):
            games[game.match_id].append(game)
        found: dict[int, MatchRecord] = {}
        for match in matches:
            round_ = rounds[match.round_id]
            stage = stages[round_.stage_id]
            a, b = players[match.player_a_id], players[match.player_b_id or 0]
            white, revealed, bid = None, None, None
            if self.rules.is_match_stage(stage):
                row = await session.get(Setting, ARMAGEDDON_KEY + str(match.id))
                state = json.loads(row.value) if row else {}
                white = state.get("white")
                revealed = (
                    datetime.fromisoformat(state["revealed_at"]) if "revealed_at" in state else None
                )
                white_id = a.id if white == "champion" else b.id
                bid = state.get("bids", {}).get(str(white_id)) if white else None
            found[match.id] = MatchRecord(
                match, round_, stage, a, b, games[match.id], white, revealed, bid
            )
        return found

    @staticmethod
    async def _by_id(session: AsyncSession, model: Any, ids: set[int]) -> dict[int, Any]:
        rows = await session.scalars(select(model).where(model.id.in_(ids)))
        return {row.id: row for row in rows}

    async def due(self, now: datetime, *, challenge: bool) -> list[MatchRecord]:
        async with self.sessions() as session:
            query = select(Match.id).where(
                Match.player_b_id.is_not(None),
                Match.agreed_time.is_not(None),
                Match.agreed_time <= now,
            )
            if challenge:
                # A Final match under way may need a new link: a new time control (III.G.5).
                query = query.where(Match.state.in_(UNDER_WAY), Match.challenge_url.is_(None))
            elif self.config.stages.played_on:  # and decided matches still played on
                kinds = [StageKind(k) for k in self.config.stages.played_on]
                open_rounds = select(Round.id).where(
                    Round.deadline > now,
                    Round.stage_id.in_(select(Stage.id).where(Stage.kind.in_(kinds))),
                )
                query = query.where(
                    or_(
                        Match.state.in_(UNDER_WAY),
                        (Match.state == MatchState.FINISHED) & Match.round_id.in_(open_rounds),
                    )
                )
            else:
                query = query.where(Match.state.in_(UNDER_WAY))
            ids = (await session.scalars(query.order_by(Match.agreed_time, Match.id))).all()
            found = await self.many(session, ids)
        return [
            found[i]
            for i in ids
            if i in found and (found[i].match.state in UNDER_WAY or self.rules.plays_on(found[i]))
        ]

    async def watched(self, now: datetime, until: datetime) -> list[MatchRecord]:
        """What Lichess's game stream watches: the matches whose results are read now
        (`due`), and those agreed to start by `until`."""
        under_way = await self.due(now, challenge=False)
        async with self.sessions() as session:
            query = select(Match.id).where(
                Match.player_b_id.is_not(None),
                Match.agreed_time > now,
                Match.agreed_time <= until,
                Match.state.in_(UNDER_WAY),
            )
            ids = (await session.scalars(query.order_by(Match.agreed_time, Match.id))).all()
            soon = await self.many(session, ids)
        return under_way + [soon[i] for i in ids if i in soon]
