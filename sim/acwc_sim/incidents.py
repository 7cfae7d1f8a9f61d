"""The simulation's incidents: a no-show claim, a cheat report, a withdrawal and the ties
the rules leave to the TD, each step of them done once however often the run is killed."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from sqlalchemy import select

from acwc_sim.games import PENDING_TIE, TD, SimBase
from db.models import (
    CheatReport,
    IncidentKind,
    IncidentState,
    Match,
    MatchIncident,
    Player,
    Setting,
)


class Incidents(SimBase):
    """What goes wrong in a championship, played through the real commands."""

    async def noshow_then_arrival(
        self, key: str, match: Match, a: Player, start: datetime, label: str
    ) -> datetime:
        """a reports a no-show; the opponent turns up within the grace period."""
        assert a.discord_id is not None
        user = a.discord_id

        async def claim() -> None:
            await self.h.slash("noshow", user=user)

        async def arrived() -> None:
            ask = next(
                (m for m in reversed(self.h.dms_to(user)) if m.buttons), None
            )  # "Still absent" / "They are here"
            here = [b for b in ask.buttons if b.get("label") == "They are here"] if ask else []
            if here:
                await self.h.press(str(here[0]["custom_id"]), user=user, message=ask, dm=True)

        await self.step_at(f"{key}:claim-at", start + timedelta(minutes=5))
        await self.step(
            f"{key}:claim",
            claim,
            done=lambda: self.incident_by(match, IncidentKind.NO_SHOW, a),
        )
        await self.step_at(f"{key}:grace", start + timedelta(minutes=16))
        await self.step(
            f"{key}:arrived",
            arrived,
            done=lambda: self.noshow_settled(match),
            incident=f"{label}: a no-show report, then the opponent came",
        )
        return start + timedelta(minutes=17)

    async def noshow_settled(self, match: Match) -> bool:
        state = await self.scalar(
            select(MatchIncident.state).where(
                MatchIncident.match_id == match.id,
                MatchIncident.kind == IncidentKind.NO_SHOW,
            )
        )
        return state is not None and state is not IncidentState.OPEN

    async def report_a_cheat(self, key: str) -> None:
        reporter, accused = self.players[0], self.players[-1]

        async def report() -> None:
            await self.h.slash("report", user=reporter.discord_id)
            await self.h.submit_modal(
                None,
                {
                    "accused": accused.name,
                    "links": "",
                    "description": "Moves matched an engine in every game.",
                },
                user=reporter.discord_id,
            )

        async def reported() -> bool:
            found = await self.scalar(
                select(CheatReport.id).where(CheatReport.reporter_discord_id == reporter.discord_id)
            )
            return found is not None

        await self.step(key, report, done=reported, incident="a private cheat report")

    async def withdraw_the_weakest(self, key: str) -> None:
        weakest = min(self.players, key=lambda p: (p.rating, p.name))

        async def withdraw() -> None:
            ask = await self.h.slash("withdraw", user=weakest.discord_id)
            if ask.last is not None and self.h.buttons(ask.last):
                button = str(self.h.buttons(ask.last)[0]["custom_id"])
                await self.h.press(button, user=weakest.discord_id, message=ask.last)

        async def withdrawn() -> bool:
            at = await self.scalar(
                select(Player.withdrawn_at).where(Player.discord_id == weakest.discord_id)
            )
            return at is not None

        await self.step(key, withdraw, done=withdrawn, incident=f"{weakest.name} withdrew")
        await self.step(f"{key}:jobs", self.jobs)

    async def pending_tie(self) -> dict[str, object] | None:
        assert self.bot.sessions is not None
        async with self.bot.sessions() as session:
            pending = await session.get(Setting, PENDING_TIE)
        return json.loads(pending.value) if pending else None

    async def break_ties(self, key: str) -> None:
        """A tie the rules leave to the TD: the TD presses the first player's button."""
        for turn in range(4):
            asked = await self.step(f"{key}:{turn}", self.pending_tie)
            if asked is None:
                return

            async def press(asked: dict[str, object] = asked) -> None:
                players = await self.names()
                by_name = {p.lichess_id: p.id for p in players.values()}
                tied = asked["tied"]
                assert isinstance(tied, list)
                await self.h.press(f"acwc:tie:{by_name[tied[0]]}", user=TD, dm=True)

            async def pressed(asked: dict[str, object] = asked) -> bool:
                return await self.pending_tie() != asked

            await self.step(
                f"{key}:{turn}:press", press, done=pressed, incident="the TD broke a tie"
            )
            await self.step(f"{key}:{turn}:jobs", self.jobs)
