"""The simulation's rounds: every round open at once is played in the same week.

A week may have more than one round: the two pools of a round-robin stage play their rounds
side by side, the Grand Final and the Third Place Playoff start together, and the Semifinals
are one round of two matches. The driver reads every published round that still has matches
to agree (as ids, so a restarted run reads back the same), negotiates them all, plays their
matches in the order of their agreed times and waits until every one has its result.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from acwc_sim.negotiation import Negotiating
from db.models import Match, MatchState, Round, RoundState, Stage, StageKind


@dataclass(frozen=True)
class Playing:
    """One open round as the driver plays it: its stage row, the round, the matches still to
    agree, and the label the progress bar and the incidents use."""

    stage: Stage
    round: Round
    matches: list[Match]
    label: str


def label_of(stage: Stage, round_: Round) -> str:
    """ "swiss round 3" by the row's kind (as the 2019 runs have it), or for one pool of a
    round robin by the row's name ("Upper pool round 2")."""
    return f"{stage.name if stage.pool else stage.kind.value} round {round_.number}"


class Rounds(Negotiating):
    """The loop over the championship's weeks."""

    async def open_rounds(self) -> list[dict[str, Any]]:
        """Every round now being played that has boards still to agree a time: the latest
        published first (the 2019 engine has one at a time), then the others by stage and
        pool."""
        assert self.bot.sessions is not None
        async with self.bot.sessions() as session:
            rows = (
                await session.execute(
                    select(Round.id, Stage.position, Stage.pool)
                    .join(Stage, Stage.id == Round.stage_id)
                    .where(Round.state == RoundState.PUBLISHED)
                    .order_by(Round.published_at.desc(), Round.id.desc())
                )
            ).all()
            opened: list[dict[str, Any]] = []
            for round_id, _, _ in sorted(rows, key=lambda r: (r is not rows[0], r[1], r[2])):
                matches = list(
                    await session.scalars(
                        select(Match.id)
                        .where(Match.round_id == round_id, Match.state == MatchState.NEGOTIATING)
                        .order_by(Match.board)
                    )
                )
                if matches:
                    opened.append({"round": round_id, "matches": matches})
        return opened

    async def load(self, opened: dict[str, Any]) -> Playing:
        assert self.bot.sessions is not None
        async with self.bot.sessions() as session:
            round_ = await session.get(Round, opened["round"])
            assert round_ is not None
            stage = await session.get(Stage, round_.stage_id)
            by_id = {
                m.id: m
                for m in await session.scalars(select(Match).where(Match.id.in_(opened["matches"])))
            }
        assert stage is not None
        matches = [by_id[i] for i in opened["matches"]]
        return Playing(stage, round_, matches, label_of(stage, round_))

    async def play_week(self, number: int) -> bool:
        """The rounds open now (`number` counts the weeks the driver played): False when
        there is none left."""
        key = f"round:{number}"
        opened = await self.step(f"{key}:open", self.open_rounds)
        if not opened:
            return False
        week = [await self.load(o) for o in opened]
        for index, playing in enumerate(week):
            self.progress(
                playing.stage.name,
                f"{playing.stage.name} round {playing.round.number}",
                playing.round.number,
                # a stage whose rounds are not counted ahead (a final match) counts up to now
                max(playing.stage.total_rounds or 0, playing.round.number),
            )

            async def count(kind: str = playing.stage.kind.value) -> None:
                self.counters.rounds[kind] = self.counters.rounds.get(kind, 0) + 1

            await self.step(f"{key}:count" + (f":{index}" if index else ""), count)
        first = week[0]
        await self.step_at(f"{key}:start", first.round.starts_at + timedelta(hours=1))
        if first.stage.kind is StageKind.SWISS and first.round.number == 3:
            await self.withdraw_one(f"{key}:withdraw")
            reopened = await self.step(f"{key}:reopen", self.open_rounds)
            if not reopened:
                return True
            week = [await self.load(o) for o in reopened]
            first = week[0]
        if first.stage.kind is StageKind.SWISS and first.round.number == 2:
            await self.report_a_cheat(f"{key}:cheat")
        boards = 0
        for index, playing in enumerate(week):
            part = key + (f":{index}" if index else "")
            await self.negotiate(
                part, playing.stage, playing.round, playing.matches, playing.label, first=boards
            )
            boards += len(playing.matches)
        if self.faults is not None:
            self.faults.each_round()
        await self.play_matches(key, week)
        await self.settle(key, [p.round for p in week])
        if first.stage.kind is StageKind.SWISS and first.round.number == 2:
            await self.decide_the_cheat_report(f"{key}:cheat-decided")
        await self.break_ties(f"{key}:tie")
        return True

    async def settle(self, key: str, rounds: list[Round]) -> None:
        """Let the jobs run until the rounds have every result: a poll that failed (Lichess
        down) reads the games again at the next turn."""
        for turn in range(30):
            left = await self.step(f"{key}:settle:{turn}", lambda: self.results_missing(rounds))
            if not left:
                return
            await self.step_at(
                f"{key}:settle:{turn}:jobs", lambda: self.clock.now() + timedelta(minutes=5)
            )

    async def results_missing(self, rounds: list[Round]) -> bool:
        left = await self.scalar(
            select(Match.id)
            .where(
                Match.round_id.in_([r.id for r in rounds]),
                Match.state.in_((MatchState.SCHEDULED, MatchState.IN_PROGRESS)),
            )
            .limit(1)
        )
        return left is not None

    async def play_matches(self, key: str, week: list[Playing]) -> None:
        """The matches of every open round in the order of their agreed times; those agreed
        at the weekend (rule V.H) once the clock has reached it."""
        first = week[0].round
        saturday = first.starts_at + timedelta(hours=self.bot.config.negotiation.weekend_hours)
        by_round = {p.round.id: p for p in week}

        async def agreed_matches() -> list[int]:
            assert self.bot.sessions is not None
            async with self.bot.sessions() as session:
                return list(
                    await session.scalars(
                        select(Match.id)
                        .where(Match.round_id.in_(list(by_round)), Match.agreed_time.is_not(None))
                        .order_by(Match.agreed_time, Match.id)
                    )
                )

        ids = await self.step(f"{key}:agreed", agreed_matches)
        before = await self.matches_by_id(ids)
        played: list[int] = []
        if self.weekend:
            played = [i for i in ids if (before[i].agreed_time or saturday) < saturday]
            await self.play_in_order(by_round, [before[i] for i in played])
            await self.weekend_rulings(key, first, week[0].label)
            ids = await self.step(f"{key}:agreed:weekend", agreed_matches)
            before = await self.matches_by_id(ids)
        rest = [before[i] for i in ids if i not in played]
        await self.play_in_order(by_round, rest, first_index=len(played))

    async def matches_by_id(self, ids: list[int]) -> dict[int, Match]:
        assert self.bot.sessions is not None
        async with self.bot.sessions() as session:
            return {m.id: m for m in await session.scalars(select(Match).where(Match.id.in_(ids)))}

    def incident_places(self, count: int) -> tuple[int, int, int]:
        """Which match, in the order played, has the break and which the /left (Swiss round
        1), and which the no-show claim (round 2): drawn from the seed among the matches
        agreed by the players (the last ones' times are assigned or chosen)."""
        dice = random.Random(f"{self.seed}:incident-places:{count}")
        agreed = max(2, count - 2)
        brk, left = dice.sample(range(agreed), 2)
        return brk, left, dice.randrange(agreed)

    async def play_in_order(
        self, by_round: dict[int, Playing], matches: list[Match], first_index: int = 0
    ) -> None:
        players = await self.names()
        count = sum(len(p.matches) for p in by_round.values())
        brk_at, left_at, noshow_at = self.incident_places(count)
        reminders = self.bot.config.negotiation.match_reminders_hours
        for index, match in enumerate(matches, start=first_index):
            playing = by_round[match.round_id]
            stage, round_ = playing.stage, playing.round
            swiss = stage.kind is StageKind.SWISS
            assert match.agreed_time is not None
            a, b = players[match.player_a_id], players[match.player_b_id or 0]
            start = match.agreed_time
            for hours in sorted(self.bot.config.negotiation.match_reminders_hours, reverse=True):
                # the reminders go out when due (a moment passed already is not gone back to)
                await self.step_at(
                    f"play:{match.id}:remind:{hours}", start - timedelta(hours=hours)
                )
            await self.step_at(f"play:{match.id}:link", start)  # the agreed minute
            if swiss and round_.number == 2 and index == noshow_at:
                start = await self.noshow_then_arrival(
                    f"play:{match.id}:noshow", match, a, b, start, playing.label
                )
            brk = swiss and round_.number == 1 and index == brk_at
            left = swiss and round_.number == 1 and index == left_at
            last = await self.play_games(stage, match, a, b, start, brk=brk, left=left)
            # the results are read after the last game; never past the next match's first
            # reminder, which would then go out late
            after = last + timedelta(minutes=20)
            following = matches[index - first_index + 1 :]
            if following and following[0].agreed_time is not None and reminders:
                due = following[0].agreed_time - timedelta(hours=max(reminders))
                after = max(last + timedelta(minutes=1), min(after, due))
            await self.step_at(f"play:{match.id}:after", after)
