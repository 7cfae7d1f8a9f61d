"""The TD's side of rule V: assign a match time, rule who is at fault."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor, record_td_decision
from bot.clock import Clock
from bot.config import Config
from bot.errors import InvalidInput, WrongStage
from bot.events import EventBus
from bot.features.discipline.ruled_draw import rule_draw
from bot.features.matches.context import (
    MatchContext,
    context_by_id,
    load_context,
    match_label,
    mention,
    place_of,
    post_for_match,
)
from bot.features.matches.text import match_label as match_label_text
from bot.features.negotiation import td_text as td_wording
from bot.features.negotiation import text as wording
from bot.features.negotiation.agreement import (
    MATCH_SUBJECT,
    Agreements,
    require_open_match,
    rowcount,
)
from bot.features.negotiation.common import NOBODY, TimeChecks, ask_to_choose
from bot.features.negotiation.types import (
    Agreement,
    FaultRuling,
)
from bot.ids import valid_id
from bot.lichess.client import LichessClient
from bot.rules.negotiation import fault_outcome
from bot.rules.no_agreement import NoAgreementOutcome, NoFault, no_fault_found
from bot.service import Service
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import (
    Match,
    MatchState,
    OfferKind,
    Player,
)


class TDRulings(Service):
    """The TD's use cases: assign a time (rules V.F, V.I), rule on fault (V.H, V.I)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        agreements: Agreements,
        times: TimeChecks,
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        super().__init__(sessions, config, clock, lichess=lichess, events=events)
        self.agreements = agreements
        self.times = times

    # --- the TD: /td negotiation assign-time and /td negotiation fault --------------------

    async def assign_time(self, *, td_id: int, match_id: int, text: str) -> Agreement:
        """The TD sets the time (rules V.F, V.I); it replaces any time agreed before."""
        now = self.clock.now()
        async with self.sessions() as session:
            ctx = await context_by_id(session, match_id)
            label = await match_label(session, self.config.format, ctx.match)
        require_open_match(ctx)
        t = self.times.parse_one(text, ctx.round_)
        problems = self.times.problems(t, ctx.round_, now)
        if ctx.match.agreed_time == t:
            problems.append(wording.same_as_agreed(t))
        if problems:
            raise InvalidInput(wording.offer_refused(problems))
        agreement = await self.agreements.fix_time(
            match_id,
            t,
            OfferKind.ASSIGNED,
            Actor.td(td_id),
            now,
            offered_by=None,
            previous=ctx.match.agreed_time,
            any_previous=True,
        )
        return replace(agreement, match=label)

    async def fault_choices(self, match_id: int) -> list[str]:
        """What /td negotiation fault offers for `player:`: the match's two players, then
        nobody."""
        async with self.sessions() as session:
            match = await session.get(Match, match_id) if valid_id(match_id) else None
            if match is None or match.player_b_id is None:
                return ["nobody"]
            ctx = await load_context(session, match)
        assert ctx.b is not None
        return [ctx.a.lichess_username, ctx.b.lichess_username, "nobody"]

    async def rule_fault(
        self, *, td_id: int, match_id: int, player_name: str | None
    ) -> FaultRuling:
        """The TD's ruling on a failed negotiation (rules V.H, V.I)."""
        now = self.clock.now()
        name = (player_name or "").strip().removeprefix("@").strip()
        if not name:
            raise InvalidInput(td_wording.fault_player_missing())
        async with transaction(self.sessions) as session:
            ctx = await context_by_id(session, match_id)
            b = require_open_match(ctx)
            place = await place_of(session, self.config.format, ctx.match)
            label = match_label_text(place, ctx.a.lichess_username, b.lichess_username)
            if ctx.match.agreed_time is not None:
                raise WrongStage(td_wording.fault_after_agreement(label))
            a = ctx.a
            at_fault: Player | None
            named = [p for p in (a, b) if p.lichess_username.lower() == name.lower()]
            if named:
                at_fault = named[0]
            elif name.lower() in NOBODY:
                at_fault = None
            else:
                raise InvalidInput(
                    td_wording.unknown_fault_player(name, a.lichess_username, b.lichess_username)
                )
            outcome = fault_outcome(  # rule V.I, decided in bot/rules/negotiation.py
                at_fault.id if at_fault else None, (a.id, b.id)
            )
            chooser = ctx.player(outcome.chooser)
            draw = self._no_fault_draw() if at_fault is None else None
            changed = await session.execute(
                update(Match)
                .where(
                    Match.id == match_id,
                    Match.agreed_time.is_(None),
                    Match.state == MatchState.NEGOTIATING,
                )
                .values(chooser_id=outcome.chooser, td_assigns=outcome.td_assigns and draw is None)
                .execution_options(synchronize_session=False)
            )
            if rowcount(changed) != 1:
                raise WrongStage(wording.match_over())
            decision = f"fault:{at_fault.lichess_username}" if at_fault else "nobody"
            record_td_decision(
                session,
                at=now,
                td_id=td_id,
                kind="negotiation_fault",
                subject_type=MATCH_SUBJECT,
                subject_id=match_id,
                decision=decision,
                reason=None,
                action="negotiation_fault",
                details={"at_fault": at_fault.lichess_username if at_fault else None},
            )
            drawn = draw is not None
            if draw is not None:
                await self._draw(session, ctx, draw, td_id, now)
            if at_fault is not None and chooser is not None:
                ask_to_choose(
                    session,
                    ctx,
                    chooser,
                    at_fault,
                    now,
                    wording.opponent_ruled_at_fault(at_fault.lichess_username),
                )
            elif not drawn:  # the players hear it once, with the time the TD assigns
                notify_td(
                    session,
                    self.config,
                    now=now,
                    content=td_wording.td_assign_request(
                        place, a.lichess_username, b.lichess_username
                    ),
                )
        return FaultRuling(
            match_id,
            at_fault.lichess_username if at_fault else None,
            chooser.lichess_username if chooser else None,
            drawn=drawn,
            match=label,
        )

    def _no_fault_draw(self) -> NoAgreementOutcome | None:
        """Nobody at fault: the TD assigns a time (2019, rule V.I: None), or the match is a
        draw (`format.no_fault: draw`, 2020 on; `bot.rules.no_agreement.no_fault_found`)."""
        outcome = no_fault_found(
            NoFault(self.config.format.no_fault), games=self.config.tournament.match_games
        )
        return None if outcome.td_assigns else outcome

    async def _draw(
        self,
        session: AsyncSession,
        ctx: MatchContext,
        outcome: NoAgreementOutcome,
        td_id: int,
        now: datetime,
    ) -> None:
        """The ruled draw, told to both players in the match's thread."""
        assert ctx.b is not None and outcome.game_score is not None
        a, b = ctx.a, ctx.b
        post_for_match(
            session,
            [a, b],
            thread_id=ctx.thread_id,
            now=now,
            content=wording.no_fault_draw(mention(a), mention(b), *outcome.game_score),
        )
        await rule_draw(
            session,
            self.config,
            self.events,
            match=ctx.match,
            outcome=outcome,
            rule=f"no_fault:{self.config.format.no_fault}",
            decided=td_wording.fault_reply(
                await match_label(session, self.config.format, ctx.match), None, None, drawn=True
            ),
            actor=Actor.td(td_id),
            now=now,
        )
