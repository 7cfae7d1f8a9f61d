"""The Final as a stage (rule III.G): set up after the Candidates with the substitutions of
rule VIII.C, and closed when its match is decided. The games themselves are read by the
results feature, game by game, with the time control each game must have.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import stage_kinds
from bot.audit import Actor, record
from bot.config import Config
from bot.due import cancel
from bot.events import EventBus, StageFinished
from bot.features.matches.context import announce, pinged
from bot.features.matches.text import match_format_text
from bot.features.rounds import records, weeks
from bot.features.rounds import text as wording
from bot.features.rounds.progress import RoundProgress
from bot.features.rounds.types import PairingLine, RoundPreview
from bot.features.rounds.verdict import result_line
from bot.rules.stages import final_players, final_window
from bot.rules.withdrawals import final_pairing_after_withdrawal
from bot.td_alerts import notify_td
from db.models import Match, MatchState, Player, Round, RoundState, Stage, StageKind, StageState


class FinalStage:
    """Setting up the Final, replacing a finalist who leaves, crowning the champion; the
    Final's one round is written through the round life cycle it is given."""

    def __init__(self, config: Config, events: EventBus, progress: RoundProgress) -> None:
        self.config = config
        self.events = events
        self.progress = progress

    async def start(
        self,
        session: AsyncSession,
        challenger: Player,
        runner_up: Player | None,
        after: datetime,
        actor: Actor,
        now: datetime,
    ) -> None:
        """The champion against the Challenger, or the substitutions of rule VIII.C."""
        seeded = await session.scalar(
            select(Player).where(
                Player.pre_seeded_stage
                == stage_kinds.engine_kind(self.config.format, self.config.final_stage().key)
            )
        )
        champion_in = seeded is not None and not (seeded.withdrawn_at or seeded.disqualified_at)
        by_name = {p.lichess_id: p for p in (seeded, challenger, runner_up) if p is not None}
        finalists = final_players(
            seeded.lichess_id if seeded is not None and champion_in else None,
            challenger.lichess_id,
            runner_up.lichess_id if runner_up is not None else None,
        )
        if finalists is None:
            notify_td(session, self.config, now=now, content=wording.final_needs_td())
            return
        champion, challenger = by_name[finalists.first], by_name[finalists.second]
        starts_at = weeks.stage_start(self.config, after, "final_match")
        stage = records.new_stage(
            self.config,
            StageKind.FINAL,
            started_at=starts_at,
            seeding=[champion.id, challenger.id],
            total_rounds=1,
        )
        session.add(stage)
        await session.flush()
        _, deadline = final_window(starts_at, self.config.stages.final_days)
        preview = RoundPreview(
            1,
            1,
            2,
            starts_at,
            deadline,
            [PairingLine(1, champion.lichess_username, 1, challenger.lichess_username, 2)],
        )
        await self.progress.publish(session, stage, preview, actor, now)
        record(
            session,
            at=now,
            actor=actor,
            action="final_started",
            subject_type="stage",
            subject_id=stage.id,
            details={"champion": champion.id, "challenger": challenger.id},
        )
        how = match_format_text(
            self.config.final_format(),
            equal_bids=self.config.format.equal_bids,
            black_seconds=self.config.stages.final_armageddon_black_seconds,
        )
        content = wording.final_start(
            champion.lichess_username,
            challenger.lichess_username,
            how=how,
            champion_replaced=finalists.champion_replaced,
        )
        announce(session, self.config, now, content)

    async def crown_champion(
        self, session: AsyncSession, match: Match, actor: Actor, now: datetime
    ) -> None:
        """The Final is decided: the champion is announced with the final score."""
        stage_row = await session.scalar(
            select(Stage).join(Round, Round.stage_id == Stage.id).where(Round.id == match.round_id)
        )
        if stage_row is None or not stage_kinds.is_final_match(self.config.format, stage_row):
            return
        round_ = await session.get(Round, match.round_id)
        if round_ is not None:
            round_.state = RoundState.FINISHED
        stage_row.state, stage_row.finished_at = StageState.FINISHED, now
        a = await session.get(Player, match.player_a_id)
        b = await session.get(Player, match.player_b_id or 0)
        assert a is not None and b is not None
        if match.forfeit_winner_id is not None:
            winner = a if match.forfeit_winner_id == a.id else b
        else:  # the results feature stores the Final's winner as its points (Armageddon too)
            winner = a if (match.points_a or 0.0) > (match.points_b or 0.0) else b
        record(
            session,
            at=now,
            actor=actor,
            action="champion_crowned",
            subject_type="player",
            subject_id=winner.id,
            details={"score": [match.score_a, match.score_b]},
        )
        result = await result_line(session, self.config, stage_row, match, winner)
        content = wording.champion_crowned(
            winner.lichess_username, self.config.tournament.name, stage_row.name, result
        )
        announce(session, self.config, now, pinged([winner], content))
        event = StageFinished(actor, stage_id=stage_row.id, kind=stage_row.kind.value)
        await self.events.publish(session, event, now)

    async def replace_finalist(
        self, session: AsyncSession, player_id: int, actor: Actor, now: datetime
    ) -> None:
        """Rule VIII.C: a finalist who leaves is replaced by the Candidates runner-up (the
        Challenger's place), or the Challenger plays the runner-up (the champion's)."""
        final = await records.stage_by_key(session, self.config.final_stage().key)
        if final is None or final.state is StageState.FINISHED or player_id not in final.seeding:
            return
        candidates = await stage_kinds.first_pool_row(session, self.config.format)
        outcome = await records.outcome(session, candidates) if candidates else []
        runner_up = await session.get(Player, outcome[1]) if len(outcome) > 1 else None
        available = runner_up is not None and not (
            runner_up.withdrawn_at or runner_up.disqualified_at
        )
        try:  # rule VIII.C, decided by the pure rule over the players' ids
            pair = final_pairing_after_withdrawal(
                str(final.seeding[0]),
                str(final.seeding[1]),
                str(runner_up.id) if runner_up is not None and available else None,
                str(player_id),
            )
        except ValueError:  # no runner-up to step in, or one who is a finalist already
            pair = None
        staying = await session.get(Player, int(pair.first)) if pair else None
        if pair is None or runner_up is None or staying is None:
            notify_td(session, self.config, now=now, content=wording.finalist_not_replaced())
            return
        rounds = select(Round.id).where(Round.stage_id == final.id)
        for match in await session.scalars(select(Match).where(Match.round_id.in_(rounds))):
            if match.state not in (MatchState.FINISHED, MatchState.FORFEITED):
                match.state, match.finished_at = MatchState.FORFEITED, now
                match.forfeit_winner_id = None
                match.points_a = match.points_b = None
                await cancel(session, subject_type="match", subject_id=match.id, now=now)
        for old in await session.scalars(select(Round).where(Round.stage_id == final.id)):
            old.state = RoundState.FINISHED
        number = (final.total_rounds or 1) + 1
        final.seeding, final.total_rounds = [staying.id, runner_up.id], number
        starts_at, deadline = final_window(
            max(now, final.started_at or now), self.config.stages.final_days
        )
        preview = RoundPreview(
            number,
            number,
            2,
            starts_at,
            deadline,
            [PairingLine(1, staying.lichess_username, 1, runner_up.lichess_username, 2)],
        )
        await self.progress.publish(session, final, preview, actor, now)
        record(
            session,
            at=now,
            actor=actor,
            action="finalist_replaced",
            subject_type="stage",
            subject_id=final.id,
            details={"left": player_id, "in": runner_up.id},
        )
        content = wording.finalist_replaced(staying.lichess_username, runner_up.lichess_username)
        announce(session, self.config, now, content)
