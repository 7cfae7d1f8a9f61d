"""The primitives of round robin stages (tiebreak matches, the Candidates): their rounds in
the Berger order, one a week, their results and ranking, and what a finished stage decided.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.audit import Actor
from bot.config import Config
from bot.due import cancel
from bot.features.rounds.progress import RoundProgress
from bot.features.rounds.records import DONE_STATES, players
from bot.features.rounds.types import PairingLine, RoundPreview
from bot.rules import candidates as berger
from bot.rules.stages import shared_ranks
from db.models import Match, MatchState, Player, Round, Stage, StageKind


class RobinRounds:
    """Round robin rounds in their Berger order, one a week, and their results and
    ranking; a round is written through the round life cycle it is given."""

    def __init__(self, config: Config, progress: RoundProgress) -> None:
        self.config = config
        self.progress = progress

    async def publish_round(
        self, session: AsyncSession, stage: Stage, number: int, actor: Actor, now: datetime
    ) -> RoundPreview:
        """Round `number` of the stage's Berger schedule, in its week."""
        field = await players(session, stage.seeding)
        schedule = berger.schedule([p.lichess_id for p in field])
        by_id = {p.lichess_id: (p, seed) for seed, p in enumerate(field, start=1)}
        lines = []
        for board, (a, b) in enumerate(schedule[number - 1], start=1):
            (pa, sa), (pb, sb) = by_id[a], by_id[b]
            lines.append(PairingLine(board, pa.lichess_username, sa, pb.lichess_username, sb))
        assert stage.started_at is not None
        days = timedelta(days=self.config.swiss.round_days)
        starts_at = stage.started_at + (number - 1) * days
        preview = RoundPreview(
            number,
            len(schedule),
            len(field),
            starts_at,
            starts_at + days - timedelta(seconds=1),
            lines,
        )
        published = await self.progress.publish(session, stage, preview, actor, now)
        await self._settle_absent(session, stage, published, field, now)
        return published

    async def _settle_absent(
        self,
        session: AsyncSession,
        stage: Stage,
        published: RoundPreview,
        field: list[Player],
        now: datetime,
    ) -> None:
        """A player who left plays no more (rule VIII): in the Candidates their new match
        is disregarded, in tiebreak matches it goes to the opponent."""
        gone = {p.id for p in field if p.withdrawn_at or p.disqualified_at}
        if not gone or published.round_id is None:
            return
        matches = await session.scalars(select(Match).where(Match.round_id == published.round_id))
        for match in matches:
            absent = {match.player_a_id, match.player_b_id or 0} & gone
            if not absent:
                continue
            match.state, match.finished_at = MatchState.FORFEITED, now
            if stage.kind is StageKind.TIEBREAK and len(absent) == 1:
                winner = match.player_b_id if match.player_a_id in absent else match.player_a_id
                match.forfeit_winner_id = winner
                match.points_a, match.points_b = (
                    (1.0, 0.0) if winner == match.player_a_id else (0.0, 1.0)
                )
            await cancel(session, subject_type="match", subject_id=match.id, now=now)

    async def results(self, session: AsyncSession, stage: Stage) -> list[berger.CandidateResult]:
        """Finished matches of the stage as (a, b, games_a, games_b); a match forfeited
        without a winner (a disqualification in the Candidates, rule VIII.B) is disregarded."""
        rounds = select(Round.id).where(Round.stage_id == stage.id)
        matches = (await session.scalars(select(Match).where(Match.round_id.in_(rounds)))).all()
        ids = {m.player_a_id for m in matches} | {m.player_b_id for m in matches if m.player_b_id}
        by_id = {p.id: p for p in await players(session, sorted(ids))}
        out: list[berger.CandidateResult] = []
        for m in matches:
            if m.state not in DONE_STATES or m.player_b_id is None:
                continue
            if not {m.player_a_id, m.player_b_id} <= set(stage.seeding):
                continue  # only the stage's own field is ranked
            if m.forfeit_winner_id is None and m.points_a is None:
                continue
            a, b = by_id[m.player_a_id].lichess_id, by_id[m.player_b_id].lichess_id
            if m.forfeit_winner_id is not None:  # a forfeit counts as a won match
                won = m.forfeit_winner_id == m.player_a_id
                games = float(self.config.tournament.match_games)
                out.append((a, b, games if won else 0.0, 0.0 if won else games))
            else:
                out.append((a, b, m.score_a, m.score_b))
        return out

    async def ranking(
        self, session: AsyncSession, stage: Stage, field: list[Player]
    ) -> list[tuple[str, int]]:
        """Match points, then game points, then the mutual matches (III.F.3), without the
        players who left; a tie that remains shares a rank."""
        results = await self.results(session, stage)
        table = berger.standings([p.lichess_id for p in field], results)
        gone = {p.lichess_id for p in field if p.withdrawn_at or p.disqualified_at}
        return shared_ranks([(row.player, row.rank) for row in table if row.player not in gone])
