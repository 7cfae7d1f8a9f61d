"""The Discord bot: start-up wiring, the services it holds, and clean shutdown."""

from __future__ import annotations

import gc
import logging
from collections.abc import Awaitable, Callable

import discord
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot import startup
from bot.clock import Clock, SystemClock
from bot.config import Config, Secrets
from bot.due import DueActionRunner
from bot.features.rounds.publisher import RoundPublisher
from bot.lichess.client import LichessClient
from bot.outbox import OutboxWorker
from bot.scheduler import build_scheduler
from bot.wiring import Services, build_services, register_timers
from db import schema
from db.engine import make_engine, make_sessionmaker

log = logging.getLogger(__name__)

# The features' Discord sides, loaded as discord.py extensions (each has `setup(bot)`).
EXTENSIONS = (
    "bot.features.registration.cog",
    "bot.features.rounds.cog",
    "bot.features.negotiation.cog",
    "bot.features.results.cog",
    "bot.features.incidents.cog",
    "bot.features.discipline.cog",
    "bot.features.fairplay.cog",
    "bot.features.console.cog",
    "bot.features.schedule.cog",
    "bot.features.tables.cog",
)

ALLOWED_MENTIONS = discord.AllowedMentions(
    everyone=False, roles=False, users=True, replied_user=False
)


class ChampionshipBot(commands.Bot):
    """Holds configuration, the DB, the one Lichess client and the services the cogs call."""

    def __init__(
        self,
        config: Config,
        secrets: Secrets,
        *,
        clock: Clock | None = None,
        lichess: LichessClient | None = None,
        sync_commands: bool = True,
        start_scheduler: bool = True,
        flush_after_commands: bool = True,
        draw_ahead: bool | None = None,
    ) -> None:
        intents = discord.Intents.default()
        # The rule VII.A watch reads public messages: only then ask for message content.
        intents.message_content = config.fair_play.flag_public_accusations
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            # Text from users (reasons, reports, names) must never ping @everyone, @here or a
            # role: only user mentions the bot writes itself ping anyone.
            allowed_mentions=ALLOWED_MENTIONS,
        )
        self.config = config
        self.secrets = secrets
        self.clock: Clock = clock or SystemClock()
        self.lichess = lichess or LichessClient(
            base_url=config.lichess.base_url,
            token=secrets.lichess_token,
            timeout=config.lichess.timeout_seconds,
            rate_limit_pause=config.lichess.rate_limit_pause_seconds,
        )
        self.sync_commands = sync_commands
        self.start_scheduler = start_scheduler
        # A command delivers the messages it queued at once. The simulation turns this off
        # and delivers once per step of its clock: the same messages, far fewer flushes.
        self.flush_after_commands = flush_after_commands
        # A live bot keeps the current standings picture drawn ahead of /standings (see
        # bot.features.tables.pictures); tests and the simulation, which run no scheduler,
        # draw it when asked, unless they say otherwise.
        self.draw_ahead = start_scheduler if draw_ahead is None else draw_ahead
        self.engine: AsyncEngine | None = None
        self.sessions: async_sessionmaker[AsyncSession] | None = None
        self.outbox: OutboxWorker | None = None
        self.due: DueActionRunner | None = None
        self.publisher: RoundPublisher | None = None
        self.services: Services | None = None
        self.scheduler: AsyncIOScheduler | None = None

    async def setup_hook(self) -> None:
        """Migrate, wire services, load cogs, register persistent buttons, start the jobs."""
        from cogs.common import answer_stale_buttons
        from cogs.errors import install_error_handler

        url = self.config.database.url
        if not await schema.at_head(url):  # `acwc run` has migrated in a child (db.schema)
            from db import migrate

            await migrate.upgrade(url)
        self.engine = make_engine(url)
        self.sessions = make_sessionmaker(self.engine)
        self.outbox = OutboxWorker(
            self,
            self.sessions,
            self.clock,
            td_alert_channel_id=self.config.discord.td_alert_channel_id,
        )
        await self.outbox.release_claims_left_by_a_dead_process()
        self.due = DueActionRunner(self.sessions, self.clock)
        self.services = build_services(self.sessions, self.config, self.clock, self.lichess)
        register_timers(self.services, self.due)
        self.publisher = RoundPublisher(self, self.sessions, self.clock, self.config)
        await self.services.registration.ensure_pre_seeded()
        await self.services.registration.schedule_close()
        install_error_handler(self.tree)
        self.add_listener(answer_stale_buttons, "on_interaction")
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        if self.sync_commands:  # first: a tree Discord refuses stops the start (bot.startup)
            await self._sync_commands()
        if self.start_scheduler:
            self.scheduler = build_scheduler(self.periodic_jobs())
            self.scheduler.start()
        if self.start_scheduler:
            # A live bot: everything loaded so far (modules, discord.py, SQLAlchemy's
            # mappings) lives as long as the process. Out of the collector's sight, a full
            # collection scans only what commands allocate, and no longer stalls a command
            # for a tenth of a second. (Tests start many bots in one process: not theirs.)
            gc.freeze()

    def periodic_jobs(self) -> dict[str, tuple[Callable[[], Awaitable[object]], int]]:
        """The periodic jobs by name: (what runs, interval in seconds)."""
        if self.due is None or self.services is None:
            raise RuntimeError("the bot has not finished setup_hook")
        jobs = self.config.jobs
        return {
            "outbox": (self.deliver, jobs.outbox_flush_seconds),
            # Due actions and the game links of matches whose agreed time has come.
            "deadlines": (self.due.sweep, jobs.deadline_sweep_seconds),
            "accounts": (
                self.services.fairplay.check_accounts,
                int(self.config.fair_play.account_check_hours * 3600),
            ),
            "results": (self.services.results.run_once, jobs.results_poll_seconds),
        }

    async def deliver(self) -> None:
        """Post what publication left to create, then send the queued messages."""
        if self.publisher is not None:
            await self.publisher.sync()
        if self.outbox is not None:
            await self.outbox.flush()

    async def _sync_commands(self) -> None:
        await startup.sync_commands(self.tree, self.config.discord.guild_id)

    @property
    def svc(self) -> Services:
        if self.services is None:
            raise RuntimeError("the bot has not finished setup_hook")
        return self.services

    async def close(self) -> None:
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=False)
        await super().close()
        await self.lichess.aclose()
        if self.engine is not None:
            await self.engine.dispose()
