"""`acwc simulate`: a whole championship offline, to see the bot work without Discord.

The real bot and its real command tree run through the Discord harness, Lichess is the fake
server with generated accounts, and a fake clock jumps from one moment of the championship
to the next. Simulated players register, negotiate with /offer and /accept (some counter-
offer, one pair leaves it to the TD), play games whose results follow their ratings, take
a break, claim a no-show, report a cheat and withdraw; the bot's own periodic jobs do the
rest. The same seed gives the same `result.json`, byte for byte.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bot.app import ChampionshipBot
from bot.clock import FakeClock, FakeClockPause
from bot.config import Config, DiscordConfig, PreSeededPlayer, Secrets, load_config
from bot.lichess.client import LichessClient
from bot.sim.fake_lichess import fake_lichess
from bot.sim.faults import Faults
from bot.sim.games import ANNOUNCE, GUILD, PAIRINGS, PRESEEDED, START, TD, TD_ALERTS, SimBase
from bot.sim.harness import RecordedMessage, discord_harness
from bot.sim.players import add_account, make_players
from db.models import Match, MatchState, Player, Round, RoundState, Setting, Stage, StageKind


def sim_config(db_url: str, lichess_url: str) -> Config:
    """The 2019 edition as configured by default, in a server of its own."""
    base = load_config(None, environ={"LICHESS_BASE_URL": lichess_url, "DATABASE_URL": db_url})
    return base.model_copy(
        update={
            "discord": DiscordConfig(
                guild_id=GUILD,
                td_user_ids=(TD,),
                td_alert_channel_id=TD_ALERTS,
                announcement_channel_id=ANNOUNCE,
                pairings_channel_id=PAIRINGS,
            ),
            "registration": base.registration.model_copy(update={"auto_approve": True}),
            "players": base.players.model_copy(
                update={
                    "pre_seeded": tuple(
                        PreSeededPlayer(lichess=name, stage=stage, discord_id=user)
                        for name, stage, user, _ in PRESEEDED
                    )
                }
            ),
        }
    )


class Simulation(SimBase):
    """One championship: the bot, the harness, the fake Lichess, the clock and the dice."""

    # --- registration ------------------------------------------------------------------------

    async def register_everyone(self) -> None:
        for player in self.players:
            record = await self.h.slash(
                "register", user=player.discord_id, options={"lichess_username": player.name}
            )
            code = record.text[record.text.index("`acwc-") + 1 :].split("`")[0]
            self.fake.set_profile(player.name, bio=code)
            assert record.last is not None
            verify = str(self.h.buttons(record.last)[0]["custom_id"])
            await self.h.press(verify, user=player.discord_id, message=record.last)
            self.transcript.note()
        await self.jobs()

    # --- the rounds --------------------------------------------------------------------------

    async def open_round(self) -> tuple[Stage, Round, list[Match]] | None:
        assert self.bot.sessions is not None
        async with self.bot.sessions() as session:
            round_ = await session.scalar(
                select(Round)
                .where(Round.state == RoundState.PUBLISHED)
                .order_by(Round.published_at.desc(), Round.id.desc())
                .limit(1)
            )
            if round_ is None:
                return None
            stage = await session.get(Stage, round_.stage_id)
            matches = list(
                (
                    await session.scalars(
                        select(Match)
                        .where(Match.round_id == round_.id, Match.state == MatchState.NEGOTIATING)
                        .order_by(Match.board)
                    )
                ).all()
            )
        assert stage is not None
        return (stage, round_, matches) if matches else None

    async def play_round(self) -> bool:
        found = await self.open_round()
        if found is None:
            return False
        stage, round_, matches = found
        label = f"{stage.kind.value} round {round_.number}"
        self.progress(stage.kind.value, label)
        key = stage.kind.value
        self.counters.rounds[key] = self.counters.rounds.get(key, 0) + 1
        await self.at(round_.starts_at + timedelta(hours=1))
        if stage.kind is StageKind.SWISS and round_.number == 3:
            await self.withdraw_the_weakest()
            found = await self.open_round()
            if found is None:
                return True
            stage, round_, matches = found
        if stage.kind is StageKind.SWISS and round_.number == 2:
            await self.report_a_cheat()
        players = await self.names()
        wednesday = round_.starts_at + timedelta(days=2, hours=18)
        left_to_td: list[Match] = []
        for board, match in enumerate(matches):
            a, b = players[match.player_a_id], players[match.player_b_id or 0]
            when = wednesday + timedelta(hours=3 * (board % 2), days=board // 2 % 3)
            if stage.kind is StageKind.SWISS and round_.number == 1 and board == len(matches) - 1:
                left_to_td.append(match)  # this pair never makes an offer: the TD assigns
            elif board % 3 == 2:
                await self.counter(a, b, when)
            else:
                await self.offer(a, when)
                await self.accept(b)
        if left_to_td:
            await self.at(round_.starts_at + timedelta(days=3, seconds=1))  # Thursday
            for match in left_to_td:
                when = round_.starts_at + timedelta(days=4, hours=19)
                done = await self.h.slash(
                    "td negotiation assign-time",
                    user=TD,
                    options={"match": match.id, "time": f"{when:%Y-%m-%d %H:%M}"},
                )
                assert done.ephemeral, done.text
                self.counters.incidents.append(f"{label}: the TD assigned a time")
        if self.faults is not None:
            self.faults.each_round()
        await self.play_matches(stage, round_, label)
        await self.settle(round_)
        await self.break_ties()
        return True

    async def settle(self, round_: Round) -> None:
        """Let the jobs run until the round has every result: a poll that failed (Lichess
        down) reads the games again at the next turn."""
        assert self.bot.sessions is not None
        for _ in range(30):
            async with self.bot.sessions() as session:
                left = await session.scalar(
                    select(Match.id)
                    .where(
                        Match.round_id == round_.id,
                        Match.state.in_((MatchState.SCHEDULED, MatchState.IN_PROGRESS)),
                    )
                    .limit(1)
                )
            if left is None:
                return
            await self.at(self.clock.now() + timedelta(minutes=5))

    async def offer(self, player: Player, when: datetime) -> None:
        assert player.discord_id is not None
        await self.h.slash(
            "offer", user=player.discord_id, options={"times": f"{when:%Y-%m-%d %H:%M}"}
        )
        self.transcript.note()

    async def accept(self, player: Player) -> None:
        assert player.discord_id is not None
        await self.h.slash("accept", user=player.discord_id)
        self.transcript.note()

    async def counter(self, a: Player, b: Player, when: datetime) -> None:
        """a offers, b answers with another time (rule V.G), a accepts that one."""
        await self.offer(a, when)
        await self.offer(b, when + timedelta(hours=4))
        await self.accept(a)

    async def play_matches(self, stage: Stage, round_: Round, label: str) -> None:
        assert self.bot.sessions is not None
        async with self.bot.sessions() as session:
            matches = list(
                (
                    await session.scalars(
                        select(Match)
                        .where(Match.round_id == round_.id, Match.agreed_time.is_not(None))
                        .order_by(Match.agreed_time, Match.id)
                    )
                ).all()
            )
        players = await self.names()
        for index, match in enumerate(matches):
            assert match.agreed_time is not None
            a, b = players[match.player_a_id], players[match.player_b_id or 0]
            start = match.agreed_time
            await self.at(start)  # the game link at the agreed minute
            late = stage.kind is StageKind.SWISS and round_.number == 2 and index == 0
            if late:
                start = await self.noshow_then_arrival(a, start, label)
            brk = stage.kind is StageKind.SWISS and round_.number == 1 and index == 0
            last = await self.play_games(stage, match, a, b, start, brk=brk)
            await self.at(last + timedelta(minutes=20))

    # --- incidents -----------------------------------------------------------------------------

    async def noshow_then_arrival(self, a: Player, start: datetime, label: str) -> datetime:
        """a reports a no-show; the opponent turns up within the grace period."""
        assert a.discord_id is not None
        await self.at(start + timedelta(minutes=5))
        await self.h.slash("noshow", user=a.discord_id)
        self.transcript.note()
        await self.at(start + timedelta(minutes=16))  # the grace period is over
        ask = next(
            (m for m in reversed(self.h.dms_to(a.discord_id)) if m.buttons), None
        )  # "Still absent" / "They are here"
        if ask is not None:
            here = [b for b in ask.buttons if b.get("label") == "They are here"]
            if here:
                await self.h.press(
                    str(here[0]["custom_id"]), user=a.discord_id, message=ask, dm=True
                )
        self.counters.incidents.append(f"{label}: a no-show report, then the opponent came")
        return start + timedelta(minutes=17)

    async def report_a_cheat(self) -> None:
        reporter, accused = self.players[0], self.players[-1]
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
        self.transcript.note()
        self.counters.incidents.append("a private cheat report")

    async def withdraw_the_weakest(self) -> None:
        weakest = min(self.players, key=lambda p: (p.rating, p.name))
        ask = await self.h.slash("withdraw", user=weakest.discord_id)
        if ask.last is not None and self.h.buttons(ask.last):
            button = str(self.h.buttons(ask.last)[0]["custom_id"])
            await self.h.press(button, user=weakest.discord_id, message=ask.last)
            self.counters.incidents.append(f"{weakest.name} withdrew")
        await self.jobs()

    async def break_ties(self) -> None:
        """A tie the rules leave to the TD: the TD presses the first player's button."""
        assert self.bot.sessions is not None
        for _ in range(4):
            async with self.bot.sessions() as session:
                pending = await session.get(Setting, "pending_tie")
                value = json.loads(pending.value) if pending else None
            if value is None:
                return
            players = await self.names()
            by_name = {p.lichess_id: p.id for p in players.values()}
            choice = by_name[value["tied"][0]]
            await self.h.press(f"acwc:tie:{choice}", user=TD, dm=True)
            self.counters.incidents.append("the TD broke a tie")
            await self.jobs()

    # --- the result ----------------------------------------------------------------------------

    async def result(self, seed: int) -> dict[str, Any]:
        standings: dict[str, Any] = {}
        assert self.bot.sessions is not None
        async with self.bot.sessions() as session:
            stages = {s.kind: s for s in await session.scalars(select(Stage))}
            outcome = await session.get(Setting, "stage_outcome:candidates")
        for kind in (StageKind.SWISS, StageKind.TIEBREAK, StageKind.CANDIDATES, StageKind.FINAL):
            if kind in stages:
                table = await self.bot.svc.tables.standings(kind)
                standings[kind.value] = {
                    "headers": list(table.headers),
                    "rows": [list(r) for r in table.rows],
                }
        players = await self.names()
        order = json.loads(outcome.value) if outcome else []
        champion = None
        final = stages.get(StageKind.FINAL)
        if final is not None:
            async with self.bot.sessions() as session:
                decided = await session.scalar(
                    select(Match)
                    .join(Round, Match.round_id == Round.id)
                    .where(Round.stage_id == final.id, Match.state == MatchState.FINISHED)
                )
            if decided is not None:
                won = (decided.points_a or 0) > (decided.points_b or 0)
                winner = decided.player_a_id if won else decided.player_b_id
                champion = players[winner or 0].lichess_username
        return {
            "seed": seed,
            "players": len(self.players),
            "rounds": dict(sorted(self.counters.rounds.items())),
            "standings": standings,
            "challenger": players[order[0]].lichess_username if order else None,
            "runner_up": players[order[1]].lichess_username if len(order) > 1 else None,
            "champion": champion,
            "incidents": self.counters.incidents,
            "messages": self.transcript.count,
            "lichess_requests": len(self.fake.requests),
            "faults": dict(sorted(self.faults.injected.items())) if self.faults else {},
            "faults_observed": self.faults.observed() if self.faults else {},
        }


