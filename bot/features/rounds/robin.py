"""The primitives of round robin stages (tiebreak matches, the Candidates): their rounds in
the Berger order, one a week, their results and ranking, and what a finished stage decided.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import stage_kinds
from bot.audit import Actor
from bot.config import Config
from bot.due import cancel
from bot.features.rounds import weeks
from bot.features.rounds.progress import RoundProgress
from bot.features.rounds.records import DONE_STATES, players
from bot.features.rounds.types import PairingLine, RoundPreview
from bot.rules import candidates as berger
from bot.rules import stages as stage_rules
from db.models import Match, MatchState, Player, Round, Stage


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
        starts_at, deadline = weeks.round_times(self.config, stage.started_at, number)
        preview = RoundPreview(number, len(schedule), len(field), starts_at, deadline, lines)
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
        """A player who left plays no more (rule VIII.B, `bot.rules.stages.settle_absent`):
        their new match is settled at once, with the winner the rule names."""
        gone = {p.id for p in field if p.withdrawn_at or p.disqualified_at}
        if not gone or published.round_id is None:
            return
        matches = await session.scalars(select(Match).where(Match.round_id == published.round_id))
        for match in matches:
            settled, winner = stage_rules.settle_absent(
                stage.kind.value,
                str(match.player_a_id),
                str(match.player_b_id or 0),
                {str(i) for i in gone},
            )
            if not settled:
                continue
            match.state, match.finished_at = MatchState.FORFEITED, now
            if winner is not None:
                match.forfeit_winner_id = int(winner)
                match.points_a, match.points_b = (
                    (1.0, 0.0) if match.forfeit_winner_id == match.player_a_id else (0.0, 1.0)
                )
            await cancel(session, subject_type="match", subject_id=match.id, now=now)

    async def results(self, session: AsyncSession, stage: Stage) -> list[berger.CandidateResult]:
        """The stage's results as (a, b, games_a, games_b), as `bot.rules.candidates.
        robin_results` counts them (forfeits, disregarded matches, players who left the
        Candidates)."""
        rounds = select(Round.id).where(Round.stage_id == stage.id)
        matches = (await session.scalars(select(Match).where(Match.round_id.in_(rounds)))).all()
        ids = {m.player_a_id for m in matches} | {m.player_b_id for m in matches if m.player_b_id}
        by_id = {p.id: p for p in await players(session, sorted(ids | set(stage.seeding)))}
        field = [by_id[i] for i in stage.seeding if i in by_id]
        left = [p.lichess_id for p in field if p.withdrawn_at or p.disqualified_at]
        rows = [
            berger.RobinMatch(
                by_id[m.player_a_id].lichess_id,
                by_id[m.player_b_id].lichess_id,
                m.state in DONE_STATES,
                m.score_a if m.points_a is not None else None,
                m.score_b if m.points_a is not None else None,
                by_id[m.forfeit_winner_id].lichess_id if m.forfeit_winner_id in by_id else None,
            )
            for m in matches
            if m.player_b_id is not None
        ]
        return berger.robin_results(
            rows,
            [p.lichess_id for p in field],
            games=self.config.tournament.match_games,
            left_candidates=left if stage_kinds.is_robin(self.config.format, stage) else (),
        )

    async def table(
        self, session: AsyncSession, stage: Stage, field: list[Player]
    ) -> tuple[list[berger.CandidateStanding], set[str]]:
        """The stage's table (rule III.F.3) and the players of it who left."""
        results = await self.results(session, stage)
        table = berger.standings([p.lichess_id for p in field], results)
        return table, {p.lichess_id for p in field if p.withdrawn_at or p.disqualified_at}

    async def ranking(
        self, session: AsyncSession, stage: Stage, field: list[Player]
    ) -> list[tuple[str, int]]:
        """The stage's ranks, `bot.rules.stages.robin_ranking`."""
        table, gone = await self.table(session, stage, field)
        return stage_rules.robin_ranking(table, gone)
