"""The round life cycle: the window of round N, the field, pairing, publishing.

Pairings come from the pure rules engine (`bot.rules.swiss`); this module reads the state it
needs and writes the round with its audit rows, messages and due actions, in the caller's
transaction. Posting the round in Discord (the pairings post and its thread) is the
publisher's job (`bot.features.rounds.publisher`), which works from what is stored here.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot import stage_kinds
from bot.audit import Actor, record
from bot.config import Config
from bot.due import DueKind, schedule
from bot.errors import WrongStage
from bot.events import EventBus, RoundPublished
from bot.features.matches.context import mention, place_of, post_for_match
from bot.features.matches.text import stage_label
from bot.features.rounds import pairing, weeks
from bot.features.rounds import text as wording
from bot.features.rounds.records import DONE_STATES
from bot.features.rounds.text import round_out_text, score_set_text
from bot.features.rounds.types import PairingLine, RoundPreview
from bot.format.swiss import swiss_stage
from bot.outbox import enqueue_channel
from bot.rules import swiss
from bot.rules.tiebreaks import SwissRow, swiss_ranking
from db.models import (
    Match,
    MatchState,
    Player,
    Registration,
    RegistrationState,
    Round,
    RoundState,
    Stage,
)

log = logging.getLogger(__name__)


class RoundProgress:
    """The round life cycle inside a caller's transaction: the field, pairing, publishing.

    Other features never call it: they publish `MatchFinished` or `PlayerForfeited`, and
    the stage flow (`bot.features.rounds.stages.StageFlow`) answers. Publishing a round
    tells the others with `RoundPublished`.
    """

    def __init__(self, config: Config, events: EventBus) -> None:
        self.config = config
        self.events = events

    def round_window(self, number: int) -> tuple[datetime, datetime]:
        """Round N's week (rule IV.A), in the format's week (`bot.features.rounds.weeks`)."""
        return weeks.round_times(self.config, weeks.first_round_start(self.config), number)

    async def entrants(self, session: AsyncSession) -> list[Player]:
        """Approved, not pre-seeded, not withdrawn or disqualified: best seeding rating
        first (the public field post lists them in this order)."""
        rows = (
            await session.scalars(
                select(Registration)
                .where(Registration.state == RegistrationState.APPROVED)
                .options(selectinload(Registration.player))
            )
        ).all()
        players = [
            (r.player, r)
            for r in rows
            if r.player.pre_seeded_stage is None
            and r.player.withdrawn_at is None
            and r.player.disqualified_at is None
        ]
        players.sort(
            key=lambda pr: (
                pr[0].seeding_rating is None,
                -(pr[0].seeding_rating or 0.0),
                pr[1].created_at,
                pr[1].id,
            )
        )
        return [p for p, _ in players]

    def preview(
        self,
        players: list[Player],
        *,
        number: int,
        results: list[swiss.Result],
        withdrawn: set[str],
        total_rounds: int | None = None,
    ) -> RoundPreview:
        if len(players) < 2:
            raise WrongStage(wording.too_few_players(len(players)))
        cfg = self.config.swiss
        total = total_rounds or swiss.number_of_rounds(
            len(players), rounding=cfg.rounds_rounding, extra=cfg.extra_rounds
        )
        if swiss.uses_round_robin(
            len(players), rounding=cfg.rounds_rounding, extra=cfg.extra_rounds
        ):
            total = len(round_robin := swiss.round_robin_rounds([p.lichess_id for p in players]))
            pairs = round_robin[number - 1]
        else:
            pairs = pairing.pair_round(
                [p.lichess_id for p in players],
                results,
                withdrawn=withdrawn,
                bye_points=cfg.bye_points,
                short_median_buchholz=cfg.short_median_buchholz,
            )
        by_id = {p.lichess_id: (p, seed) for seed, p in enumerate(players, start=1)}
        lines = []
        for board, (a, b) in enumerate(pairs, start=1):
            pa, sa = by_id[a]
            pb, sb = by_id[b] if b is not None else (None, None)
            lines.append(
                PairingLine(board, pa.lichess_username, sa, pb.lichess_username if pb else None, sb)
            )
        starts_at, deadline = self.round_window(number)
        return RoundPreview(number, total, len(players), starts_at, deadline, lines)

    async def publish(
        self,
        session: AsyncSession,
        stage: Stage,
        preview: RoundPreview,
        actor: Actor,
        now: datetime,
    ) -> RoundPreview:
        players = {
            p.lichess_username: p
            for p in (await session.scalars(select(Player).where(Player.id.in_(stage.seeding))))
        }
        round_ = Round(
            stage_id=stage.id,
            number=preview.number,
            state=RoundState.PUBLISHED,
            starts_at=preview.starts_at,
            deadline=preview.deadline,
            published_at=now,
        )
        session.add(round_)
        await session.flush()
        bye_points = self.config.swiss.bye_points
        for line in preview.lines:
            a = players[line.player_a]
            b = players[line.player_b] if line.player_b else None
            match = Match(
                round_id=round_.id,
                board=line.board,
                player_a_id=a.id,
                player_b_id=b.id if b else None,
                state=MatchState.NEGOTIATING if b else MatchState.BYE,
                score_a=0.0,
                score_b=0.0,
                points_a=None if b else bye_points,
                points_b=None,
                finished_at=None if b else now,
                td_assigns=False,
            )
            session.add(match)
            await session.flush()
        await self.events.publish(session, RoundPublished(actor, round_id=round_.id), now)
        await schedule(
            session,
            kind=DueKind.ROUND_DEADLINE,
            subject_type="round",
            subject_id=round_.id,
            due_at=round_.deadline,
        )
        await schedule(
            session,
            kind=DueKind.NEXT_ROUND,
            subject_type="round",
            subject_id=round_.id,
            due_at=round_.deadline + timedelta(seconds=1),
        )
        record(
            session,
            at=now,
            actor=actor,
            action="round_published",
            subject_type="round",
            subject_id=round_.id,
            details={"number": round_.number},
        )
        announce = self.config.discord.announcement_channel_id
        one_match = stage_kinds.is_final_match(self.config.format, stage)
        # A final match's pairing is told once, by its stage's start post with how it is
        # played (rounds.final, rounds.starters): not again as "the Final is set!" (issue 32)
        if announce and not one_match:
            content = round_out_text(
                self.config.tournament.short_name,
                one_match,
                stage_label(stage.kind, stage.name),
                round_.number,
                stage.total_rounds,
                [(line.player_a, line.player_b) for line in preview.lines],
                round_.deadline,
            )
            enqueue_channel(session, channel_id=announce, now=now, content=content)
        return RoundPreview(**{**preview.__dict__, "round_id": round_.id})

    async def swiss_state(
        self, session: AsyncSession
    ) -> tuple[Stage, list[Player], list[swiss.Result], set[str], list[Round]]:
        stage, players, by_round, withdrawn = await self._swiss_rounds(session)
        results = [result for results in by_round for result in results]
        return stage, players, results, withdrawn, list(stage.rounds)

    async def swiss_table(self, session: AsyncSession) -> tuple[list[Player], list[SwissRow]]:
        """The Swiss players in seeding order, and the table ranked by the format's tiebreak
        chain (rule III.E.5; `bot.rules.tiebreaks.swiss_ranking`)."""
        _, players, by_round, withdrawn = await self._swiss_rounds(session)
        settings = swiss_stage(self.config.format)
        table = swiss_ranking(
            [p.lichess_id for p in players],
            by_round,
            settings.tiebreaks,
            bye_points=settings.bye_points,
            short_median_buchholz=self.config.swiss.short_median_buchholz,
            withdrawn=withdrawn,
        )
        return players, table

    async def _swiss_rounds(
        self, session: AsyncSession
    ) -> tuple[Stage, list[Player], list[list[swiss.Result]], set[str]]:
        """The Swiss stage, its players in seeding order, the decided results round by
        round (round 1 first) and who left."""
        stage = await session.scalar(
            stage_kinds.swiss_query(self.config.format).options(selectinload(Stage.rounds))
        )
        if stage is None:
            raise WrongStage(wording.not_started())
        by_id = {
            p.id: p
            for p in (await session.scalars(select(Player).where(Player.id.in_(stage.seeding))))
        }
        players = [by_id[pid] for pid in stage.seeding]
        number = {r.id: r.number for r in stage.rounds}
        matches = (await session.scalars(select(Match).where(Match.round_id.in_(number)))).all()
        by_round: list[list[swiss.Result]] = [[] for _ in range(max(number.values(), default=0))]
        for m in matches:
            if m.state not in DONE_STATES:
                continue
            a = by_id[m.player_a_id].lichess_id
            b = by_id[m.player_b_id].lichess_id if m.player_b_id else None
            by_round[number[m.round_id] - 1].append((a, b, m.points_a or 0.0, m.points_b or 0.0))
        withdrawn = {p.lichess_id for p in players if p.withdrawn_at or p.disqualified_at}
        return stage, players, by_round, withdrawn

    async def post_result(self, session: AsyncSession, match: Match, now: datetime) -> None:
        """A score the TD recorded is a ruling about the match: its record, once, in the
        round's thread mentioning both players (by DM without a thread), not an
        announcement: match results are not stage news (docs/MESSAGES.md)."""
        if match.player_b_id is None:
            return
        a = await session.get(Player, match.player_a_id)
        b = await session.get(Player, match.player_b_id)
        round_ = await session.get(Round, match.round_id)
        assert a is not None and b is not None and round_ is not None
        post_for_match(
            session,
            [a, b],
            thread_id=match.thread_id or round_.thread_id,
            now=now,
            content=score_set_text(
                await place_of(session, self.config.format, match),
                mention(a),
                mention(b),
                match.score_a,
                match.score_b,
            ),
        )