async def simulate(
    players: int,
    seed: int,
    out: Path,
    progress: Callable[[str, str], None] = lambda stage, label: None,
    *,
    faults: bool = False,
) -> dict[str, Any]:
    """Run a whole championship; writes `transcript.md` and `result.json` into `out`."""
    out.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 (before anything runs)
    database = out / "acwc.sqlite3"
    database.unlink(missing_ok=True)
    clock = FakeClock(START)
    async with fake_lichess(seed) as fake:
        config = sim_config(f"sqlite+aiosqlite:///{database}", fake.base_url)
        entrants = make_players(seed, players, first_discord_id=6000)
        cutoff = config.registration.games_before - timedelta(days=2)
        for player in entrants:
            add_account(
                fake,
                player.name,
                player.rating,
                games=config.registration.min_rated_games + 5,
                before=cutoff,
            )
        for name, _, _, rating in PRESEEDED:
            add_account(fake, name, rating, games=5, before=cutoff)
        # The client's pause after a Lichess 429 is the configured one (60 s), spent on the
        # fake clock: championship time moves on, real time does not. The fake server stamps
        # requests on the same clock, so the pause can be checked. With faults, Lichess
        # stalls now and then, so the client gives up sooner than the bot's 20 s.
        fake.time_source = lambda: clock.now().timestamp()
        lichess = LichessClient(
            base_url=fake.base_url,
            timeout=2.0 if faults else 10.0,
            rate_limit_pause=config.lichess.rate_limit_pause_seconds,
            pause_clock=FakeClockPause(clock),
        )
        bot = ChampionshipBot(
            config,
            Secrets(),
            clock=clock,
            lichess=lichess,
            sync_commands=False,
            start_scheduler=False,
            flush_after_commands=False,  # SimBase.at delivers them once per clock step
        )
        async with discord_harness(bot, run_setup_hook=True, guild_id=GUILD) as h:
            for channel, name in (
                (TD_ALERTS, "td-alerts"),
                (ANNOUNCE, "announcements"),
                (PAIRINGS, "pairings"),
            ):
                h.add_text_channel(channel, name)
            h.add_member(TD, "director")
            for player in entrants:
                h.add_member(player.discord_id, player.name.lower())
            for name, _, user, _ in PRESEEDED:
                h.add_member(user, name.lower())
            sim = Simulation(bot, h, fake, clock, seed, entrants, progress)
            if faults:
                sim.faults = Faults(h, fake, seed, closed_dm_user=entrants[1].discord_id)
            await sim.register_everyone()
            preview = await h.slash("td round start", user=TD)
            assert preview.last is not None
            publish = str(h.buttons(preview.last)[0]["custom_id"])
            await h.press(publish, user=TD, message=preview.last)
            sim.transcript.note()
            for _ in range(60):
                if not await sim.play_round():
                    break
            await sim.at(clock.now() + timedelta(hours=1))
            await sim.at(clock.now() + timedelta(days=1))  # the last retries of the outbox
            result = await sim.result(seed)
            (out / "transcript.md").write_text(sim.transcript.markdown(), encoding="utf-8")
        await lichess.aclose()
    (out / "result.json").write_text(
        json.dumps(result, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return result


def run_cli(players: int, seed: int, out: Path, *, faults: bool = False) -> int:
    """The terminal side: a progress bar per stage and round, then a short summary."""
    import asyncio

    from rich.console import Console
    from rich.progress import Progress

    console = Console()
    started = time.perf_counter()
    with Progress(console=console, transient=False) as bar:
        tasks: dict[str, Any] = {}

        def progress(stage: str, label: str) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage.capitalize(), total=None)
            bar.update(tasks[stage], advance=1, description=f"{stage.capitalize()}: {label}")

        result = asyncio.run(simulate(players, seed, out, progress, faults=faults))
    wall = time.perf_counter() - started
    rounds = ", ".join(f"{k} {v}" for k, v in result["rounds"].items())
    console.print(f"Rounds: {rounds}")
    console.print(f"Challenger: {result['challenger']} · Champion: {result['champion']}")
    console.print(
        f"Messages sent: {result['messages']} · Lichess requests: {result['lichess_requests']}"
        f" · wall time {wall:.1f} s"
    )
    if result["faults"]:
        injected = ", ".join(f"{k} ×{v}" for k, v in result["faults"].items())
        console.print(f"Faults injected: {injected}")
    console.print(f"Wrote {out / 'transcript.md'} and {out / 'result.json'}")
    return 0


__all__ = ["RecordedMessage", "run_cli", "simulate"]
