"""The simulation's moving parts: the bot's periodic jobs on a fake clock, and games whose
results follow the ratings (a die per game, seeded by the match and the game's number), each
checked against the rules of its stage (the Final too)."""

from __future__ import annotations

import json
import random
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Select, select

from acwc_sim.fake_lichess import FakeLichess
from acwc_sim.harness import DiscordHarness, RecordedMessage
from acwc_sim.plan import (
    GAME_GAP,
    GAME_LENGTH,
    LEFT_BACK,
    LEFT_REPORT,
    QUICK_GAME,
    MatchPlan,
    PlannedGame,
    armageddon_clocks,
    aware,
    game_id,
    match_stage,
)
from acwc_sim.players import SimPlayer, game_result
from acwc_sim.resume import RequestLog, StepLog
from acwc_sim.transcript import Transcript
from bot.clock import FakeClock
from bot.rules import final as final_rules
from bot.rules import final_schemes
from bot.rules.match import is_over
from db.models import IncidentKind, Match, MatchIncident, Player, Setting, Stage, StageKind

if TYPE_CHECKING:
    from acwc_sim.faults import Faults
    from bot.app import ChampionshipBot

GUILD, TD, TD_ALERTS, ANNOUNCE, PAIRINGS = 5000, 5001, 5002, 5003, 5004
# The simulated previous champion and runner-up: (Lichess name, role, Discord id, rating); the
# format's entry rules say which stage each role enters (`acwc_sim.edition.sim_config`).
PRESEEDED = (("arimakat", "champion", 5101, 2350), ("Ogul1", "runner_up", 5102, 2250))
START = datetime(2019, 9, 10, 12, 0, tzinfo=UTC)  # 2019: registration is open
# Settings the driver reads back as any observer of the database could (the sim sits below
# the features and does not import them): the Armageddon's bids, the tie left to the TD.
ARMAGEDDON_KEY, PENDING_TIE = "armageddon:", "pending_tie"
RPS_BUTTON = "acwc:armageddon-rps:"  # the TD's button: this player won rock-paper-scissors
# Seeds whose Final follows a planned path instead of the dice: the games go in pairs that
# leave the score level (one win each, or two draws; which, from the seed), through every
# extension (rule III.G.3) and the 2+0 games (III.G.5), to 15-15 after 30 games; the
# Challenger wins the bids (III.G.6.b) and the Armageddon. Other seeds roll every game.
ARMAGEDDON_SEEDS = frozenset({1, 3})


