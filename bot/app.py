"""The Discord bot: start-up wiring, the services it holds, and clean shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
from asyncio import FIRST_COMPLETED
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from discord import app_commands
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot import startup
from bot.channel_access import ChannelAccess
from bot.clock import Clock, SystemClock
from bot.config import Config, Secrets
from bot.doctor.at_start import check_at_start, setup_needed, still_needs_setup
from bot.doctor.lines import CheckLine
from bot.due import DueActionRunner
from bot.features.rounds.publisher import RoundPublisher
from bot.features.web.server import WebServer
from bot.lichess.client import LichessClient
from bot.lichess.urgency import person_waiting
from bot.outbox import OutboxWorker
from bot.scheduler import build_scheduler
from bot.server_settings import ServerSettings
from bot.wiring import Services, build_services, register_timers, web_server
from db import schema
from db.engine import make_engine, make_sessionmaker

log = logging.getLogger(__name__)
DRAIN_SECONDS = 10.0  # a clean stop waits at most this long for the work under way

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
    "bot.features.server.cog",
)

ALLOWED_MENTIONS = discord.AllowedMentions(
    everyone=False, roles=False, users=True, replied_user=False
)


# The bot never joins a voice channel: discord.py's warnings about missing voice libraries
# would only be noise in the TD's log at every start.
discord.VoiceClient.warn_nacl = False
discord.VoiceClient.warn_dave = False


class ChampionshipTree(app_commands.CommandTree["ChampionshipBot"]):
    """The command tree: every slash command answers a person who is waiting, so none of its
    Lichess calls waits out a 429 pause (bot.lichess.urgency)."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        person_waiting()
        if self.client.setup_mode:  # only /td setup and /help answer (cogs.setup_mode)
            from cogs.setup_mode import refused_in_setup_mode

            return not await refused_in_setup_mode(interaction)
        return True


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
        check_setup: bool = True,
        start_scheduler: bool = True,
        flush_after_commands: bool = True,
        draw_ahead: bool | None = None,
    ) -> None:
        intents = discord.Intents.default()
        # The rule VII.A watch reads public messages: only then ask for message content.
        intents.message_content = config.fair_play.flag_public_accusations
        super().__init__(
            command_prefix=commands.when_mentioned,
            tree_cls=ChampionshipTree,
            intents=intents,
            # Text from users (reasons, reports, names) must never ping @everyone, @here or a
            # role: only user mentions the bot writes itself ping anyone.
            allowed_mentions=ALLOWED_MENTIONS,
        )
        # The bot's own copy of the server section: /td setup changes it in place
        # (bot.server_settings), and the caller's config stays what the file said.
        self.config = config.model_copy(update={"discord": config.discord.model_copy()})
        self.secrets = secrets
        self.clock: Clock = clock or SystemClock()
        self.lichess = lichess or LichessClient(
            base_url=config.lichess.base_url,
            token=secrets.lichess_token,
            timeout=config.lichess.timeout_seconds,
            rate_limit_pause=config.lichess.rate_limit_pause_seconds,
        )
        self.sync_commands = sync_commands
        # At start, the checks of `acwc doctor`: what makes the bot useless stops it, the rest
        # is logged and told to the TD once (bot.doctor). Tests and the simulation turn it off.
        self.check_setup = check_setup
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
        self.server_settings: ServerSettings | None = None
        self.access: ChannelAccess | None = None
        self.outbox: OutboxWorker | None = None
        self.due: DueActionRunner | None = None
        self.publisher: RoundPublisher | None = None
        self.services: Services | None = None
        self.scheduler: AsyncIOScheduler | None = None
        self.web: WebServer | None = None  # the public site, when `web.enabled`
        self.jobs_in_flight: set[asyncio.Task[object]] = set()
        # Setup mode: the checks' lines that `/td setup` must fix first (no pairings channel).
        # While any is left the bot answers only /td setup and /help, publishes nothing and
        # runs no job; the /td setup change that fixes the last one starts it, no restart.
        self.setup_mode: list[CheckLine] = []

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
        # Channels and the TD role set with /td setup, over the config file's, before anyone
        # reads them (bot.server_settings).
        self.server_settings = ServerSettings(self.sessions, self.clock, self.config.discord)
        await self.server_settings.load()
        self.access = ChannelAccess(self, self.sessions, self.clock, self.config)
        await self.access.load()
        self.outbox = OutboxWorker(
            self,
            self.sessions,
            self.clock,
            settings=self.config.discord,
            access=self.access,
        )
        await self.outbox.release_claims_left_by_a_dead_process()
        self.due = DueActionRunner(self.sessions, self.clock)
        self.services = build_services(self.sessions, self.config, self.clock, self.lichess)
        register_timers(self.services, self.due)
        self.publisher = RoundPublisher(
            self, self.sessions, self.clock, self.config, access=self.access
        )
        await self.services.registration.ensure_pre_seeded()
        await self.services.registration.schedule_close()
        install_error_handler(self.tree)
        self.add_listener(answer_stale_buttons, "on_interaction")
        # What can give a refused channel its permissions back (bot.channel_access).
        for event in ("on_guild_channel_update", "on_guild_role_update", "on_guild_update"):
            self.add_listener(self._permissions_may_have_changed, event)
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        if self.check_setup:
            lines = await check_at_start(self, self.config, self.secrets, self.sessions, self.clock)
            self.setup_mode = setup_needed(lines)
        synced = None
        if self.sync_commands:  # a tree Discord refuses stops the start too (bot.startup)
            synced = await self._sync_commands()
        if not self.setup_mode:
            self._start_jobs()
        if self.config.web.enabled and self.web is None:  # the pages read the database only
            self.web = web_server(  # the Lichess login registers through registration's path
                self.sessions,
                self.config,
                self.clock,
                register_verified=self.svc.registration.register_verified,
            )
            await self.web.start()
        if synced is not None:  # a live bot: the one line that says it is up
            await self._log_ready(synced)
        if self.start_scheduler:
            # A live bot: everything loaded so far (modules, discord.py, SQLAlchemy's
            # mappings) lives as long as the process. Out of the collector's sight, a full
            # collection scans only what commands allocate, and no longer stalls a command
            # for a tenth of a second. (Tests start many bots in one process: not theirs.)
            gc.freeze()

    def _start_jobs(self) -> None:
        if self.start_scheduler and self.scheduler is None:
            self.scheduler = build_scheduler(self.periodic_jobs(), self.jobs_in_flight)
            self.scheduler.start()
            stream = self.svc.results.stream
            if stream is not None:  # results within seconds; the poll is the safety net
                stream.on_news = self.deliver
                task = asyncio.get_running_loop().create_task(stream.start())
                self.jobs_in_flight.add(task)
                task.add_done_callback(self.jobs_in_flight.discard)

    async def _stop_stream(self) -> None:
        if self.services is not None and self.services.results.stream is not None:
            await self.services.results.stream.stop()

    async def _log_ready(self, synced: int) -> None:
        """One INFO line once the commands are synced: a TD reading the log sees the bot is
        up, where, and whether it waits in setup mode (the scheduler's own lines are quiet at
        INFO: bot.logging_setup)."""
        guild_id = self.config.discord.guild_id
        where = "globally"
        if guild_id is not None:
            where = f"to server {guild_id}"
            with contextlib.suppress(discord.HTTPException):
                where = f"to server {(await self.fetch_guild(guild_id)).name} ({guild_id})"
        if self.setup_mode:
            log.info(
                "Ready in setup mode: %d slash commands synced %s; only /td setup and /help "
                "answer until /td setup fixes: %s",
                synced,
                where,
                "; ".join(line.title for line in self.setup_mode),
            )
        else:
            log.info("Ready: %d slash commands synced %s; the jobs run.", synced, where)

    async def _permissions_may_have_changed(self, *_: object) -> None:
        if self.access is not None and await self.access.retry_now():
            await self.deliver()

    async def server_settings_changed(self) -> None:
        """/td setup changed a channel: what waited for one may go out now. In setup mode,
        the Discord checks run again; once none needs setup the bot goes on as if it had
        started so (jobs, deliveries), with no restart."""
        if self.setup_mode:
            self.setup_mode = await still_needs_setup(self, self.config, self.secrets, self.clock)
            if self.setup_mode:
                return
            log.info("Setup done with /td setup: the bot leaves setup mode; the jobs run.")
            self._start_jobs()
        if self.access is not None:
            await self.access.retry_now()
        await self.deliver()

    @property
    def server_settings_service(self) -> ServerSettings:
        if self.server_settings is None:
            raise RuntimeError("the bot has not finished setup_hook")
        return self.server_settings

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
        """Post what publication left to create, then send the queued messages (in setup
        mode nothing: the pairings channel they may need is not set yet)."""
        if self.setup_mode:
            return
        if self.publisher is not None:
            await self.publisher.sync()
        if self.outbox is not None:
            await self.outbox.flush()

    async def _sync_commands(self) -> int:
        return await startup.sync_commands(self.tree, self.config.discord.guild_id)

    @property
    def svc(self) -> Services:
        if self.services is None:
            raise RuntimeError("the bot has not finished setup_hook")
        return self.services

    def run(self, token: str, **_: Any) -> None:
        """Run until Discord closes the connection or the process is asked to stop."""
        asyncio.run(self.serve(token))

    async def serve(self, token: str, stop: asyncio.Event | None = None) -> None:
        """Log in and run; SIGTERM or SIGINT (Ctrl-C) stops cleanly: `drain`, then close.
        (`stop`: set it to stop the same way, as a test does.)"""
        loop = asyncio.get_running_loop()
        if stop is None:
            stop = asyncio.Event()
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, stop.set)
        async with self:
            running = asyncio.create_task(self.start(token))
            stopping = asyncio.create_task(stop.wait())
            done, _ = await asyncio.wait({running, stopping}, return_when=FIRST_COMPLETED)
            if running in done:
                stopping.cancel()
                running.result()  # Discord's error, if that is why it ended
                return
            began = loop.time()
            finished = await self.drain()
            running.cancel()
            await self.close()
            with contextlib.suppress(asyncio.CancelledError):
                await running
            state = "nothing left half-sent" if finished else "a delivery was cut short"
            log.info("Stopped on request in %.1f s: %s.", loop.time() - began, state)

    async def drain(self, within: float = DRAIN_SECONDS) -> bool:
        """A clean stop: no new job runs; the job runs and the delivery under way finish and
        are marked; no claim is left behind. False when `within` seconds cut it short (the claims
        then stay, and the next start frees them)."""
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=False)
            self.scheduler = None
        await self._stop_stream()
        try:
            async with asyncio.timeout(within):
                pending = [t for t in self.jobs_in_flight if not t.done()]
                if pending:
                    await asyncio.wait(pending)
                if self.outbox is not None:
                    await self.outbox.idle()
        except TimeoutError:
            log.warning("the work under way did not finish within %s s", within)
            return False
        if self.outbox is not None:
            await self.outbox.release_claims_left_by_a_dead_process()
        return True

    async def close(self) -> None:
        """Stop the jobs, then Discord, Lichess and the database, in that order: a job run
        still under way (a close without `drain`, e.g. Discord ended the connection) is
        cancelled and awaited first, so that no run outlives the engine it uses."""
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=False)
        await self._stop_stream()
        running = [t for t in self.jobs_in_flight if not t.done()]
        for task in running:
            task.cancel()
        if running:
            await asyncio.wait(running, timeout=DRAIN_SECONDS)
        if self.web is not None:
            await self.web.stop()
            self.web = None
        await super().close()
        await self.lichess.aclose()
        if self.engine is not None:
            await self.engine.dispose()
