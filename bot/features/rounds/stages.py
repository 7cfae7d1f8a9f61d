"""From one stage to the next: the end of the Swiss (rules III.E.4-5), tiebreak matches, the
Candidates round robin (rule III.F) and who plays the Final.

A round robin stage (tiebreak matches, the Candidates) is a Berger schedule over the
stage's seeding; its rounds are one a week from the Monday after the previous stage's last
deadline (rule IV), and the next round is published as soon as the last result of the
previous one is in. Where the rules leave a tie to the TD, the bot asks once, with one
button per tied player (`bot.features.rounds.ties.StageTies.decide_tie`), and goes on by
itself after the answer.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import stage_kinds
from bot.audit import Actor, record
from bot.config import Config
from bot.events import EventBus, RoundComplete, StageFinished
from bot.features.matches.context import announce, pinged
from bot.features.rounds import text as wording
from bot.features.rounds import weeks
from bot.features.rounds.advance import StageAdvance
from bot.features.rounds.final import FinalStage
from bot.features.rounds.progress import RoundProgress
from bot.features.rounds.records import (
    ask_td_to_break,
    new_stage,
    open_in_stage,
    open_matches,
    outcome,
    players,
    save_outcome,
    save_stage_outcome,
    swiss_of,
)
from bot.features.rounds.robin import RobinRounds
from bot.features.rounds.stage_ends import StageEnds
from bot.features.rounds.stage_text import candidates_lines, qualification_lines
from bot.features.rounds.starters import StartKit
from bot.features.rounds.types import ResultRecorded
from bot.format.flow import destinations
from bot.format.swiss import swiss_stage
from bot.rules import candidates as berger
from bot.rules import stages as stage_rules
from bot.rules.stages import CANDIDATES, SWISS, RoundStep
from bot.rules.tiebreaks import SwissRow
from bot.rules.tiebreaks_swiss import separating_tiebreaks
from bot.td_alerts import notify_td
from db.models import Player, Round, RoundState, Stage, StageKind, StageState


class StageFlow:
    """Closing rounds of every stage, and what follows the last round of a stage: the
    rounds are written by the round life cycle, round robin rounds and the Final by the
    collaborators it is given."""

    def __init__(
        self,
        config: Config,
        events: EventBus,
        progress: RoundProgress,
        robin: RobinRounds,
        final: FinalStage,
    ) -> None:
        self.config = config
        self.events = events
        self.progress = progress
        self.robin = robin
        self.final = final
        self.advance = StageAdvance(config, StartKit(config, progress, robin, final))
        self.ends = StageEnds(config, events, robin, self.advance)

    async def after_result(
        self, session: AsyncSession, round_id: int, actor: Actor, now: datetime
    ) -> ResultRecorded:
        """Close the round when its last match is decided, then publish the next round robin
        round, or name the Swiss round to pair once the caller's transaction has committed
        (`ResultRecorded.pair_after`)."""
        round_ = await session.get(Round, round_id)
        assert round_ is not None
        stage = await session.get(Stage, round_.stage_id)
        assert stage is not None
        number, still_open = round_.number, len(await open_matches(session, round_id))
        if stage_kinds.is_match_stage(self.config.format, stage):
            # A knock-out's later rounds hold the matches that replaced ones voided when a
            # player left (`bot.features.rounds.leaving`): not rounds one after the other,
            # the row is over when no match of any of its rounds is open.
            number, still_open = stage.total_rounds or number, await open_in_stage(session, stage)
        step = stage_rules.after_result(
            stage.kind.value,
            number,
            stage.total_rounds or 0,
            still_open,
            confirm_before_publish=self.config.swiss.confirm_before_publish,
        )
        if step is RoundStep.OPEN:
            return ResultRecorded(round_id, False, None, False)
        round_.state = RoundState.FINISHED
        complete = RoundComplete(actor, round_id=round_.id, stage_id=stage.id)
        await self.events.publish(session, complete, now)
        if step is RoundStep.STAGE_OVER:
            await self._finish_stage(session, stage, round_, actor, now)
            return ResultRecorded(round_id, True, None, True)
        if step is RoundStep.ROBIN_NEXT:
            published = await self.robin.publish_round(
                session, stage, round_.number + 1, actor, now
            )
            if published.round_id and not await open_matches(session, published.round_id):
                # every match of it was decided at once (a player who left): go on
                await self.after_result(session, published.round_id, actor, now)
            return ResultRecorded(round_id, True, published, False)
        if step is RoundStep.TD_PUBLISHES:
            content = wording.round_complete_publish(round_.number)
            notify_td(session, self.config, now=now, content=content)
            return ResultRecorded(round_id, True, None, False)
        return ResultRecorded(round_id, True, None, False, pair_after=round_id)

    async def _finish_stage(
        self, session: AsyncSession, stage: Stage, last: Round, actor: Actor, now: datetime
    ) -> None:
        stage.state, stage.finished_at = StageState.FINISHED, now
        for round_ in await session.scalars(
            select(Round).where(Round.stage_id == stage.id, Round.state == RoundState.PUBLISHED)
        ):
            round_.state = RoundState.FINISHED  # a knock-out's earlier round (a player left)
        record(
            session,
            at=now,
            actor=actor,
            action=f"{stage.kind.value}_finished",
            subject_type="stage",
            subject_id=stage.id,
        )
        event = StageFinished(actor, stage_id=stage.id, kind=stage.kind.value)
        await self.events.publish(session, event, now)
        if await self.ends.row_finished(session, stage, actor, now):
            return  # a pool of several, a knock-out: the format's stages after 2019's
        fmt = self.config.format
        if stage_kinds.is_tiebreak_matches(stage):
            await self._after_tiebreak(session, stage, actor, now)
        elif stage_kinds.is_qualification(fmt, stage):
            await self._after_swiss(session, stage, last, actor, now)
        elif stage_kinds.is_robin(fmt, stage):
            await self._after_candidates(session, stage, actor, now)

    # --- the end of the Swiss (III.E.4-5) ------------------------------------------------------

    async def _after_swiss(
        self, session: AsyncSession, stage: Stage, last: Round, actor: Actor, now: datetime
    ) -> None:
        """The Swiss table by the format's tiebreak chain decides the qualifiers; players
        still tied across the last place play tiebreak matches (rule III.E.5) or, when the
        format has none, are the TD's to break with the tie buttons."""
        players, table = await self.progress.swiss_table(session)
        settings = swiss_stage(self.config.format)
        names = {p.lichess_id: p for p in players}
        places = self.config.swiss.qualifiers
        sure, tied = stage_rules.swiss_qualifiers(table, places)
        announce(
            session,
            self.config,
            now,
            pinged([names[p] for p in sure], "\n".join(
                qualification_lines(
                    [(names[r.player].lichess_username, r) for r in table],
                    places,
                    sure,
                    tied,
                    chain=len(settings.tiebreaks),
                    matches=settings.tiebreak_matches,
                    goes_to=destinations(self.config.format, stage.key, places),
                    separated_by=separating_tiebreaks(table, places),
                )
            )),
        )  # fmt: skip
        if stage_rules.next_stage(SWISS, tie_across_cut=bool(tied)) == CANDIDATES:
            await self._qualified(session, stage, sure, table, actor, now)
            return
        await save_outcome(session, stage, [names[p].id for p in sure], now)
        if not settings.tiebreak_matches:
            tie = stage_rules.TieState([], tied, places - len(sure))
            await self._ask_td(session, stage, tie, now)
            return
        tiebreak = new_stage(
            self.config,
            StageKind.TIEBREAK,
            started_at=weeks.stage_start(self.config, last.deadline, None),
            seeding=[names[p].id for p in tied],
            total_rounds=len(berger.schedule(tied)),
        )
        session.add(tiebreak)
        await session.flush()
        record(
            session,
            at=now,
            actor=actor,
            action="tiebreak_started",
            subject_type="stage",
            subject_id=tiebreak.id,
            details={"players": tied, "places": places - len(sure)},
        )
        await self.robin.publish_round(session, tiebreak, 1, actor, now)

    async def _after_tiebreak(
        self, session: AsyncSession, stage: Stage, actor: Actor, now: datetime
    ) -> None:
        sure = await outcome(session, await swiss_of(session, stage))
        group = await players(session, stage.seeding)
        places = self.config.swiss.qualifiers - len(sure)
        ranked = await self.robin.ranking(session, stage, group)
        tie = stage_rules.after_tiebreak(ranked, places)
        if tie.done:
            await self.qualify_after_tiebreak(session, stage, sure, tie.decided, actor, now)
            return
        await self._ask_td(session, stage, tie, now)

    async def qualify_after_tiebreak(
        self,
        session: AsyncSession,
        stage: Stage,
        sure: list[int],
        won: list[str],
        actor: Actor,
        now: datetime,
    ) -> None:
        by_name = {p.lichess_id: p for p in await players(session, stage.seeding)}
        qualified = await players(session, sure) + [by_name[n] for n in won]
        names = [by_name[n].lichess_username for n in won]
        announce(session, self.config, now, wording.tiebreak_decided(names))
        swiss = await swiss_of(session, stage)  # the Swiss row itself, or the tiebreak's
        _, table = await self.progress.swiss_table(session)
        order = [p.lichess_id for p in qualified]
        await self._qualified(session, swiss, order, table, actor, now)

    async def _qualified(
        self,
        session: AsyncSession,
        swiss: Stage,
        qualified: list[str],
        table: list[SwissRow],
        actor: Actor,
        now: datetime,
    ) -> None:
        """The Swiss's ranking is final (its qualifiers first, in their order, as the
        tiebreak matches or the TD left them): saved, and what follows starts."""
        rest = [row.player for row in table if row.player not in qualified]
        await save_stage_outcome(session, swiss.key, now, ranking=[*qualified, *rest])
        await self.advance.run(session, actor, now)

    # --- the Candidates (III.F) ----------------------------------------------------------------

    async def _after_candidates(
        self, session: AsyncSession, stage: Stage, actor: Actor, now: datetime
    ) -> None:
        field = await players(session, stage.seeding)
        table, gone = await self.robin.table(session, stage, field)
        # The final crosstable is the last round's standings post (bot.features.tables), just
        # before what is announced here: one table per post, never the same table twice.
        tie = stage_rules.candidates_outcome(table, gone)
        if not tie.decided and not tie.tied:
            content = wording.candidates_without_result()
            notify_td(session, self.config, now=now, content=content)
            return
        if tie.tied:
            await self._ask_td(session, stage, tie, now)
            return
        await self.crown_challenger(session, stage, tie.decided, actor, now)

    async def crown_challenger(
        self, session: AsyncSession, stage: Stage, order: list[str], actor: Actor, now: datetime
    ) -> None:
        """The Candidates winner is the Challenger; the runner-up is kept for rule VIII.C."""
        by_name = {p.lichess_id: p for p in await players(session, stage.seeding)}
        outcome = [by_name[n].id for n in order[:2]]
        await save_outcome(session, stage, outcome, now)
        challenger = by_name[order[0]]
        runner_up = by_name[order[1]] if len(order) > 1 else None
        record(
            session,
            at=now,
            actor=actor,
            action="challenger_decided",
            subject_type="player",
            subject_id=challenger.id,
            details={"runner_up": runner_up.id if runner_up else None},
        )
        runner_up_name = runner_up.lichess_username if runner_up else None
        content = wording.challenger_announced(challenger.lichess_username, runner_up_name)
        announce(session, self.config, now, pinged([challenger, runner_up], content))
        ranked = [n for n, _ in await self.robin.ranking(session, stage, list(by_name.values()))]
        ranking = [*order, *(n for n in ranked if n not in order)]
        await save_stage_outcome(
            session, stage.key, now, ranking=ranking, pools={stage.pool: ranking}
        )
        await self.advance.run(session, actor, now)  # the Final (`FinalStage.start`)
        content = wording.challenger_to_td(challenger.lichess_username, runner_up_name)
        notify_td(session, self.config, now=now, content=content)

    # --- ties the TD breaks ----------------------------------------------------------------------

    async def _ask_td(
        self, session: AsyncSession, stage: Stage, tie: stage_rules.TieState, now: datetime
    ) -> None:
        """One DM to the TD with the tied players as buttons (rules III.E.5, III.F.3); a
        round-robin stage's DM opens with its table."""

        async def question(by_name: dict[str, Player]) -> str:
            table = ""
            if stage_kinds.is_robin(self.config.format, stage):
                results = await self.robin.results(session, stage)
                names = {p.lichess_id: p.lichess_username for p in by_name.values()}
                rows = berger.standings(
                    list(by_name), [r for r in results if r[0] in by_name and r[1] in by_name]
                )
                table = "\n".join(candidates_lines(rows, names)) + "\n"
            return table + wording.tie_question(
                stage.kind,
                [by_name[n].lichess_username for n in tie.tied],
                qualification=stage_kinds.is_qualification(self.config.format, stage),
                challenger_decided=bool(tie.decided),
                places=tie.places,
            )

        await ask_td_to_break(session, self.config, stage, tie, now, question)
