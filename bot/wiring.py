"""How the features are put together: every service built the same way, on one event bus,
and every timer, subscription and sweep step registered from what the services declare.

The bot (`bot.app`) and the tests both build the championship through `build_services`, so
what a test exercises is wired exactly as in production.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.config import Config
from bot.due import DueActionRunner
from bot.events import EventBus
from bot.features.choices.service import ChoicesService
from bot.features.console.service import ConsoleService
from bot.features.discipline.td import DisciplineService
from bot.features.fairplay.service import FairPlayService
from bot.features.incidents.breaks import Breaks
from bot.features.incidents.core import IncidentBook, PlayedGames
from bot.features.incidents.noshow import NoShows
from bot.features.incidents.td import Overrules
from bot.features.negotiation.agreement import Agreements
from bot.features.negotiation.common import TimeChecks
from bot.features.negotiation.deadlines import NegotiationDeadlines
from bot.features.negotiation.notify import PlayerNotifications
from bot.features.negotiation.offers import PlayerOffers
from bot.features.negotiation.td import TDRulings
from bot.features.negotiation.zones import PlayerZones
from bot.features.registration.core import EntryChecks, Registrations
from bot.features.registration.login import routes as login_pages
from bot.features.registration.service import RegistrationService
from bot.features.registration.signup import SignUp
from bot.features.registration.td import Decisions
from bot.features.results.armageddon import ArmageddonBids
from bot.features.results.live import ResultStream
from bot.features.results.reading import Scorekeeper
from bot.features.results.records import MatchRecords
from bot.features.results.service import ResultsService
from bot.features.results.stage_rules import StageRules
from bot.features.rounds.final import FinalStage
from bot.features.rounds.leaving import StageLeaving
from bot.features.rounds.next_round import SwissNextRound
from bot.features.rounds.progress import RoundProgress
from bot.features.rounds.robin import RobinRounds
from bot.features.rounds.service import RoundService
from bot.features.rounds.stages import StageFlow
from bot.features.rounds.ties import StageTies
from bot.features.schedule.feeds import routes as calendar_feeds
from bot.features.schedule.service import ScheduleService
from bot.features.tables.service import TablesService
from bot.features.web.deps import RegisterVerified, WebDeps
from bot.features.web.routes import app_for
from bot.features.web.server import RouteMaker, WebServer
from bot.lichess.client import LichessClient
from bot.service import Service

S = TypeVar("S", bound=Service)


@dataclass
class Services:
    """One object per feature; the cogs reach them as `bot.svc.<feature>`."""

    registration: RegistrationService
    agreements: Agreements  # rule V.G: /accept, and the one agreed time
    offers: PlayerOffers  # rule V: offers, choice, rescheduling
    zones: PlayerZones  # a player's own time zone (V.B)
    notifications: PlayerNotifications  # reminder DMs on or off
    rulings: TDRulings  # the TD's V.E, V.H, V.I
    deadlines: NegotiationDeadlines  # rule V's deadlines and reminders
    rounds: RoundService  # rules IV, III.E-G: the TD's round commands, rounds closing
    ties: StageTies  # the ties the rules leave to the TD (III.E.5, III.F.3)
    fairplay: FairPlayService
    results: ResultsService  # match day read from Lichess: game links, the poll, /game
    bids: ArmageddonBids  # the Final's Armageddon: the bids for White (III.G.6)
    noshows: NoShows  # rule VI.D
    breaks: Breaks  # rules VI.A, VI.E
    overrules: Overrules  # the TD's overrule of an incident
    discipline: DisciplineService
    console: ConsoleService
    schedule: ScheduleService
    tables: TablesService
    choices: ChoicesService

    def all(self) -> list[Service]:
        return [getattr(self, f.name) for f in fields(self)]


def build_services(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: Clock,
    lichess: LichessClient | None = None,
    events: EventBus | None = None,
) -> Services:
    """Every feature's service on one bus; subscriptions are made here, in one place."""
    bus = events or EventBus()

    def build(kind: type[S]) -> S:
        return kind(sessions, config, clock, lichess=lichess, events=bus)

    # The rounds feature's collaborators, each one job, passed in rather than inherited.
    progress = RoundProgress(config, bus)
    final = FinalStage(config, bus, progress)
    flow = StageFlow(config, bus, progress, RobinRounds(config, progress), final)

    # Negotiation: the one agreed time (/accept's) is fixed the same way by the players'
    # choice and the TD's assignment, which hold it with the reading of typed times.
    agreements = build(Agreements)
    times = TimeChecks(config)

    # Incidents: each use case is given Lichess's view of the games (no-shows) and the
    # bookkeeping of a claim's timers and call-off.
    games = build(PlayedGames)
    book = IncidentBook(config)

    # Results: the link, the poll and /game, and the Armageddon's bids, each given the rules
    # of the stages, the match records and the one scorekeeper that settles a match.
    stage_rules = StageRules(config)
    records = MatchRecords(sessions, config, stage_rules)
    scorekeeper = Scorekeeper(sessions, config, clock, bus, stage_rules, records)

    results = ResultsService(
        sessions,
        config,
        clock,
        rules=stage_rules,
        records=records,
        scorekeeper=scorekeeper,
        lichess=lichess,
        events=bus,
    )
    if lichess is not None:  # the game stream brings results within seconds (`live.py`)
        results.stream = ResultStream(
            sessions,
            config,
            clock,
            lichess=lichess,
            rules=stage_rules,
            records=records,
            scorekeeper=scorekeeper,
            read=results.read,
        )

    services = Services(
        registration=build_registration(sessions, config, clock, lichess, bus),
        agreements=agreements,
        offers=PlayerOffers(
            sessions,
            config,
            clock,
            agreements=agreements,
            times=times,
            lichess=lichess,
            events=bus,
        ),
        zones=build(PlayerZones),
        notifications=build(PlayerNotifications),
        rulings=TDRulings(
            sessions,
            config,
            clock,
            agreements=agreements,
            times=times,
            lichess=lichess,
            events=bus,
        ),
        deadlines=build(NegotiationDeadlines),
        rounds=RoundService(
            sessions,
            config,
            clock,
            progress=progress,
            flow=flow,
            final=final,
            next_round=SwissNextRound(sessions, config, clock, progress),
            leaving=StageLeaving(config, progress, final, flow.advance),
            lichess=lichess,
            events=bus,
        ),
        ties=StageTies(sessions, config, clock, flow=flow, lichess=lichess, events=bus),
        fairplay=build(FairPlayService),
        results=results,
        bids=ArmageddonBids(sessions, config, clock, records=records, lichess=lichess, events=bus),
        noshows=NoShows(
            sessions, config, clock, games=games, book=book, lichess=lichess, events=bus
        ),
        breaks=Breaks(sessions, config, clock, book=book, lichess=lichess, events=bus),
        overrules=Overrules(sessions, config, clock, book=book, lichess=lichess, events=bus),
        discipline=build(DisciplineService),
        console=build(ConsoleService),
        schedule=build(ScheduleService),
        tables=build(TablesService),
        choices=build(ChoicesService),
    )
    for service in services.all():
        for kind, handler in service.subscriptions():
            bus.subscribe(kind, handler)
    return services


