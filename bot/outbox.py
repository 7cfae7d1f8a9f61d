"""The outbox: messages services want sent, delivered by a worker with retries (see
docs/ARCHITECTURE.md, "Messages: the outbox").

Services call `enqueue_*` inside their own transaction, so a message exists exactly when the
state change that caused it was committed. The worker sends due rows, records the Discord
message id, retries with back-off, and turns a DM that Discord refuses into a mention in the
fallback channel plus a note to the TD (an edit in an archived thread: bot/thread_edits.py).

Several flushes may run at once: the periodic job and the kick after each command in one
process, and, after a restart or with a second process, flushes in other processes. Before
sending, a flush claims a batch of due rows with one conditional UPDATE that takes only the
rows that are unsent, not given up on, and not claimed by anyone else (or whose claim's lease
has run out); only the flush whose UPDATE changed a row sends it. Before each send the flush
checks that at least half of the batch's lease is left, and renews the claim of that row
(again only while it holds it) if not. Marking each row right after its send (sent, failed,
postponed, superseded) clears its claim and happens only while the flush still holds it, so
a flush whose lease ran out and was taken over cannot overwrite the newer attempt.

The guarantee, plainly: each row is sent at most once per lease, and every send of a row
carries the same nonce with `enforce_nonce` (`nonce_of`). If the process dies after Discord
accepted a message but before the row was marked sent, the row is sent again at the restart
(a starting bot frees every claim: one bot runs per database), and Discord answers with the
message it already made (it remembers nonces for a few minutes); a repeated edit shows the
same text. Only a repeat after that memory (a send half done, then an outage) shows twice.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

import discord
from sqlalchemy import CursorResult, Row, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.channel_access import ChannelAccess, is_refusal
from bot.clock import Clock
from bot.config import DiscordConfig
from bot.message_text import MESSAGE_LIMIT, fit, split_text
from bot.outbox_attachments import AttachmentFactory, draw_attachment, send_with_file
from bot.outbox_queue import enqueue_channel, enqueue_dm, enqueue_edit, enqueue_edit_of
from bot.thread_edits import edit_message
from db.engine import transaction
from db.models import OutboxKind, OutboxMessage

__all__ = [
    "LEASE",
    "MAX_ATTEMPTS",
    "OutboxWorker",
    "enqueue_channel",
    "enqueue_dm",
    "enqueue_edit",
    "enqueue_edit_of",
    "nonce_of",
]

log = logging.getLogger(__name__)


def fallback_prefix(user_id: int) -> str:
    """What a DM to a member whose DMs are closed starts with where it is posted instead."""
    return f"<@{user_id}> (your DMs are closed) "


def nonce_of(message: OutboxMessage, part: str = "") -> str:
    """The nonce a row is sent with, the same at every attempt: Discord answers a second
    send with the same nonce (enforce_nonce) with the message it already made, so a send
    repeated after a crash does not post twice."""
    return f"acwc{message.id}{part}"[:25]


MAX_ATTEMPTS = 8
# The mark of a row whose send a dead process may have made (then: since when).
UNSURE = "unsure: claimed by a process that stopped, at "
# How long a claim keeps other flushes off a row. A live flush finishes one send (discord.py's
# own rate-limit waits included) in seconds, so two minutes never cuts a healthy send short;
# shorter would risk a slow but live send being taken over and sent twice.
LEASE = timedelta(seconds=120)
# Rows claimed by one UPDATE: a batch per transaction, sent well within its (renewed) lease.
CLAIM_BATCH = 50
ViewFactory = Callable[[dict[str, Any]], discord.ui.View]


@dataclass(frozen=True)
class _Lease:
    """One flush's claim on a batch of rows: its token and until when it holds them."""

    token: str
    until: datetime


def _rowcount(result: Any) -> int:
    return int(cast(CursorResult[Any], result).rowcount)


