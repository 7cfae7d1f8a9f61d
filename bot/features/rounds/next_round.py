"""The next Swiss round (rule IV.E): paired with no transaction open, written in a short one.

Pairing a late round of a large field takes a while (benchmarks/pairing.py), so it never
runs inside the transaction of the result that completed the round before it: that result
commits first (`db.engine.after_commit` starts the pairing once it has), the pairing runs
in a worker thread with `swiss.pairing_timeout_seconds` while no session is open, and the
new round is written in a transaction of its own that first takes the stage's write lock
and re-checks the state it paired (the round still complete, no next round yet, the same
results), so a second or concurrent run cannot pair it twice. A bot that dies between the
two transactions pairs at its next deadline sweep (`pair_waiting`). A pairing that fails or
does not finish in time is left to the TD (`/td round publish`), told once.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import update
from sqlalchemy.engine import CursorResult
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import stage_kinds
from bot.audit import Actor
from bot.clock import Clock
from bot.config import Config
from bot.errors import WrongStage
from bot.features.rounds import records
from bot.features.rounds import text as wording
from bot.features.rounds.progress import RoundProgress
from bot.features.rounds.types import PairingFailed, RoundPreview
from bot.rules import swiss
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import Player, RoundState, Setting, Stage, StageState

log = logging.getLogger(__name__)
PAIRING_FAILED = "pairing_failed:"  # Setting key prefix + round id: the TD was told


@dataclass(frozen=True)
class SwissInputs:
    """What the next round is paired from, loaded in a session that is closed before the
    pairing starts (plain values: nothing here touches the database)."""

    stage_id: int
    after_round_id: int
    number: int
    total_rounds: int | None
    players: list[Player]
    results: tuple[swiss.Result, ...]  # in the order the pairing has always been given them
    withdrawn: frozenset[str]

    def same_state(self, other: SwissInputs) -> bool:
        """Whether `other` pairs the same: the same results (in any order), withdrawals."""
        mine = sorted(self.results, key=_result_order)
        return mine == sorted(other.results, key=_result_order) and (
            self.withdrawn == other.withdrawn
        )


class SwissNextRound:
    """Pairs and publishes the Swiss round after a complete one: for the TD (`publish_next`),
    after the result that completed a round (`pair_after`), and at the sweep after a restart
    (`pair_waiting`)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        progress: RoundProgress,
    ) -> None:
        self.sessions = sessions
        self.config = config
        self.clock = clock
        self.progress = progress
        # One pairing at a time in this process: a sweep that meets a pairing under way
        # waits for it, then finds the round paired, instead of pairing it a second time
        # in another thread (the write's re-check is what guards other processes).
        self._one_at_a_time = asyncio.Lock()

    async def publish_next(self, *, actor: Actor) -> RoundPreview:
        """The TD's /td round publish: what stands in the way is refused (`WrongStage`), a
        pairing that fails is `PairingFailed`; nothing is written then."""
        async with self._one_at_a_time:
            async with self.sessions() as session:
                inputs = await self._inputs(session, after=None)
            preview = await self._pair(inputs)
            published = await self._write(inputs, preview, actor)
        if published is None:
            raise WrongStage(wording.round_changed_meanwhile(inputs.number))
        return published

    async def pair_after(self, round_id: int, actor: Actor) -> RoundPreview | None:
        """Round `round_id` was closed by a transaction that has committed: pair and publish
        the next one, or tell the TD why it could not be paired. None when nothing was
        published. Never raises: the result that closed the round stands whatever happens
        here, and an unforeseen error is left to the next sweep."""
        async with self._one_at_a_time:
            return await self._pair_after(round_id, actor)

    async def _pair_after(self, round_id: int, actor: Actor) -> RoundPreview | None:
        try:
            async with self.sessions() as session:
                inputs = await self._inputs(session, after=round_id)
        except WrongStage:
            return None  # not (or no longer) to be paired: another run or the TD did it
        try:
            preview = await self._pair(inputs)
            return await self._write(inputs, preview, actor)
        except PairingFailed as exc:
            log.warning("the next Swiss round was not paired: %s", exc)
            await self._tell_td(inputs, str(exc))
        except Exception:
            log.exception("pairing Swiss round %d failed; the sweep tries again", inputs.number)
        return None

    async def pair_waiting(self) -> int:
        """The deadline sweep's step: a Swiss round closed with no next round and no failed
        attempt is one the bot died before pairing; pair it now. Returns 1 when it did."""
        if self.config.swiss.confirm_before_publish:
            return 0
        async with self.sessions() as session:
            stage_row = await stage_kinds.swiss_row(session, self.config.format)
            if stage_row is None or stage_row.state is not StageState.RUNNING:
                return 0
            latest = await records.last_round(session, stage_row)
            if (
                latest is None
                or latest.state is not RoundState.FINISHED
                or latest.number >= (stage_row.total_rounds or 0)
                or await session.get(Setting, PAIRING_FAILED + str(latest.id)) is not None
            ):
                return 0
            latest_id = latest.id
        return 1 if await self.pair_after(latest_id, Actor.job()) else 0

    # --- the three steps ----------------------------------------------------------------------

    async def _inputs(self, session: AsyncSession, *, after: int | None) -> SwissInputs:
        """The state the next round is paired from; `WrongStage` when there is none to pair
        (or, with `after`, when the round after `after` exists already)."""
        stage, players, results, withdrawn, rounds = await self.progress.swiss_state(session)
        if stage.state is StageState.FINISHED:
            raise WrongStage(wording.qualification_finished())
        current = max(rounds, key=lambda r: r.number)
        if after is not None and current.id != after:
            raise WrongStage(wording.round_changed_meanwhile(current.number + 1))
        still_open = await records.open_matches(session, current.id)
        if still_open:
            raise WrongStage(wording.round_still_open(current.number, len(still_open)))
        if current.number >= (stage.total_rounds or 0):
            raise WrongStage(wording.all_rounds_played())
        return SwissInputs(
            stage.id,
            current.id,
            current.number + 1,
            stage.total_rounds,
            players,
            tuple(results),
            frozenset(withdrawn),
        )

    async def _pair(self, inputs: SwissInputs) -> RoundPreview:
        """The pairing, with no session open meanwhile."""
        return await pair_in_worker(
            self.progress,
            inputs.players,
            number=inputs.number,
            results=list(inputs.results),
            withdrawn=set(inputs.withdrawn),
            total_rounds=inputs.total_rounds,
            limit=self.config.swiss.pairing_timeout_seconds,
        )

    async def _write(
        self, inputs: SwissInputs, preview: RoundPreview, actor: Actor
    ) -> RoundPreview | None:
        """The round, in a transaction that first takes the stage's write lock (racing
        writers queue behind it) and then finds the state it paired unchanged; None when
        it changed (another run paired it, a result was corrected, the stage ended)."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            taken = await session.execute(
                update(Stage)
                .where(Stage.id == inputs.stage_id, Stage.state == StageState.RUNNING)
                .values(state=StageState.RUNNING)
            )
            if cast(CursorResult[Any], taken).rowcount != 1:
                return None
            try:
                now_inputs = await self._inputs(session, after=inputs.after_round_id)
            except WrongStage:
                return None
            if not now_inputs.same_state(inputs):
                return None
            stage = await session.get(Stage, inputs.stage_id)
            assert stage is not None
            return await self.progress.publish(session, stage, preview, actor, now)

    async def _tell_td(self, inputs: SwissInputs, message: str) -> None:
        """The TD hears why the round was not paired (and what to do); the mark keeps the
        sweep from trying again every minute: `/td round publish` is the TD's."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            key = PAIRING_FAILED + str(inputs.after_round_id)
            if await session.get(Setting, key) is None:
                session.add(Setting(key=key, value=str(inputs.number), updated_at=now))
            notify_td(session, self.config, now=now, content=message)


