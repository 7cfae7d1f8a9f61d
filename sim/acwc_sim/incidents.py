"""The simulation's incidents: a no-show claim, a cheat report, a withdrawal and the ties
the rules leave to the TD, each step of them done once however often the run is killed."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from functools import partial

from sqlalchemy import or_, select

from acwc_sim.games import PENDING_TIE, TD, SimBase
from acwc_sim.players import SimPlayer
from db.models import (
    CheatReport,
    IncidentKind,
    IncidentState,
    Match,
    MatchIncident,
    Player,
    ReportState,
    Setting,
)


class Incidents(SimBase):
    """What goes wrong in a championship, played through the real commands."""

    async def noshow_then_arrival(
        self, key: str, match: Match, a: Player, b: Player, start: datetime, label: str
    ) -> datetime:
        """a reports a no-show (rule VI.D); the opponent turns up after the grace period,
        when the bot asks a whether they are still absent, and a answers that they are here
        (the claim is withdrawn; the match is played)."""
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
            incident=(
                f"{label}: {a.lichess_username} made a no-show claim against "
                f"{b.lichess_username} (rule VI.D); {b.lichess_username} came after the grace "
                f"period, {a.lichess_username} answered that they were here, and the claim was "
                "withdrawn"
            ),
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

    def cast(self, role: str, count: int) -> list[SimPlayer]:
        """`count` different entrants for a part (a cheat report's reporter and accused, the
        player who withdraws), drawn from the seed: the same in every run of it."""
        return random.Random(f"{self.seed}:cast:{role}").sample(self.players, count)

    async def report_a_cheat(self, key: str) -> None:
        """A private cheat report (rule VII.A) between two entrants the seed draws; the TD
        decides it later in the run (`decide_the_cheat_report`)."""
        reporter, accused = self.cast("cheat", 2)

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

        await self.step(
            key,
            report,
            done=reported,
            incident=(
                f"{reporter.name} made a private cheat report against {accused.name} (rule VII.A)"
            ),
        )

    async def decide_the_cheat_report(self, key: str) -> None:
        """The TD dismisses the open cheat report with /td fairplay report-state (rule VII.B);
        the bot tells the reporter it was handled."""
        open_report = await self.scalar(
            select(CheatReport.id).where(CheatReport.state == ReportState.OPEN).limit(1)
        )
        if open_report is None:
            return
        report_id = int(open_report)

        async def decide() -> None:
            await self.h.slash(
                "td fairplay report-state",
                user=TD,
                options={
                    "report": report_id,
                    "state": ReportState.DISMISSED.value,
                    "note": "The games look human; nothing to act on.",
                },
            )

        async def decided() -> bool:
            state = await self.scalar(select(CheatReport.state).where(CheatReport.id == report_id))
            return state is ReportState.DISMISSED

        await self.step(
            key,
            decide,
            done=decided,
            incident=(
                f"the TD dismissed cheat report {report_id} after looking into it (rule "
                "VII.B), and the bot told the reporter it was handled"
            ),
        )
        await self.step(f"{key}:jobs", self.jobs)

    async def withdraw_one(self, key: str) -> None:
        """An entrant of the weaker half, drawn from the seed, withdraws (rule VIII.A.1);
        their match of the round goes to the opponent by forfeit, listed as a walkover."""
        weaker = sorted(self.players, key=lambda p: (p.rating, p.name))[: len(self.players) // 2]
        weakest = random.Random(f"{self.seed}:cast:withdraw").choice(weaker or self.players)

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
        await self.step(f"{key}:walkovers", partial(self.walkovers, weakest))

    async def walkovers(self, gone: SimPlayer) -> None:
        """List each match the withdrawal decided by forfeit, as the bot recorded it."""
        players = await self.names()
        by_discord = {p.discord_id: p for p in players.values()}
        quitter = by_discord.get(gone.discord_id)
        if quitter is None:
            return
        assert self.bot.sessions is not None
        async with self.bot.sessions() as session:
            decided = list(
                await session.scalars(
                    select(Match)
                    .where(
                        or_(Match.player_a_id == quitter.id, Match.player_b_id == quitter.id),
                        Match.forfeit_winner_id.is_not(None),
                        Match.forfeit_winner_id != quitter.id,
                    )
                    .order_by(Match.id)
                )
            )
        for match in decided:
            winner = players[match.forfeit_winner_id or 0]
            self.counters.incidents.append(
                f"{winner.lichess_username} won their match against "
                f"{quitter.lichess_username} by forfeit, a walkover: {quitter.lichess_username} "
                "withdrew (rule VIII.A.1)"
            )

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