class OutboxWorker:
    """Delivers due outbox rows; safe to call repeatedly and after a restart."""

    def __init__(
        self,
        client: discord.Client,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        settings: DiscordConfig | None = None,
        access: ChannelAccess | None = None,
    ) -> None:
        self.client = client
        self.sessions = sessions
        self.clock = clock
        # The server's channels, read at each use: /td setup may change them while running.
        self.settings = settings or DiscordConfig()
        # Channels Discord refuses the bot: their rows wait instead of failing (bot.channel_access).
        self.access = access
        self.views: dict[str, ViewFactory] = {}
        self.attachments: dict[str, AttachmentFactory] = {}
        # One flush at a time in this process: the periodic job and the kicks queue up here
        # instead of racing for the same rows. The claims below make it safe across processes.
        self._flushing = asyncio.Lock()

    def register_view(self, kind: str, factory: ViewFactory) -> None:
        """Cogs register how to rebuild the buttons a stored message carries."""
        self.views[kind] = factory

    def register_attachment(self, kind: str, factory: AttachmentFactory) -> None:
        """Features register how to draw the file a stored message carries (see
        bot.outbox_attachments)."""
        self.attachments[kind] = factory

    async def release_claims_left_by_a_dead_process(self) -> int:
        """At startup, before any send: free every claim (see the module's docstring). A
        post or DM whose claim is freed here may have reached Discord: it is marked unsure,
        and looked for before it is sent again (`_already_sent`)."""
        async with transaction(self.sessions) as session:
            left = (
                await session.execute(
                    select(OutboxMessage.id, OutboxMessage.kind, OutboxMessage.claimed_until).where(
                        OutboxMessage.claim_token.is_not(None)
                    )
                )
            ).all()
            for message_id, kind, claimed_until in left:
                values: dict[str, Any] = {"claimed_until": None, "claim_token": None}
                if kind is not OutboxKind.EDIT and claimed_until is not None:
                    values["last_error"] = UNSURE + (claimed_until - LEASE).isoformat()
                await session.execute(
                    update(OutboxMessage).where(OutboxMessage.id == message_id).values(**values)
                )
        return len(left)

    async def _already_sent(self, message: OutboxMessage) -> discord.Message | None:
        """An unsure row's message, if Discord has it: the bot's own message with the same
        text in the target channel (or DM) since the claim. Discord's nonce memory covers a
        quick restart; this covers a late one."""
        since = datetime.fromisoformat((message.last_error or "").removeprefix(UNSURE))
        if message.kind is OutboxKind.DM:
            channel: discord.abc.Messageable = await self.client.create_dm(
                discord.Object(id=message.target_id)
            )
        else:
            channel = self._messageable(message.target_id)
        # A row sent in parts was sent whole when its last part is there.
        dm = message.kind is OutboxKind.DM
        limit = MESSAGE_LIMIT - (len(fallback_prefix(message.target_id)) if dm else 0)
        last_part = split_text(message.content or "", limit)[-1] if message.content else ""
        after = discord.Object(id=discord.utils.time_snowflake(since - timedelta(minutes=1)))
        me = self.client.user.id if self.client.user else None
        same = [
            sent
            async for sent in channel.history(limit=50, after=after)
            if sent.author.id == me and sent.content == last_part
        ]
        if not same:
            return None
        async with self.sessions() as session:  # another row's message (two reminders alike)
            taken = set(
                await session.scalars(
                    select(OutboxMessage.discord_message_id).where(
                        OutboxMessage.discord_message_id.in_([m.id for m in same])
                    )
                )
            )
        return next((m for m in reversed(same) if m.id not in taken), None)

    async def idle(self) -> None:
        """Wait until the flush under way (if any) has sent and marked its rows."""
        async with self._flushing:
            return

    async def flush(self, limit: int | None = 50) -> int:
        """Send every due message once (at most `limit`, None for all); returns how many
        were delivered."""
        async with self._flushing:
            return await self._flush(limit)

    async def _flush(self, limit: int | None) -> int:
        now = self.clock.now()
        async with self.sessions() as session:
            due = (
                await session.execute(
                    select(
                        OutboxMessage.id,
                        OutboxMessage.kind,
                        OutboxMessage.target_id,
                        OutboxMessage.edit_message_id,
                        OutboxMessage.edit_of_key,
                    )
                    .where(
                        OutboxMessage.sent_at.is_(None),
                        OutboxMessage.failed_at.is_(None),
                        OutboxMessage.next_attempt_at <= now,
                    )
                    .order_by(OutboxMessage.id)
                    .limit(limit)
                )
            ).all()
        delivered = 0
        # Edits apply in queue order: while another flush holds an edit of some message, the
        # later edits of that message wait for the next flush rather than overtake it.
        held_elsewhere: set[tuple[object, ...]] = set()
        for start in range(0, len(due), CLAIM_BATCH):
            chunk = due[start : start + CLAIM_BATCH]
            lease = _Lease(uuid.uuid4().hex, self.clock.now() + LEASE)
            claimed = await self._claim([row[0] for row in chunk], lease)
            try:
                delivered += await self._deliver_batch(chunk, claimed, lease, held_elsewhere)
            except Exception:
                # Not a Discord answer (a bug, say): the rows of the batch not tried yet are
                # freed for the next flush rather than parked until the lease runs out.
                for message_id in claimed:
                    await self._release(message_id, lease.token)
                raise
        return delivered

    async def _deliver_batch(
        self,
        chunk: Sequence[Row[int, OutboxKind, int, int | None, str | None]],
        claimed: dict[int, OutboxMessage],
        lease: _Lease,
        held_elsewhere: set[tuple[object, ...]],
    ) -> int:
        """Send the rows of one claimed batch in queue order; `claimed` keeps those not
        tried yet."""
        delivered = 0
        for message_id, kind, target_id, edit_message_id, edit_of_key in chunk:
            edited: tuple[object, ...] | None = None
            if edit_of_key:
                edited = ("key", edit_of_key)
            elif kind is OutboxKind.EDIT and edit_message_id:
                edited = ("message", target_id, edit_message_id)
            message = claimed.pop(message_id, None)
            if message is None:  # another flush holds it
                if edited is not None:
                    held_elsewhere.add(edited)
                continue
            if edited is not None and edited in held_elsewhere:
                await self._release(message_id, lease.token)  # its turn comes later
                continue
            if not await self._still_held(message, lease):
                continue
            delivered += await self._deliver(message, lease.token)
        return delivered

    async def _claim(self, message_ids: list[int], lease: _Lease) -> dict[int, OutboxMessage]:
        """Take these rows for one lease in one transaction: one conditional UPDATE for all,
        returning the rows it changed (those unsent, due and not held by anyone else), by id;
        the others are left to whoever holds them."""
        now = self.clock.now()
        claim = (
            update(OutboxMessage)
            .where(
                OutboxMessage.id.in_(message_ids),
                OutboxMessage.sent_at.is_(None),
                OutboxMessage.failed_at.is_(None),
                # Still due: a flush that read the row before another one postponed it or
                # backed it off must not send it early.
                OutboxMessage.next_attempt_at <= now,
                or_(OutboxMessage.claimed_until.is_(None), OutboxMessage.claimed_until <= now),
            )
            .values(claimed_until=lease.until, claim_token=lease.token)
            .execution_options(synchronize_session=False)
        )
        async with transaction(self.sessions) as session:
            if session.get_bind().dialect.update_returning:  # PostgreSQL, SQLite 3.35+
                rows = await session.scalars(claim.returning(OutboxMessage))
            else:
                await session.execute(claim)
                mine = OutboxMessage.id.in_(message_ids), OutboxMessage.claim_token == lease.token
                rows = await session.scalars(select(OutboxMessage).where(*mine))
            return {row.id: row for row in rows}

    async def _still_held(self, message: OutboxMessage, lease: _Lease) -> bool:
        """Whether this flush may send `message` now. The batch's lease is renewed once less
        than half of it is left (rate-limit waits can make a batch slow), so no send starts
        on a claim that could run out under it. A row whose claim already ran out and was
        taken by another flush meanwhile is that flush's now."""
        now = self.clock.now()
        if now < lease.until - LEASE / 2:
            return True
        renewed = now + LEASE
        async with transaction(self.sessions) as session:
            result = await session.execute(
                update(OutboxMessage)
                .where(OutboxMessage.id == message.id, OutboxMessage.claim_token == lease.token)
                .values(claimed_until=renewed)
                .execution_options(synchronize_session=False)
            )
        if _rowcount(result) == 1:
            message.claimed_until = renewed
            return True
        log.warning("outbox message %s: claim lost before it was sent", message.id)
        return False

    async def _release(self, message_id: int, token: str, **values: Any) -> bool:
        """Write the outcome and drop the claim, only if this flush still holds it."""
        async with transaction(self.sessions) as session:
            result = await session.execute(
                update(OutboxMessage)
                .where(OutboxMessage.id == message_id, OutboxMessage.claim_token == token)
                .values(claimed_until=None, claim_token=None, **values)
                .execution_options(synchronize_session=False)
            )
        if _rowcount(result) == 1:
            return True
        log.warning("outbox message %s: claim lost before it could be marked", message_id)
        return False

    async def _deliver(self, message: OutboxMessage, token: str) -> int:
        """Send one claimed row and mark it: 1 if sent, 0 if not (yet)."""
        message_id = message.id
        if message.edit_of_key and not message.edit_message_id:
            async with self.sessions() as session:
                original = await session.scalar(
                    select(OutboxMessage.discord_message_id).where(
                        OutboxMessage.dedupe_key == message.edit_of_key
                    )
                )
                if original is None:
                    return await self._postpone(message_id, token)
                newer = await session.scalar(
                    select(OutboxMessage.id).where(
                        OutboxMessage.edit_of_key == message.edit_of_key,
                        OutboxMessage.id > message.id,
                        OutboxMessage.sent_at.is_not(None),
                    )
                )
            if newer is not None:
                return await self._mark_superseded(message_id, token)
            message.edit_message_id = original
        channel_id = None if message.kind is OutboxKind.DM else message.target_id
        if channel_id is not None and self.access is not None:
            wait = self.access.wait(channel_id)
            if wait is not None:  # refused there before: no knocking until it may work
                return await self._postpone(message_id, token, until=wait)
        try:
            unsure = (message.last_error or "").startswith(UNSURE)
            sent = (await self._already_sent(message) if unsure else None) or await self._send(
                message
            )
        except discord.Forbidden as exc:
            if channel_id is not None and self.access is not None and is_refusal(exc):
                until = await self.access.refused(channel_id, exc, doing="posting a message")
                return await self._postpone(message_id, token, until=until)
            if message.kind is not OutboxKind.DM:
                return await self._failed(message, token, exc, retry=False)
            try:
                sent = await self._dm_fallback(message)
            except discord.HTTPException as fallback_exc:  # the thread post failed: retry all
                return await self._failed(message, token, fallback_exc, retry=True)
        except (discord.HTTPException, discord.NotFound) as exc:
            return await self._failed(message, token, exc, retry=True)
        except Exception:
            # Not a Discord answer (a bug, say): free the row for the next flush, as before
            # claims, rather than leave it parked until the lease runs out.
            await self._release(message_id, token)
            raise
        if channel_id is not None and self.access is not None:
            await self.access.worked(channel_id)
        marked = await self._release(
            message_id,
            token,
            sent_at=self.clock.now(),
            attempts=OutboxMessage.attempts + 1,
            discord_message_id=sent.id if sent else None,
        )
        return 1 if marked else 0

    def _payload(self, message: OutboxMessage) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "content": message.content or None,
            "embeds": [discord.Embed.from_dict(e) for e in message.embeds],
        }
        if message.view:
            factory = self.views.get(message.view["kind"])
            if factory is not None:
                kwargs["view"] = factory(message.view.get("args", {}))
        return kwargs

    def _messageable(self, channel_id: int) -> discord.PartialMessageable:
        """A channel or thread by id, without fetching it first (one request less)."""
        return self.client.get_partial_messageable(channel_id)

    async def _send(self, message: OutboxMessage) -> discord.Message | None:
        if message.kind is OutboxKind.DM:
            dm = await self.client.create_dm(discord.Object(id=message.target_id))
            limit = MESSAGE_LIMIT - len(fallback_prefix(message.target_id))
            return await self._send_parts(dm, message, limit=limit)
        channel = self._messageable(message.target_id)
        if message.kind is OutboxKind.EDIT and message.edit_message_id:
            payload = self._payload(message)  # an edit is one message: cut, marked, if too long
            payload["content"] = fit(payload["content"]) if payload["content"] else None
            return await edit_message(self.client, channel, message.edit_message_id, **payload)
        return await self._send_parts(channel, message)

    async def _send_parts(
        self,
        channel: discord.abc.Messageable,
        message: OutboxMessage,
        *,
        limit: int = MESSAGE_LIMIT,
        prefix: str = "",
        nonce_part: str = "",
    ) -> discord.Message | None:
        """Send a row as one message, or, when its text is longer than Discord takes, as
        several cut between lines (bot.message_text.split_text); the embeds, buttons and
        attachment go with the last. Each part has its own stable nonce. The first part's
        message is the row's (an edit by key changes that one)."""
        payload = self._payload(message)
        parts = split_text(message.content or "", limit - len(prefix)) if message.content else [""]
        first: discord.Message | None = None
        for k, part in enumerate(parts):
            last = k == len(parts) - 1
            kwargs = dict(payload) if last else {}
            kwargs["content"] = (prefix + part) or None
            nonce = nonce_of(message, nonce_part + (f"p{k}" if k else ""))
            file = await draw_attachment(message, self.attachments) if last else None
            sent = await send_with_file(channel, kwargs, nonce, file)
            first = first or sent
        return first

    async def _dm_fallback(self, message: OutboxMessage) -> discord.Message | None:
        """Closed DMs: mention the user where they can see it, and tell the TD."""
        sent: discord.Message | None = None
        if message.fallback_channel_id:
            channel = self._messageable(message.fallback_channel_id)
            prefix = fallback_prefix(message.target_id)
            sent = await self._send_parts(channel, message, prefix=prefix, nonce_part="f")
        td_alert_channel_id = self.settings.td_alert_channel_id
        if td_alert_channel_id:
            alert = self._messageable(td_alert_channel_id)
            where = (
                f"<#{message.fallback_channel_id}>" if message.fallback_channel_id else "nowhere"
            )
            try:
                await alert.send(
                    content=f"Could not DM <@{message.target_id}> (DMs closed); posted in {where}."
                )
            except discord.HTTPException:
                # The player's message is out; a lost note to the TD must not make the row
                # retry and post the player's message twice.
                log.warning("could not tell the TD that a DM to %s fell back", message.target_id)
        return sent

    async def _mark_superseded(self, message_id: int, token: str) -> int:
        """A later edit of the same message was already shown: this older text is stale."""
        await self._release(
            message_id, token, sent_at=self.clock.now(), last_error="superseded by a later edit"
        )
        return 0

    async def _postpone(self, message_id: int, token: str, until: datetime | None = None) -> int:
        """Not now: the message this edit refers to is not sent yet (try again shortly), or
        the channel refuses the bot (try `until`)."""
        when = until or self.clock.now() + timedelta(seconds=5)
        await self._release(message_id, token, next_attempt_at=when)
        return 0

    async def _failed(
        self, message: OutboxMessage, token: str, exc: Exception, *, retry: bool
    ) -> int:
        log.warning("outbox message %s not delivered: %s", message.id, type(exc).__name__)
        # `message` was read after the claim, and only the claim holder changes the row, so
        # its attempt count is current; `_release` writes nothing if the claim was lost.
        attempts = message.attempts + 1
        now = self.clock.now()
        outcome: dict[str, Any] = {
            "attempts": attempts,
            "last_error": f"{type(exc).__name__}: {exc}"[:500],
        }
        if retry and attempts < MAX_ATTEMPTS:
            outcome["next_attempt_at"] = now + timedelta(seconds=min(3600, 15 * 2**attempts))
        else:
            outcome["failed_at"] = now
        await self._release(message.id, token, **outcome)
        return 0