async def pair_in_worker(
    progress: RoundProgress,
    players: list[Player],
    *,
    number: int,
    results: list[swiss.Result],
    withdrawn: set[str],
    total_rounds: int | None,
    limit: float,
) -> RoundPreview:
    """Round `number` paired in a worker thread, so that the bot keeps answering meanwhile
    (a late round of a large field takes a while: benchmarks/pairing.py), within `limit`
    seconds (`swiss.pairing_timeout_seconds`); `PairingFailed` when no valid pairing
    exists or none comes in time. The players and results are plain loaded values:
    nothing here touches a session."""
    paired = asyncio.to_thread(
        progress.preview,
        players,
        number=number,
        results=results,
        withdrawn=withdrawn,
        total_rounds=total_rounds,
    )
    try:
        return await asyncio.wait_for(paired, timeout=limit)
    except TimeoutError:  # the thread cannot be stopped; its answer is dropped
        why = wording.pairing_too_slow(limit)
        raise PairingFailed(wording.pairing_failed(number, why)) from None
    except ValueError as exc:
        why = wording.no_valid_pairing(str(exc))
        raise PairingFailed(wording.pairing_failed(number, why)) from None


def _result_order(result: swiss.Result) -> tuple[str, str, float, float]:
    a, b, points_a, points_b = result
    return (a, b or "", points_a, points_b)