class SimBase:
    """One championship: the bot, the harness, the fake Lichess, the clock and the dice."""

    def __init__(
        self,
        bot: ChampionshipBot,
        h: DiscordHarness,
        fake: FakeLichess,
        clock: FakeClock,
        seed: int,
        players: list[SimPlayer],
        progress: Callable[[str, str, int, int | None], None],
        log: StepLog,
        transcript: Path,
    ) -> None:
        self.bot, self.h, self.fake, self.clock, self.seed = bot, h, fake, clock, seed
        self.players = players
        self.rating = {p.name.lower(): p.rating for p in players}
        self.rating |= {name.lower(): rating for name, _, _, rating in PRESEEDED}
        self.transcript = Transcript(h, clock, transcript)
        self.progress = progress
        self.log = log
        self.counters = log.counters()  # as the last recorded step left them
        self.faults: Faults | None = None
        self.requests: RequestLog | None = None  # every process's Lichess requests
        # this round's matches left without agreement for the TD's weekend ruling (rule V.H)
        self.weekend: list[Match] = []

    # --- steps: each move once in the whole run, however often it is killed --------------------

    async def step(
        self,
        key: str,
        act: Callable[[], Awaitable[Any]],
        *,
        done: Callable[[], Awaitable[bool]] | None = None,
        incident: str | None = None,
    ) -> Any:
        """Run `act` unless the log has `key` (then return what it recorded) or, for a
        command a kill may have cut off after it took effect, `done()` says the database
        already shows it. `act` returns what later steps must read back the same."""
        entry = self.log.recorded(key)
        if entry is not None:
            return entry["value"]
        value = None if done is not None and await done() else await act()
        # result.json lists what happened, not what was tried: a command the bot refused
        # (a /break after the match was over, say) is no incident
        if incident is not None and (done is None or await done()):
            self.counters.incidents.append(incident)
        self.log.record(key, value, self.clock.now(), self.counters)
        return value

    async def nothing(self) -> None:
        """A step that only lists an incident its `done()` check confirms."""

    async def step_at(self, key: str, moment: datetime | Callable[[], datetime]) -> None:
        """A turn of the jobs at `moment` (a function is read when the step runs: on the
        clock as the last step left it, in a restarted run too)."""

        async def turn() -> None:
            await self.at(moment() if callable(moment) else moment)

        await self.step(key, turn)

    async def scalar(self, statement: Select[Any]) -> Any:
        """One value read from the database, as a check of what a step already did."""
        assert self.bot.sessions is not None
        async with self.bot.sessions() as session:
            return await session.scalar(statement)

    async def incident_by(self, match: Match, kind: IncidentKind, reporter: Player) -> bool:
        found = await self.scalar(
            select(MatchIncident.id).where(
                MatchIncident.match_id == match.id,
                MatchIncident.kind == kind,
                MatchIncident.reporter_id == reporter.id,
            )
        )
        return found is not None

    # --- the bot's periodic jobs ---------------------------------------------------------------

    async def deliver_queued(self) -> None:
        """Send what the commands since the last step queued, all of it, at the clock's
        time: what the bot's flush after each command would have sent, in the same order."""
        assert self.bot.outbox is not None
        await self.bot.outbox.flush(limit=None)

    async def jobs(self) -> None:
        """One turn of what the scheduler runs: deadlines and game links, results, messages."""
        await self.deliver_queued()
        for name in ("deadlines", "results", "outbox"):
            job, _ = self.bot.periodic_jobs()[name]
            await job()

    async def at(self, moment: datetime) -> None:
        """Move the clock to `moment` (never back) and let the jobs run."""
        await self.deliver_queued()
        self.clock.set(max(self.clock.now(), moment))
        await self.jobs()

    async def names(self) -> dict[int, Player]:
        assert self.bot.sessions is not None
        async with self.bot.sessions() as session:
            return {p.id: p for p in await session.scalars(select(Player))}

    # --- games ---------------------------------------------------------------------------------

    def plan_games(
        self,
        stage: Stage,
        match: Match,
        a: Player,
        b: Player,
        start: datetime,
        *,
        brk: bool,
        left: bool = False,
    ) -> MatchPlan:
        """Every game of the match and what the players do between them, from the seed and
        the match alone: a restarted run plans the same games again."""
        planned = self.planned(stage)
        plan = MatchPlan()
        results: list[float] = []
        moment = start + timedelta(minutes=2)
        white_a = True
        length = GAME_LENGTH
        while not self.over(stage, results):
            clock = self.clock_for(stage, results)
            dice = random.Random(f"{self.seed}:game:{match.id}:{len(results) + 1}")
            result = game_result(dice, self.rating[a.lichess_id], self.rating[b.lichess_id])
            if planned:
                result = self.planned_final_result(stage, match, a, results)
            armageddon = match_stage(stage) and self.armageddon_next(stage, results)
            if armageddon:
                plan.events.append(("bids", moment))
                bids = (self.bid(stage, match, a), self.bid(stage, match, b))
                white_a = final_rules.armageddon_white(*bids) == "champion"
                moment += timedelta(minutes=2)
                clock = (180, 0)
            white, black = (a, b) if white_a else (b, a)
            won = result == 1.0 if white_a else result == 0.0
            plan.games.append(
                PlannedGame(
                    id=game_id(self.seed, match.id, len(results) + 1),
                    white=white.lichess_username,
                    black=black.lichess_username,
                    created_at=moment,
                    winner=None if result == 0.5 else ("white" if won else "black"),
                    clock=clock,
                    armageddon=armageddon,
                    result_a=result,
                    length=length,
                )
            )
            results.append(result)
            if match_stage(stage):
                # a match format is read game by game, as it ends: its results, the next
                # game's clock and a new link (2+0, the Armageddon) come before that game
                plan.events.append(("at", moment + length + timedelta(minutes=1)))
            length = GAME_LENGTH
            if brk and len(results) == 2:  # a takes the break after game 2 (rule VI.A)
                plan.events.append(("break", moment + timedelta(minutes=9)))
                moment += timedelta(minutes=10)  # game 3 starts once the break is over
                brk = False
            if left and len(results) == 3:  # b leaves; a reports it; b is back 2 minutes later
                plan.events.append(("left", moment + LEFT_REPORT))
                moment += LEFT_REPORT + LEFT_BACK - GAME_GAP
                length = QUICK_GAME  # read before the return period ends (rule VI.E)
                left = False
            moment += GAME_GAP
            white_a = not white_a
        plan.end = moment
        return plan

    def planned(self, stage: Stage) -> bool:
        """Whether the match follows the planned path: the final matches of the seeds in
        `ARMAGEDDON_SEEDS` (2019: the Final; 2020 on: the Grand Final and the Third Place
        Playoff, whose bids are equal)."""
        return stage.kind is StageKind.FINAL and self.seed in ARMAGEDDON_SEEDS

    def equal_bids(self, stage: Stage) -> bool:
        """A planned match for third place: both bid the same (the equal-bid rule decides)."""
        if not self.planned(stage) or stage.key not in self.bot.config.format.keys():
            return False
        return getattr(self.bot.config.format.stage(stage.key), "places", (1, 2)) != (1, 2)

    def planned_final_result(
        self, stage: Stage, match: Match, a: Player, results: list[float]
    ) -> float:
        """Player a's result in the next game of a planned Final: each pair of games leaves
        the score level (a wins one and loses the other, in an order the seed draws, or both
        are drawn), so the match goes through every extension; the Challenger wins the
        Armageddon."""
        if self.armageddon_next(stage, results):
            return 0.0 if a.lichess_id == PRESEEDED[0][0].lower() else 1.0
        if len(results) % 2 == 1:
            return 1.0 - results[-1]  # the pair's second game evens it
        dice = random.Random(f"{self.seed}:final-pair:{match.id}:{len(results) // 2}")
        return dice.choice((1.0, 1.0, 0.0, 0.0, 0.5))

    def bid(self, stage: Stage, match: Match, player: Player) -> int:
        """A finalist's Armageddon bid in seconds, the same in every run of the seed; in a
        planned Final the Challenger bids lower and so wins White (rule III.G.6.b); in a
        planned match for third place both bid 2:30."""
        if self.equal_bids(stage):
            return 150
        dice = random.Random(f"{self.seed}:bid:{match.id}:{player.id}")
        if self.seed not in ARMAGEDDON_SEEDS:
            return dice.randint(100, 170)
        champion = player.lichess_id == PRESEEDED[0][0].lower()
        return dice.randint(150, 170) if champion else dice.randint(100, 140)

    def store_games(self, plan: MatchPlan) -> None:
        """Put the planned games on the fake Lichess, each listed once it has ended; a game
        already there (a restarted run rebuilding the fake) is left alone."""
        for game in plan.games:
            if self.fake.has_game(game.id) or game.armageddon:
                continue
            self.fake.add_game(
                id=game.id,
                white=game.white,
                black=game.black,
                created_at=game.created_at,
                last_move_at=game.created_at + game.length,
                winner=game.winner,
                status="draw" if game.winner is None else "variantEnd",
                clock=game.clock,
                listed_at=game.created_at + game.length,
            )

    async def play_games(
        self,
        stage: Stage,
        match: Match,
        a: Player,
        b: Player,
        start: datetime,
        *,
        brk: bool = False,
        left: bool = False,
    ) -> datetime:
        """Games until the match is over by its stage's rules; returns when the last ended."""
        plan = self.plan_games(stage, match, a, b, start, brk=brk, left=left)
        self.store_games(plan)
        for number, (kind, moment) in enumerate(plan.events):
            key = f"play:{match.id}:{number}"
            if kind == "bids":
                await self.armageddon_bids(key, stage, match, a, b, moment)
                await self.armageddon_game(key, match, a, plan)
                continue
            await self.step_at(key, moment)
            if kind == "at":
                # a second turn: a link the results just called for (2+0, the Armageddon)
                # is opened by the next deadline sweep, before the next game starts
                await self.step(f"{key}:again", self.jobs)
            if kind == "left":
                await self.left_and_back(key, match, a, b)
            if kind == "break":

                async def take_break() -> None:
                    assert a.discord_id is not None
                    await self.h.slash("break", user=a.discord_id)

                await self.step(
                    f"{key}:break",
                    take_break,
                    done=lambda: self.incident_by(match, IncidentKind.BREAK, a),
                    incident=f"{a.lichess_username} took a break",
                )
                # the bot says the break is over when it ends, not at the clock's next jump
                ends = await self.scalar(
                    select(MatchIncident.ends_at).where(
                        MatchIncident.match_id == match.id,
                        MatchIncident.kind == IncidentKind.BREAK,
                    )
                )
                if ends is not None:
                    await self.step_at(f"{key}:break-over", aware(ends))
        return plan.end

    async def left_and_back(self, key: str, match: Match, a: Player, b: Player) -> None:
        """Rule VI.E, played by :class:`acwc_sim.paths.Paths`."""
        raise NotImplementedError

    def over(self, stage: Stage, results: list[float]) -> bool:
        games = self.bot.config.tournament.match_games
        score_a, score_b = sum(results), sum(1 - r for r in results)
        if match_stage(stage):
            return self.final_status(stage, results).winner is not None
        early = stage.kind is StageKind.SWISS or (
            stage.kind is StageKind.TIEBREAK and len(stage.seeding) == 2
        )
        return is_over(score_a, score_b, games=games, early_stop=early)

    def match_format(self, stage: Stage) -> Any:
        """The row's match format (`Config.match_format`: a knock-out's or a final match's);
        a 2019 Final row whose key the format lacks plays the format's Final."""
        if stage.key in self.bot.config.format.keys():
            return self.bot.config.match_format(stage.key)
        return self.bot.config.final_format()

    def final_status(self, stage: Stage, results: list[float], white: str | None = None) -> Any:
        """Where the match stands by its own scheme (`bot.rules.final_schemes`)."""
        return final_schemes.status(
            results, self.match_format(stage), armageddon_white=white or "champion"
        )

    def armageddon_next(self, stage: Stage, results: list[float]) -> bool:
        return bool(self.final_status(stage, results).next_game == final_rules.ARMAGEDDON)

    def clock_for(self, stage: Stage, results: list[float]) -> tuple[int, int]:
        """The next game's clock: a match format's tiebreak clock ("2+0", "3+0") when the
        score calls for it, the match clock otherwise."""
        if match_stage(stage):
            following = str(self.final_status(stage, results).next_game)
            if following != final_rules.ARMAGEDDON and following != str(
                self.bot.config.tournament.time_control
            ):
                minutes, _, increment = following.partition("+")
                if minutes.isdigit() and increment.isdigit():
                    return (int(minutes) * 60, int(increment))
        return (120, 5)

    async def armageddon_bids(
        self, key: str, stage: Stage, match: Match, a: Player, b: Player, moment: datetime
    ) -> None:
        """Both players bid through the button and the private form; equal bids under
        `rock_paper_scissors` are settled by the TD's button (player a won the game)."""
        await self.step_at(key, moment)
        for player in (a, b):

            async def bid(player: Player = player) -> None:
                assert player.discord_id is not None
                asks = [m for m in self.h.dms_to(player.discord_id) if "Bid for White" in m.text]
                ask = asks[-1]  # a player who reached an Armageddon before has older asks
                seconds = self.bid(stage, match, player)
                button = str(self.h.buttons(ask)[0]["custom_id"])
                await self.h.press(button, user=player.discord_id, message=ask, dm=True)
                await self.h.submit_modal(
                    None, {"bid": f"{seconds // 60}:{seconds % 60:02d}"}, user=player.discord_id
                )

            await self.step(f"{key}:bid:{player.id}", bid, done=partial(self.bid_in, match, player))
        await self.step(f"{key}:jobs", self.jobs)
        rps = self.bot.config.format.equal_bids == "rock_paper_scissors"
        if rps and self.bid(stage, match, a) == self.bid(stage, match, b):
            await self.rock_paper_scissors(key, match, a)

        async def both_bids() -> bool:
            return await self.bid_in(match, a) and await self.bid_in(match, b)

        await self.step(
            f"{key}:listed",
            self.nothing,
            done=both_bids,
            incident=f"the {stage.name} went to the Armageddon",
        )

    async def rock_paper_scissors(self, key: str, match: Match, winner: Player) -> None:
        """Equal bids under `rock_paper_scissors`: the TD presses the winner's button in the
        bot's DM (nothing to press under `previous_champion`: the champion decided)."""

        async def asked() -> list[RecordedMessage]:
            return [
                m
                for m in self.h.dms_to(TD)
                if any(
                    str(button["custom_id"]).startswith(RPS_BUTTON) for button in self.h.buttons(m)
                )
            ]

        async def press() -> None:
            found = await asked()
            if found:
                button = f"{RPS_BUTTON}{winner.id}"
                await self.h.press(button, user=TD, message=found[-1], dm=True)

        async def white_known() -> bool:
            assert self.bot.sessions is not None
            async with self.bot.sessions() as session:
                row = await session.get(Setting, ARMAGEDDON_KEY + str(match.id))
            return row is not None and json.loads(row.value).get("white") is not None

        await self.step(
            f"{key}:rps",
            press,
            done=white_known,
            incident=f"{winner.lichess_username} won rock-paper-scissors after equal bids",
        )
        await self.step(f"{key}:rps:jobs", self.jobs)

    async def armageddon_game(self, key: str, match: Match, a: Player, plan: MatchPlan) -> None:
        """The Armageddon is played on the link the bot opens after the reveal, with the
        colours Lichess gives: White is the first of the link's two users."""
        game = next(g for g in plan.games if g.armageddon)

        async def open_link() -> list[str]:
            await self.at(game.created_at)  # the deadline sweep opens the 3+0 link
            url = await self.scalar(select(Match.challenge_url).where(Match.id == match.id))
            colours = self.fake.challenge_colours(url) if url else None
            if colours is None:
                raise RuntimeError(f"match {match.id}: the bot opened no Armageddon link")
            return list(colours)

        white, black = await self.step(f"{key}:link", open_link)
        if self.fake.has_game(game.id):
            return
        a_white = white.lower() == a.lichess_id
        a_won = game.result_a == 1.0
        white_id = match.player_a_id if a_white else match.player_b_id
        self.fake.add_game(
            id=game.id,
            white=white,
            black=black,
            created_at=game.created_at,
            last_move_at=game.created_at + game.length,
            winner=None if game.result_a == 0.5 else ("white" if a_won == a_white else "black"),
            status="draw" if game.result_a == 0.5 else "variantEnd",
            clock=game.clock,
            clocks=await self.clock_record(match, white_id, game.clock),
            listed_at=game.created_at + game.length,
        )

    async def clock_record(
        self, match: Match, white_id: int | None, clock: tuple[int, int] | None
    ) -> tuple[int, ...] | None:
        """The Armageddon's clock record, White inside their bid (`plan.armageddon_clocks`)."""
        state = await self.scalar(
            select(Setting.value).where(Setting.key == ARMAGEDDON_KEY + str(match.id))
        )
        bid = json.loads(state or "{}").get("bids", {}).get(str(white_id))
        return None if clock is None or bid is None else armageddon_clocks(clock[0], int(bid))

    async def bid_in(self, match: Match, player: Player) -> bool:
        """Whether the player's bid is recorded (a second one would be refused anyway)."""
        assert self.bot.sessions is not None
        async with self.bot.sessions() as session:
            row = await session.get(Setting, ARMAGEDDON_KEY + str(match.id))
        return row is not None and str(player.id) in json.loads(row.value).get("bids", {})
