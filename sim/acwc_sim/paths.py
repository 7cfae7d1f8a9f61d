"""The negotiations and match-day paths of rules V and VI that a plain run goes through:
a player who makes no offers by Wednesday (rule V.E), two players whose offers never meet
before the weekend (rule V.H), and a player who leaves mid-match and comes back (rule VI.E).

Each is played through the bot's real commands, at the moment the rules give, and is listed
in `result.json` only once the database shows that the bot accepted it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select

from acwc_sim.games import TD
from acwc_sim.incidents import Incidents
from acwc_sim.plan import LEFT_BACK, QUICK_GAME, aware
from db.models import (
    AuditEntry,
    IncidentKind,
    IncidentState,
    Match,
    MatchIncident,
    Player,
    TimeOffer,
)


def three_offers(first: datetime) -> list[datetime]:
    """Three times valid under rule V.D: 3 hours apart at least, at most 2 on one date."""
    return [first, first + timedelta(hours=3), first + timedelta(days=1)]


class Paths(Incidents):
    """Rule V.E, rule V.H and rule VI.E, played the way the players and the TD would."""

    async def offer_three(self, match: Match, player: Player, first: datetime) -> None:
        """One /offer with the player's three times (rule V.C)."""
        times = three_offers(first)

        async def offer() -> None:
            assert player.discord_id is not None
            text = ", ".join(f"{t:%Y-%m-%d %H:%M}" for t in times)
            await self.h.slash("offer", user=player.discord_id, options={"times": text})

        async def offered() -> bool:
            found = await self.scalar(
                select(TimeOffer.id).where(
                    TimeOffer.match_id == match.id,
                    TimeOffer.offered_by_id == player.id,
                    TimeOffer.proposed_time == times[-1],
                )
            )
            return found is not None

        await self.step(f"offers:{match.id}:{player.id}", offer, done=offered)

    async def chooser_is(self, match: Match, player: Player) -> bool:
        """Whether the bot has asked `player` to choose the match time (rules V.E, V.I)."""
        chooser = await self.scalar(select(Match.chooser_id).where(Match.id == match.id))
        return bool(chooser == player.id)

    async def choose(self, key: str, match: Match, chooser: Player, when: datetime) -> None:
        """The player not at fault picks the time with /choose."""

        async def choose() -> None:
            assert chooser.discord_id is not None
            await self.h.slash(
                "choose", user=chooser.discord_id, options={"time": f"{when:%Y-%m-%d %H:%M}"}
            )

        await self.step(key, choose, done=lambda: self.agreed_at(match, when))

    async def agreed_at(self, match: Match, when: datetime) -> bool:
        agreed = await self.scalar(select(Match.agreed_time).where(Match.id == match.id))
        return bool(agreed == when)

    async def offers_missed(
        self, label: str, match: Match, a: Player, b: Player, when: datetime
    ) -> None:
        """Rule V.E, once the end of Wednesday has passed: `b` made no offer, so the bot
        asked `a` to choose; `a` chooses `when`."""
        key = f"ve:{match.id}"
        asked = await self.step(f"{key}:asked", lambda: self.chooser_is(match, a))
        if not asked:
            return  # the bot did not apply rule V.E: nothing to list
        await self.choose_and_list(
            key,
            match,
            a,
            when,
            f"{label}: {b.lichess_username} made no offers by Wednesday, so "
            f"{a.lichess_username} chose the time (rule V.E)",
        )

    async def weekend_ruling(
        self, label: str, match: Match, a: Player, b: Player, when: datetime
    ) -> None:
        """Rule V.H, once Saturday has begun: both made their 3 offers and none was taken;
        the TD, told by the bot, rules `b` at fault, and `a` chooses `when` (rule V.I)."""
        key = f"vh:{match.id}"
        told = await self.step(f"{key}:told", lambda: self.td_told_weekend(match))
        if not told:
            return  # the bot did not apply rule V.H: nothing to rule on

        async def rule() -> None:
            await self.h.slash(
                "td negotiation fault",
                user=TD,
                options={"match": match.id, "player": b.lichess_username},
            )

        await self.step(f"{key}:fault", rule, done=lambda: self.chooser_is(match, a))
        if not await self.chooser_is(match, a) and not await self.agreed_at(match, when):
            return  # the ruling was refused: nothing to list
        await self.choose_and_list(
            key,
            match,
            a,
            when,
            f"{label}: both made their 3 offers and none was accepted by the weekend; "
            f"the TD ruled {b.lichess_username} at fault and {a.lichess_username} chose "
            "the time (rules V.H, V.I)",
        )

    async def choose_and_list(
        self, key: str, match: Match, a: Player, when: datetime, incident: str
    ) -> None:
        """`a` chooses `when`; the path is listed once the bot shows that time agreed."""
        await self.choose(f"{key}:choose", match, a, when)
        await self.step(
            f"{key}:listed",
            self.nothing,
            done=lambda: self.agreed_at(match, when),
            incident=incident,
        )

    async def td_told_weekend(self, match: Match) -> bool:
        """Whether the bot's Saturday check told the TD about the match (rule V.H)."""
        found = await self.scalar(
            select(AuditEntry.id).where(
                AuditEntry.action == "weekend_no_agreement",
                AuditEntry.subject_type == "match",
                AuditEntry.subject_id == match.id,
            )
        )
        return found is not None

    async def left_and_back(self, key: str, match: Match, a: Player, b: Player) -> None:
        """Rule VI.E: `b` left between two games; `a` reports it with /left and `b` comes
        back 2 minutes later to a quick game (`acwc_sim.games.QUICK_GAME`), which the bot
        reads before the return period ends. Listed once the bot closed the report because
        they came back, in the words it used."""

        async def report() -> None:
            assert a.discord_id is not None
            await self.h.slash("left", user=a.discord_id)

        await self.step(f"{key}:left", report, done=lambda: self.left_reported(match, a))
        reported = await self.scalar(
            select(MatchIncident.created_at).where(
                MatchIncident.match_id == match.id, MatchIncident.kind == IncidentKind.LEFT
            )
        )
        ends = await self.scalar(
            select(MatchIncident.ends_at).where(
                MatchIncident.match_id == match.id, MatchIncident.kind == IncidentKind.LEFT
            )
        )
        if reported is None or ends is None:
            return  # the bot refused the report: nothing happened to list
        # the quick game has ended: the results job reads it while the period runs
        read_at = aware(reported) + LEFT_BACK + QUICK_GAME + timedelta(seconds=30)
        await self.step_at(f"{key}:read", read_at)
        await self.step_at(f"{key}:back", aware(ends))  # the bot's timer runs then
        minutes = self.bot.config.match_day.left_return_minutes
        await self.step(
            f"{key}:listed",
            self.nothing,
            done=lambda: self.left_closed(match),
            incident=(
                f"{b.lichess_username} left mid-match, {a.lichess_username} reported it with "
                f"/left, and {b.lichess_username} came back within {minutes} minutes: a game "
                "of the match was played after the report, so the bot withdrew the claim "
                "(rule VI.E)"
            ),
        )

    async def left_closed(self, match: Match) -> bool:
        """Whether the bot closed the /left report because the player came back."""
        state = await self.scalar(
            select(MatchIncident.state).where(
                MatchIncident.match_id == match.id, MatchIncident.kind == IncidentKind.LEFT
            )
        )
        return state is IncidentState.CANCELLED

    async def left_reported(self, match: Match, reporter: Player) -> bool:
        found = await self.scalar(
            select(MatchIncident.id).where(
                MatchIncident.match_id == match.id,
                MatchIncident.kind == IncidentKind.LEFT,
                MatchIncident.reporter_id == reporter.id,
            )
        )
        return found is not None