def build_registration(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: Clock,
    lichess: LichessClient | None = None,
    events: EventBus | None = None,
) -> RegistrationService:
    """Registration's use cases: the players' sign-up and the TD's decisions, both given
    the reading of registrations, the sign-up the Lichess entry checks too."""
    bus = events or EventBus()
    registrations = Registrations(sessions, config, clock)
    checks = EntryChecks(sessions, config, clock, lichess=lichess, events=bus)
    signup = SignUp(
        sessions,
        config,
        clock,
        registrations=registrations,
        checks=checks,
        lichess=lichess,
        events=bus,
    )
    decisions = Decisions(
        sessions, config, clock, registrations=registrations, lichess=lichess, events=bus
    )
    return RegistrationService(
        sessions,
        config,
        clock,
        registrations=registrations,
        signup=signup,
        decisions=decisions,
        lichess=lichess,
        events=bus,
    )


def register_timers(services: Services, runner: DueActionRunner) -> None:
    """Each due-action kind to the one service that runs it; each sweep step once."""
    for service in services.all():
        for kind, handler in service.due_handlers().items():
            runner.register(kind, handler)
        for name, step in service.sweep_steps().items():
            runner.add_step(name, step)


#: The site's parts that other features own (the calendar feeds, the Lichess login), each a
#: route maker given to the web feature (`app_for(deps, others)`), which imports no feature.
WEB_PARTS: list[RouteMaker] = [calendar_feeds, login_pages]


def web_server(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: Clock,
    *,
    register_verified: RegisterVerified | None = None,
) -> WebServer:
    """The public site `acwc run` serves on `web.host`:`web.port` when `web.enabled`."""
    deps = WebDeps(sessions, config, clock, register_verified=register_verified)
    return WebServer(app_for(deps, WEB_PARTS), config.web.host, config.web.port)
