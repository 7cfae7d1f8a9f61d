"""How the simulated pairs agree their match times (rule V), round by round: most agree
with /offer and /accept (some after a counter-offer, rule V.G); round 1's last pair leaves it
to the TD (V.F); round 2's last pair goes through rule V.E and the pair before it through
rule V.H. Each match gets a slot of its own, so the clock stops at every agreed time."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial

from sqlalchemy import select

from acwc_sim.games import TD
from acwc_sim.paths import Paths
from db.models import Match, Player, Round, Stage, StageKind, TimeOffer

# Each match is played in a slot of its own, 3 hours apart from 3 hours after the offers are
# due (2019: Thursday 03:00; a Swiss match with a no-show, a break and a /left takes under 2.5
# hours): in 2019, 30 slots to Sunday 18:00, the last three for the matches whose time the TD
# assigns or a player chooses; a week whose offers are due later has fewer slots (2020-2024:
# 22). A round of more matches than slots shares them, and its clock jumps past some starts.
MAX_SLOTS, SLOT_HOURS, WEEK_HOURS = 30, 3, 168


def first_slot(offers_due_hours: float) -> timedelta:
    """The first slot's start after the round's: 3 hours after the offers are due."""
    return timedelta(hours=offers_due_hours + SLOT_HOURS)


def slots(offers_due_hours: float) -> int:
    """How many slots the week has between the first and the end of the round."""
    free = WEEK_HOURS - first_slot(offers_due_hours).total_seconds() / 3600
    return min(MAX_SLOTS, int(free // SLOT_HOURS) - 1)


def slot(round_: Round, index: int, offers_due_hours: float = 72.0) -> datetime:
    """The start of a match's slot: one of the first for a board, or one of the last three,
    kept for the times chosen or assigned."""
    return round_.starts_at + first_slot(offers_due_hours) + timedelta(hours=SLOT_HOURS * index)


class Negotiating(Paths):
    """The pairs' negotiations, and the TD's part in them."""

    def slot(self, round_: Round, index: int) -> datetime:
        return slot(round_, index, self.bot.config.negotiation.offers_due_hours)

    def slots(self) -> int:
        return slots(self.bot.config.negotiation.offers_due_hours)

    async def negotiate(
        self,
        key: str,
        stage: Stage,
        round_: Round,
        matches: list[Match],
        label: str,
        *,
        first: int = 0,
    ) -> None:
        """`first`: the boards other rounds of the same week took already (their slots)."""
        players = await self.names()
        due = self.bot.config.negotiation.offers_due_hours
        last = self.slots()
        # Every time offered falls after the last moment the run moves the clock to before
        # the first match is played (Thursday 00:00:01, past the offers' deadline), and each
        # match has a slot of its own (`slot`): the clock then stops at each agreed time, and
        # a match starts when it was agreed.
        thursday_evening = round_.starts_at + timedelta(hours=due + 18)
        left_to_td: list[Match] = []
        missed: list[Match] = []
        swiss = stage.kind is StageKind.SWISS
        for board, match in enumerate(matches):
            a, b = players[match.player_a_id], players[match.player_b_id or 0]
            when = self.slot(round_, (first + board) % (last - 3))
            if swiss and round_.number == 1 and board == len(matches) - 1:
                left_to_td.append(match)  # this pair never makes an offer: the TD assigns
            elif swiss and round_.number == 2 and board == len(matches) - 1:
                await self.offer_three(match, a, thursday_evening)  # b offers nothing (V.E)
                missed.append(match)
            elif swiss and round_.number == 2 and board == len(matches) - 2:
                # both make their 3 offers (rule V.C), each another time (V.G): no agreement
                await self.offer_three(match, a, thursday_evening)
                await self.offer_three(match, b, thursday_evening - timedelta(hours=6))
                self.weekend.append(match)
            elif board % 3 == 2:  # a offers, b answers with another time (rule V.G), a accepts
                await self.offer(match, a, when - timedelta(hours=4))
                await self.offer(match, b, when)
                await self.accept(match, a)
            else:
                await self.offer(match, a, when)
                await self.accept(match, b)
        if not left_to_td and not missed:
            return
        thursday = round_.starts_at + timedelta(
            hours=self.bot.config.negotiation.offers_due_hours, seconds=1
        )
        await self.step_at(f"{key}:thursday", thursday)
        for match in missed:
            a, b = players[match.player_a_id], players[match.player_b_id or 0]
            when = self.slot(round_, last - 2)
            await self.offers_missed(label, match, a, b, when)
        if self.bot.config.format.no_offers != "td_assigns":
            left_to_td = []  # 2020 on: the bot rules the match a draw, nobody assigns
        for match in left_to_td:

            async def assign(match: Match = match) -> None:
                when = self.slot(round_, last - 3)
                done = await self.h.slash(
                    "td negotiation assign-time",
                    user=TD,
                    options={"match": match.id, "time": f"{when:%Y-%m-%d %H:%M}"},
                )
                assert done.ephemeral, done.text

            await self.step(
                f"assign:{match.id}",
                assign,
                done=partial(self.agreed, match),
                incident=f"{label}: the TD assigned a time",
            )

    async def weekend_rulings(self, key: str, round_: Round, label: str) -> None:
        """Rule V.H at the start of Saturday: the bot tells the TD about each match whose
        players both made their offers without agreeing; the TD rules."""
        if not self.weekend:
            return
        saturday = round_.starts_at + timedelta(
            hours=self.bot.config.negotiation.weekend_hours, seconds=1
        )
        await self.step_at(f"{key}:saturday", saturday)
        players = await self.names()
        for match in self.weekend:
            a, b = players[match.player_a_id], players[match.player_b_id or 0]
            when = self.slot(round_, self.slots() - 1)
            await self.weekend_ruling(label, match, a, b, when)
        self.weekend.clear()

    async def offer(self, match: Match, player: Player, when: datetime) -> None:
        async def offer() -> None:
            assert player.discord_id is not None
            await self.h.slash(
                "offer", user=player.discord_id, options={"times": f"{when:%Y-%m-%d %H:%M}"}
            )

        async def offered() -> bool:
            found = await self.scalar(
                select(TimeOffer.id).where(
                    TimeOffer.match_id == match.id,
                    TimeOffer.offered_by_id == player.id,
                    TimeOffer.proposed_time == when,
                )
            )
            return found is not None

        await self.step(f"offer:{match.id}:{player.id}:{when:%Y-%m-%d %H:%M}", offer, done=offered)

    async def accept(self, match: Match, player: Player) -> None:
        async def accept() -> None:
            assert player.discord_id is not None
            await self.h.slash("accept", user=player.discord_id)

        await self.step(f"accept:{match.id}:{player.id}", accept, done=lambda: self.agreed(match))

    async def agreed(self, match: Match) -> bool:
        when = await self.scalar(select(Match.agreed_time).where(Match.id == match.id))
        return when is not None
