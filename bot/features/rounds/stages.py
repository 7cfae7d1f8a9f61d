"""From one stage to the next: the end of the Swiss (rules III.E.4-5), tiebreak matches, the
Candidates round robin (rule III.F) and who plays the Final.

A round robin stage (tiebreak matches, the Candidates) is a Berger schedule over the
stage's seeding; its rounds are one a week from the Monday after the previous stage's last
deadline (rule IV), and the next round is published as soon as the last result of the
previous one is in. Where the rules leave a tie to the TD, the bot asks once, with one
button per tied player (`decide_tie`), and goes on by itself after the answer.
"""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.audit import Actor, record, record_td_decision
from bot.errors import InvalidInput, WrongStage
from bot.events import RoundComplete, StageFinished
from bot.features.rounds.final import FinalStage
from bot.features.rounds.robin import PENDING_TIE, ROBIN_STAGES, TIE_VIEW
from bot.features.rounds.stage_text import candidates_lines, qualification_lines
from bot.features.rounds.types import ResultRecorded, TieChoice
from bot.rules import candidates as berger
from bot.rules import swiss_table
from bot.rules.stages import candidates_tie, cut, next_monday, shared_ranks
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import Player, Round, RoundState, Setting, Stage, StageKind, StageState


class StageFlow(FinalStage):
    """Closing rounds of every stage, and what follows the last round of a stage."""

    async def after_result(
        self, session: AsyncSession, round_id: int, actor: Actor, now: datetime
    ) -> ResultRecorded:
        """Close the round when its last match is decided, then pair or publish the next."""
        round_ = await session.get(Round, round_id)
        assert round_ is not None
        if await self._open_matches(session, round_id):
            return ResultRecorded(round_id, False, None, False)
        round_.state = RoundState.FINISHED
        stage = await session.get(Stage, round_.stage_id)
        assert stage is not None
        complete = RoundComplete(actor, round_id=round_.id, stage_id=stage.id)
        await self.events.publish(session, complete, now)
        if round_.number >= (stage.total_rounds or 0):
            await self._finish_stage(session, stage, round_, actor, now)
            return ResultRecorded(round_id, True, None, True)
        if stage.kind in ROBIN_STAGES:
            published = await self._publish_robin_round(
                session, stage, round_.number + 1, actor, now
            )
            if published.round_id and not await self._open_matches(session, published.round_id):
                # every match of it was decided at once (a player who left): go on
                await self.after_result(session, published.round_id, actor, now)
            return ResultRecorded(round_id, True, published, False)
        if self.config.swiss.confirm_before_publish:
            notify_td(
                session,
                self.config,
                now=now,
                content=(
                    f"Round {round_.number} is complete. Publish round "
                    f"{round_.number + 1} with /td round publish."
                ),
            )
            return ResultRecorded(round_id, True, None, False)
        preview = await self._pair_or_tell_td(session, now)
        if preview is None:
            return ResultRecorded(round_id, True, None, False)
        published = await self._publish(session, stage, preview, actor, now)
        return ResultRecorded(round_id, True, published, False)

    async def _finish_stage(
        self, session: AsyncSession, stage: Stage, last: Round, actor: Actor, now: datetime
    ) -> None:
        stage.state, stage.finished_at = StageState.FINISHED, now
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
        if stage.kind is StageKind.SWISS:
            await self._after_swiss(session, stage, last, actor, now)
        elif stage.kind is StageKind.TIEBREAK:
            await self._after_tiebreak(session, stage, actor, now)
        elif stage.kind is StageKind.CANDIDATES:
            await self._after_candidates(session, stage, actor, now)

    # --- the end of the Swiss (III.E.4-5) ------------------------------------------------------

    async def _after_swiss(
        self, session: AsyncSession, stage: Stage, last: Round, actor: Actor, now: datetime
    ) -> None:
        _, players, results, withdrawn, _ = await self._swiss_state(session)
        table = swiss_table.standings(
            [p.lichess_id for p in players],
            results,
            withdrawn=withdrawn,
            short_median_buchholz=self.config.swiss.short_median_buchholz,
        )
        names = {p.lichess_id: p for p in players}
        places = self.config.swiss.qualifiers
        active = shared_ranks([(row.player, row.rank) for row in table if not row.withdrawn])
        sure, tied = cut(active, places)
        self._announce(
            session,
            now,
            "\n".join(
                qualification_lines(
                    [(names[r.player].lichess_username, r) for r in table], places, sure, tied
                )
            ),
        )
        if not tied:
            await self._start_candidates(
                session, [names[p] for p in sure], last.deadline, actor, now
            )
            return
        await self._save_outcome(session, stage, [names[p].id for p in sure], now)
        tiebreak = Stage(
            kind=StageKind.TIEBREAK,
            state=StageState.RUNNING,
            started_at=next_monday(last.deadline),
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
        await self._publish_robin_round(session, tiebreak, 1, actor, now)

    async def _after_tiebreak(
        self, session: AsyncSession, stage: Stage, actor: Actor, now: datetime
    ) -> None:
        swiss = await self._stage(session, StageKind.SWISS)
        sure = await self._outcome(session, swiss)
        group = await self._players(session, stage.seeding)
        places = self.config.swiss.qualifiers - len(sure)
        ranked = await self._robin_ranking(session, stage, group)
        won, tied = cut(ranked, places)
        if not tied:
            await self._qualify_after_tiebreak(session, stage, sure, won, actor, now)
            return
        await self._ask_td(session, stage, won, tied, places - len(won), now)

    async def _qualify_after_tiebreak(
        self,
        session: AsyncSession,
        stage: Stage,
        sure: list[int],
        won: list[str],
        actor: Actor,
        now: datetime,
    ) -> None:
        by_name = {p.lichess_id: p for p in await self._players(session, stage.seeding)}
        qualified = await self._players(session, sure) + [by_name[n] for n in won]
        self._announce(
            session,
            now,
            "🏁 Tiebreak decided: "
            + ", ".join(f"**{by_name[n].lichess_username}**" for n in won)
            + " qualif"
            + ("ies" if len(won) == 1 else "y")
            + " for the Candidates.",
        )
        last = await session.scalar(
            select(Round).where(Round.stage_id == stage.id).order_by(Round.number.desc()).limit(1)
        )
        assert last is not None
        await self._start_candidates(session, qualified, last.deadline, actor, now)

    # --- the Candidates (III.F) ----------------------------------------------------------------

    async def _start_candidates(
        self,
        session: AsyncSession,
        qualified: list[Player],
        after: datetime,
        actor: Actor,
        now: datetime,
    ) -> None:
        """The Swiss qualifiers (best first) and the pre-seeded Candidates (rule III.D)."""
        pre_seeded = (
            await session.scalars(
                select(Player).where(
                    Player.pre_seeded_stage == StageKind.CANDIDATES,
                    Player.withdrawn_at.is_(None),
                    Player.disqualified_at.is_(None),
                )
            )
        ).all()
        field = [*qualified, *(p for p in pre_seeded if p not in qualified)]
        stage = Stage(
            kind=StageKind.CANDIDATES,
            state=StageState.RUNNING,
            started_at=next_monday(after),
            seeding=[p.id for p in field],
            total_rounds=len(berger.schedule([p.lichess_id for p in field])),
        )
        session.add(stage)
        await session.flush()
        record(
            session,
            at=now,
            actor=actor,
            action="candidates_started",
            subject_type="stage",
            subject_id=stage.id,
            details={"players": [p.lichess_id for p in field]},
        )
        self._announce(
            session,
            now,
            f"🏆 **The Candidates** ({len(field)} players, rule III.F): "
            + ", ".join(f"**{p.lichess_username}**" for p in field)
            + ". The winner challenges the champion in the Final.",
        )
        if stage.total_rounds:
            await self._publish_robin_round(session, stage, 1, actor, now)

    async def _after_candidates(
        self, session: AsyncSession, stage: Stage, actor: Actor, now: datetime
    ) -> None:
        field = await self._players(session, stage.seeding)
        ranked = await self._robin_ranking(session, stage, field)
        # The final crosstable is the last round's standings post (bot.features.tables), just
        # before what is announced here: one table per post, never the same table twice.
        decided, tied = candidates_tie(ranked)
        if not decided and not tied:
            notify_td(
                session,
                self.config,
                now=now,
                content="The Candidates are over without a result to rank: decide the Final.",
            )
            return
        if tied:
            await self._ask_td(session, stage, decided, tied, 1, now)
            return
        await self._crown_challenger(session, stage, decided, actor, now)

    async def _crown_challenger(
        self, session: AsyncSession, stage: Stage, order: list[str], actor: Actor, now: datetime
    ) -> None:
        """The Candidates winner is the Challenger; the runner-up is kept for rule VIII.C."""
        by_name = {p.lichess_id: p for p in await self._players(session, stage.seeding)}
        outcome = [by_name[n].id for n in order[:2]]
        await self._save_outcome(session, stage, outcome, now)
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
        self._announce(
            session,
            now,
            f"⚔️ **{challenger.lichess_username}** wins the Candidates and is the Challenger"
            + (f"; **{runner_up.lichess_username}** is the runner-up" if runner_up else "")
            + ".",
        )
        last = await session.scalar(
            select(Round).where(Round.stage_id == stage.id).order_by(Round.number.desc()).limit(1)
        )
        await self._start_final(
            session, challenger, runner_up, last.deadline if last else now, actor, now
        )
        notify_td(
            session,
            self.config,
            now=now,
            content=(
                f"The Candidates are over: {challenger.lichess_username} is the Challenger"
                + (
                    f", {runner_up.lichess_username} the runner-up (rule VIII.C)."
                    if runner_up
                    else "."
                )
            ),
        )

    # --- ties the TD breaks ----------------------------------------------------------------------

    async def _ask_td(
        self,
        session: AsyncSession,
        stage: Stage,
        decided: list[str],
        tied: list[str],
        places: int,
        now: datetime,
    ) -> None:
        """One DM to the TD with the tied players as buttons (rules III.E.5, III.F.3)."""
        players = {p.lichess_id: p for p in await self._players(session, stage.seeding)}
        pending = {
            "stage_id": stage.id,
            "decided": decided,
            "tied": tied,
            "places": places,
        }
        await self._set(session, PENDING_TIE, json.dumps(pending), now)
        table = ""
        if stage.kind is StageKind.CANDIDATES:
            results = await self._robin_results(session, stage)
            names = {p.lichess_id: p.lichess_username for p in players.values()}
            rows = berger.standings(
                list(players), [r for r in results if r[0] in players and r[1] in players]
            )
            table = "\n".join(candidates_lines(rows, names)) + "\n"
        what = (
            "qualify for the Candidates"
            if stage.kind is StageKind.TIEBREAK
            else "be the Challenger"
            if not decided
            else "be the runner-up"
        )
        notify_td(
            session,
            self.config,
            now=now,
            content=table
            + (
                f"⚖️ The {stage.kind.value} ends with a tie the rules leave to you: "
                + ", ".join(players[n].lichess_username for n in tied)
                + f". Press who should {what}"
                + (f" ({places} places)." if places > 1 else ".")
            ),
            view=(
                TIE_VIEW,
                {"players": [[players[n].id, players[n].lichess_username] for n in tied]},
            ),
        )

    async def decide_tie(self, *, td_id: int, player_id: int) -> TieChoice:
        """The TD picks one of the tied players; the stage goes on once the places are full."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            raw = await session.get(Setting, PENDING_TIE)
            if raw is None:
                raise WrongStage("There is no tie waiting for your decision.")
            pending = json.loads(raw.value)
            stage = await session.get(Stage, int(pending["stage_id"]))
            player = await session.get(Player, player_id)
            if stage is None or player is None or player.lichess_id not in pending["tied"]:
                raise InvalidInput("That player is not part of the tie; press one of the others.")
            decided = [*pending["decided"], player.lichess_id]
            tied = [n for n in pending["tied"] if n != player.lichess_id]
            places = int(pending["places"]) - 1
            if stage.kind is StageKind.CANDIDATES and len(decided) < 2 and tied:
                places = 1  # the Challenger is chosen; the runner-up comes from the rest
            if places > 0 and len(tied) == places:  # the rest fill the places by themselves
                decided, tied, places = decided + tied, [], 0
            record_td_decision(
                session,
                at=now,
                td_id=td_id,
                kind="stage_tie",
                subject_type="stage",
                subject_id=stage.id,
                decision=player.lichess_id,
                reason=None,
            )
            actor = Actor.td(td_id)
            if places > 0:
                pending.update(decided=decided, tied=tied, places=places)
                raw.value, raw.updated_at = json.dumps(pending), now
                return TieChoice(player.lichess_username, done=False)
            await session.delete(raw)
            await session.flush()
            if stage.kind is StageKind.TIEBREAK:
                swiss = await self._stage(session, StageKind.SWISS)
                sure = await self._outcome(session, swiss)
                await self._qualify_after_tiebreak(session, stage, sure, decided, actor, now)
            else:
                ranked = await self._robin_ranking(
                    session, stage, await self._players(session, stage.seeding)
                )
                order = decided + [n for n, _ in ranked if n not in decided]
                await self._crown_challenger(session, stage, order, actor, now)
            return TieChoice(player.lichess_username, done=True)
