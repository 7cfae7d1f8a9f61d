"""The end of the rows of the formats after 2019: a pool of a round robin stage with
several pools (its places by the stage's tiebreak chain, `bot.rules.tiebreaks_robin.
pool_ranking`; a tie on a place that moves on is the TD's, per pool), a knock-out (its
winners by pairing name) and a final match other than 2019's (the champion or third place,
by its `places`). Once every row of a format stage is finished its outcome is saved and
what follows starts (`bot.features.rounds.advance.StageAdvance`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.audit import Actor, record
from bot.config import Config
from bot.events import EventBus, StageFinished
from bot.features.matches.context import announce, pinged
from bot.features.rounds import records
from bot.features.rounds import stage_text as words
from bot.features.rounds import text as wording
from bot.features.rounds.advance import StageAdvance
from bot.features.rounds.records import players
from bot.features.rounds.robin import RobinRounds
from bot.features.rounds.starters import is_2019_final
from bot.features.rounds.verdict import result_line
from bot.format.model import Format, PoolPlaces, PreSeeded, RoundRobinStage
from bot.rules import stages as stage_rules
from bot.rules.tiebreaks_robin import pool_ranking
from bot.td_alerts import notify_td
from db.models import Match, Player, Round, RoundState, Stage, StageKind, StageState

POOL_ORDERS = "pool_orders"  # the saved outcome's field: the pools decided so far


def moving_places(fmt: Format, key: str, pool: str) -> set[int]:
    """The places of `pool` of stage `key` that later stages take."""
    out: set[int] = set()
    for stage in fmt.stages:
        for rule in stage.entry:
            target = rule.if_absent if isinstance(rule, PreSeeded) else rule
            if isinstance(target, PoolPlaces) and target.stage == key:
                out |= {place for p, place in target.places if p == pool}
    return out


def is_pool_row(config: Config, stage: Stage) -> bool:
    """A row of a round robin stage the 2019 Candidates code does not run (several pools)."""
    if stage.kind is not StageKind.CANDIDATES:
        return False
    spec = config.format.stage(stage.key)
    return isinstance(spec, RoundRobinStage) and spec.placement != "single"


class StageEnds:
    """What the end of a pool, a knock-out or a final match decides."""

    def __init__(
        self, config: Config, events: EventBus, robin: RobinRounds, advance: StageAdvance
    ) -> None:
        self.config = config
        self.events = events
        self.robin = robin
        self.advance = advance

    async def row_finished(
        self, session: AsyncSession, stage: Stage, actor: Actor, now: datetime
    ) -> bool:
        """The last round of a pool of several or of a knock-out is closed: what it
        decides. False for the rows the 2019 code runs (`StageFlow`)."""
        if is_pool_row(self.config, stage):
            await self.pool_finished(session, stage, actor, now)
            return True
        if stage.kind is StageKind.KNOCKOUT:
            await self.knockout_finished(session, stage, actor, now)
            return True
        return False

    async def final_match_finished(
        self, session: AsyncSession, match: Match, actor: Actor, now: datetime
    ) -> bool:
        """A match of a final match stage other than 2019's Final is decided: its places.
        False for any other match (2019's Final is `FinalStage.crown_champion`'s)."""
        round_ = await session.get(Round, match.round_id)
        row = await session.get(Stage, round_.stage_id) if round_ is not None else None
        if round_ is None or row is None or row.kind is not StageKind.FINAL:
            return False
        if is_2019_final(self.config.format.stage(row.key)):
            return False
        if row.state is StageState.FINISHED:
            return True
        if await self.final_match_decided(session, row, match, actor, now) is not None:
            round_.state = RoundState.FINISHED
            event = StageFinished(actor, stage_id=row.id, kind=row.kind.value)
            await self.events.publish(session, event, now)
        return True

    # --- a pool ---------------------------------------------------------------------------

    async def pool_finished(
        self,
        session: AsyncSession,
        stage: Stage,
        actor: Actor,
        now: datetime,
        fixed: list[str] | None = None,
    ) -> None:
        """The pool's places by the chain; a tie on a place that moves on goes to the TD
        (`fixed`: the order the TD gave so far)."""
        spec = self.config.format.stage(stage.key)
        assert isinstance(spec, RoundRobinStage)
        field = await players(session, stage.seeding)
        results = await self.robin.results(session, stage)
        gone = [p.lichess_id for p in field if p.withdrawn_at or p.disqualified_at]
        rows = pool_ranking(
            [p.lichess_id for p in field],
            results,
            spec.tiebreaks,
            previous_final=self._previous_final(),
            earlier_places=await self._earlier_places(session, spec),
            withdrawn=gone,
        )
        moving = moving_places(self.config.format, stage.key, stage.pool)
        tie = stage_rules.pool_tie([(r.player, r.rank) for r in rows], moving, fixed or [])
        if not tie.done:
            await self._ask_td(session, stage, tie, now)
            return
        by_name = {p.lichess_id: p for p in field}
        names = [by_name[n].lichess_username for n in tie.decided]
        announce(session, self.config, now, words.pool_places(stage.name, names))
        saved = await records.stage_outcome(session, stage.key)
        orders = {**saved.get(POOL_ORDERS, {}), stage.pool: tie.decided}
        await records.save_stage_outcome(session, stage.key, now, **{POOL_ORDERS: orders})
        if set(orders) >= {pool.key for pool in spec.pools}:
            await records.save_stage_outcome(session, stage.key, now, pools=orders)
            await self.advance.run(session, actor, now)

    def _previous_final(self) -> list[str]:
        """The previous edition's champion and runner-up (`previous_final`)."""
        by_role = {p.role: p.lichess.lower() for p in self.config.players.pre_seeded if p.role}
        return [by_role[r] for r in ("champion", "runner_up") if r in by_role]

    async def _earlier_places(self, session: AsyncSession, spec: RoundRobinStage) -> dict[str, int]:
        """The places in the Swiss (`earlier_stage_place`)."""
        swiss = self.config.format.of_kind("swiss")
        if not swiss:
            return {}
        ranking = (await records.stage_outcome(session, swiss[0].key)).get("ranking", [])
        return {player: place for place, player in enumerate(ranking, start=1)}

    async def _ask_td(
        self, session: AsyncSession, stage: Stage, tie: stage_rules.TieState, now: datetime
    ) -> None:
        async def question(by_name: dict[str, Player]) -> str:
            tied = [by_name[n].lichess_username for n in tie.tied]
            return words.pool_tie_question(stage.name, tied, len(tie.decided) + 1)

        await records.ask_td_to_break(session, self.config, stage, tie, now, question)

    # --- a knock-out ------------------------------------------------------------------------

    async def knockout_finished(
        self, session: AsyncSession, stage: Stage, actor: Actor, now: datetime
    ) -> None:
        """Every match decided: the winners by pairing name, then what follows."""
        saved = await records.stage_outcome(session, stage.key)
        pairings = records.as_outcome(saved).pairings
        matches = await _matches(session, stage)
        winners: dict[str, str] = {}
        lines: list[tuple[str, str, str]] = []
        for board, pairing in enumerate(pairings, start=1):
            match = matches.get(board)
            winner = await _winner(session, match) if match is not None else None
            if winner is None:
                notify_td(
                    session, self.config, now=now, content=words.knockout_undecided(pairing.name)
                )
                return
            loser = pairing.second if winner.lichess_id == pairing.first else pairing.first
            lost = await session.scalar(select(Player).where(Player.lichess_id == loser))
            winners[pairing.name] = winner.lichess_id
            lines.append(
                (pairing.name, winner.lichess_username, lost.lichess_username if lost else loser)
            )
        announce(session, self.config, now, words.knockout_winners(stage.name, lines))
        await records.save_stage_outcome(session, stage.key, now, winners=winners)
        await self.advance.run(session, actor, now)

    # --- a final match ----------------------------------------------------------------------

    async def final_match_decided(
        self, session: AsyncSession, stage: Stage, match: Match, actor: Actor, now: datetime
    ) -> Player | None:
        """A final match other than 2019's: its winner takes its first place."""
        a = await session.get(Player, match.player_a_id)
        b = await session.get(Player, match.player_b_id or 0)
        winner = await _winner(session, match)
        if a is None or b is None or winner is None:
            return None
        stage.state, stage.finished_at = StageState.FINISHED, now
        spec = self.config.format.stage(stage.key)
        places = getattr(spec, "places", (1, 2))
        record(
            session,
            at=now,
            actor=actor,
            action="champion_crowned" if places[0] == 1 else "places_decided",
            subject_type="player",
            subject_id=winner.id,
            details={
                "key": stage.key,
                "places": list(places),
                "score": [match.score_a, match.score_b],
            },
        )
        result = await result_line(session, self.config, stage, match, winner)
        if places[0] == 1:
            content = wording.champion_crowned(
                winner.lichess_username, self.config.tournament.name, stage.name, result
            )
        else:
            content = words.place_decided(stage.name, places[0], winner.lichess_username, result)
        announce(session, self.config, now, pinged([winner], content))
        saved = await records.stage_outcome(session, stage.key)
        pairings = records.as_outcome(saved).pairings
        name = pairings[0].name if pairings else stage.name
        await records.save_stage_outcome(session, stage.key, now, winners={name: winner.lichess_id})
        await self.advance.run(session, actor, now)
        return winner


async def _matches(session: AsyncSession, stage: Stage) -> dict[int, Match]:
    """The row's match on each board: the latest (a match voided when a player left is
    replaced by a later one on its board, `bot.features.rounds.leaving`)."""
    return await records.live_matches(session, stage)


async def _winner(session: AsyncSession, match: Match) -> Player | None:
    """A decided match's winner (a forfeit's, or more points: the results feature stores a
    knock-out or final match's winner as its points, Armageddon too); None when level."""
    if match.forfeit_winner_id is not None:
        return await session.get(Player, match.forfeit_winner_id)
    a, b = match.points_a, match.points_b
    if a is None or b is None or a == b:
        return None
    return await session.get(Player, match.player_a_id if a > b else match.player_b_id or 0)
