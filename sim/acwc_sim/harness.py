"""Offline driver for a discord.py bot's real application-command tree.

The harness lets a test run slash commands, button presses and modal submits
through the *production* discord.py code paths (``CommandTree._call``, checks,
transformers, the tree's ``on_error``, ``ViewStore`` dispatch, persistent views,
modals) while every byte that would go to Discord is captured instead:

* interaction callbacks / followups / ``edit_original_response`` go through the
  webhook adapter (``discord.webhook.async_.async_context``), which is replaced
  by :class:`_RecordingWebhookAdapter` -> :attr:`DiscordHarness.responses`;
* every REST call (``bot.http.request``) is answered by a fake that returns
  plausible JSON -> :attr:`DiscordHarness.messages` (channel messages, DMs,
  forum posts...) and :attr:`DiscordHarness.requests` (everything).

Every payload is checked against Discord's documented limits (:mod:`bot.discord_limits`
for messages, embeds, components, modals, autocomplete and threads;
:mod:`bot.command_limits` for the command sync): a breach is answered 400 50035 as Discord
answers it and recorded in :attr:`DiscordHarness.breaches`, and :func:`discord_harness`
fails at its exit when any was recorded, unless the test set ``breaches_expected``.

Nothing logs in and no socket is opened.  This relies on private discord.py
2.7 internals; keep all of that knowledge in this one module.

Typical use::

    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default())
    async with discord_harness(bot, run_setup_hook=True) as h:
        h.add_member(42, "alice", roles=[h.td_role_id])
        rec = await h.slash("td registration list", user=42)
        assert rec.response is not None and rec.response.ephemeral
        await h.press("reg:approve:1", user=42)

Building the bot: any ``commands.Bot`` works; intents do not matter (members
and channels are put straight into the cache) and it must not be started /
logged in.  ``application_id`` is optional: if the bot has none the harness
sets :attr:`DiscordHarness.application_id` (9000), and ``bot.user`` becomes a
fake ``ClientUser`` (id ``bot_user_id``).  ``Client._async_setup_hook`` (loop
wiring) always runs in :meth:`DiscordHarness.start`; ``bot.setup_hook()`` only
with ``start(run_setup_hook=True)`` / ``discord_harness(bot, run_setup_hook=True)``,
after the recorders are installed (so ``add_view``, ``add_cog``,
``tree.sync`` work offline).

Not emulated (Discord's side, not discord.py's): ``default_member_permissions``,
``guild_only``/allowed contexts, option choice/min/max validation, the 3 s /
15 min response windows, "This interaction failed" (an unanswered interaction
just has ``responses == []``) and attachment options; autocomplete is emulated up
to the choices the bot answers (:meth:`DiscordHarness.autocomplete`).  Only one
harness may be active at a time (it patches module globals).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import enum
import itertools
import json
import logging
import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import discord
import discord.interactions as _dinteractions
import discord.webhook.async_ as _dwebhook
from discord import app_commands
from discord.ext import commands
from discord.http import Route

from acwc_sim import discord_setup
from acwc_sim.journal import MessageJournal, message_entry
from bot.command_limits import (
    MAX_COMMAND_CHARACTERS,
    MAX_COMMANDS_PER_SCOPE,
    command_size,
    shape_problems,
)
from bot.discord_limits import (
    interaction_response_problems,
    message_problems,
    thread_problems,
    walk_components,
)

__all__ = [
    "DiscordHarness",
    "InteractionRecord",
    "RecordedMessage",
    "RecordedRequest",
    "RecordedResponse",
    "discord_harness",
    "render_text",
]

ResponseKind = Literal[
    "message",  # interaction.response.send_message
    "deferred",  # interaction.response.defer() (thinking message)
    "deferred_update",  # defer() on a component / modal interaction (no thinking)
    "update",  # interaction.response.edit_message
    "modal",  # interaction.response.send_modal
    "autocomplete",  # interaction.response.autocomplete
    "followup",  # interaction.followup.send
    "edit",  # edit_original_response / followup message edit
    "delete",  # delete_original_response / followup message delete
    "other",
]

_CALLBACK_KINDS: dict[int, ResponseKind] = {
    4: "message",
    5: "deferred",
    6: "deferred_update",
    7: "update",
    8: "autocomplete",
    9: "modal",
}

EPHEMERAL = 1 << 6
LOADING = 1 << 7
TOKEN_LIFETIME = timedelta(minutes=15)  # an interaction token's, on Discord
NONCE_MEMORY = timedelta(hours=1)  # Discord's is a few minutes; an hour is kind to the bot

_log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# Rendering helpers
# ---------------------------------------------------------------------------


def render_text(
    content: str | None,
    embeds: Sequence[Mapping[str, Any]] = (),
    components: Sequence[Mapping[str, Any]] = (),
) -> str:
    """All human-visible text of a message: content, embeds, text displays, button labels."""
    parts: list[str] = []
    if content:
        parts.append(content)
    for emb in embeds:
        author = emb.get("author") or {}
        if author.get("name"):
            parts.append(str(author["name"]))
        for key in ("title", "description"):
            if emb.get(key):
                parts.append(str(emb[key]))
        for fld in emb.get("fields") or []:
            parts.append(f"{fld.get('name', '')}\n{fld.get('value', '')}")
        footer = emb.get("footer") or {}
        if footer.get("text"):
            parts.append(str(footer["text"]))
    for comp in walk_components(components):
        if comp.get("type") == 10 and comp.get("content"):  # components v2 TextDisplay
            parts.append(str(comp["content"]))
    return "\n".join(parts)


def _buttons_of(components: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for comp in walk_components(components):
        if comp.get("type") == 2:
            emoji = comp.get("emoji")
            out.append(
                {
                    "custom_id": comp.get("custom_id"),
                    "label": comp.get("label"),
                    "disabled": bool(comp.get("disabled", False)),
                    "style": comp.get("style"),
                    "url": comp.get("url"),
                    "emoji": emoji.get("name") if isinstance(emoji, Mapping) else None,
                }
            )
    return out


def _find_component(
    components: Sequence[Mapping[str, Any]], custom_id: str
) -> Mapping[str, Any] | None:
    for comp in walk_components(components):
        if comp.get("custom_id") == custom_id:
            return comp
    return None


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class RecordedMessage:
    """A message that exists "on Discord": sent over REST or created by an interaction.

    It is *live*: edits (REST ``PATCH``, ``interaction.response.edit_message`` on a
    button attached to it, ``edit_original_response``...) update it in place;
    :attr:`edits` keeps the raw edit payloads in order.
    """

    id: int
    channel_id: int
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    flags: int = 0
    guild_id: int | None = None
    dm_user_id: int | None = None  # set when channel_id is the DM channel with that user
    files: list[str] = field(default_factory=list)
    via: Literal["rest", "interaction"] = "rest"
    interaction_id: int | None = None
    deleted: bool = False
    edits: list[dict[str, Any]] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)  # payload of the create request
    sent_at: datetime | None = None  # on the harness's `clock`, when it has one

    @property
    def text(self) -> str:
        return render_text(self.content, self.embeds, self.components)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return _buttons_of(self.components)

    def _apply(self, payload: Mapping[str, Any]) -> None:
        if "content" in payload:
            self.content = payload["content"] or ""
        if "embeds" in payload:
            self.embeds = list(payload["embeds"] or [])
        if "components" in payload:
            self.components = list(payload["components"] or [])
        if "flags" in payload and payload["flags"] is not None:
            # ephemeral / loading cannot be toggled by an edit
            self.flags = (self.flags & (EPHEMERAL | LOADING)) | int(payload["flags"])
        if "attachments" in payload and payload["attachments"] is not None:
            names = [a.get("filename") for a in payload["attachments"] if a.get("filename")]
            if names:
                self.files = [str(n) for n in names]


@dataclass(slots=True)
class RecordedResponse:
    """One interaction response event (callback, followup, edit...), in order.

    For ``update`` and ``edit`` the message fields hold the state of the
    message *after* the change; :attr:`raw` is what the bot actually sent.
    """

    kind: ResponseKind
    interaction_id: int
    user_id: int | None
    channel_id: int | None
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    ephemeral: bool = False
    message_id: int | None = None  # message created / changed by this response
    custom_id: str | None = None  # modal custom_id
    title: str | None = None  # modal title
    files: list[str] = field(default_factory=list)
    file_data: dict[str, bytes] = field(default_factory=dict)  # file name -> bytes sent
    choices: list[dict[str, Any]] = field(default_factory=list)  # autocomplete
    raw: dict[str, Any] = field(default_factory=dict)
    source_message_id: int | None = None  # message whose component triggered the interaction

    @property
    def text(self) -> str:
        return render_text(self.content, self.embeds, self.components)

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return _buttons_of(self.components)

    @property
    def modal_fields(self) -> list[dict[str, Any]]:
        """For ``kind == "modal"``: ``{custom_id, label, style, required, value}`` per input."""
        out: list[dict[str, Any]] = []
        for comp in self.components:
            label: Any = None
            inners: list[Mapping[str, Any]]
            if comp.get("type") == 18:  # Label wrapper (discord.py >= 2.6)
                label = comp.get("label")
                inner = comp.get("component")
                inners = [inner] if isinstance(inner, Mapping) else []
            else:
                inners = list(comp.get("components") or [])
            for c in inners:
                if c.get("custom_id") is None:
                    continue
                out.append(
                    {
                        "custom_id": c.get("custom_id"),
                        "label": c.get("label", label) or label,
                        "type": c.get("type"),
                        "style": c.get("style"),
                        "required": c.get("required", True),
                        "value": c.get("value"),
                    }
                )
        return out


@dataclass(slots=True)
class RecordedRequest:
    """Any REST request the bot made (``bot.http.request``)."""

    method: str
    path: str  # route template, e.g. "/channels/{channel_id}/messages"
    params: dict[str, str]  # values of the template placeholders
    json: Any
    query: dict[str, Any] | None
    reason: str | None
    status: int = 200


@dataclass
class InteractionRecord:
    """What happened while one simulated interaction was processed."""

    interaction: discord.Interaction[Any]
    responses: list[RecordedResponse]
    messages: list[RecordedMessage]  # REST messages sent while processing it
    errors: list[BaseException]  # exceptions discord.py logged (unhandled by the bot)
    failed: bool  # interaction.command_failed (check failure, error...)

    @property
    def response(self) -> RecordedResponse | None:
        """The first response to the interaction (usually the callback)."""
        return self.responses[0] if self.responses else None

    @property
    def last(self) -> RecordedResponse | None:
        return self.responses[-1] if self.responses else None

    @property
    def text(self) -> str:
        """Text of every response to the interaction joined by newlines."""
        return "\n".join(r.text for r in self.responses if r.text)

    @property
    def refusal(self) -> str | None:
        """The refusal the bot noted on the interaction (``interaction.extras["acwc_refusal"]``,
        set by its error handler and stale-button answer), or None when it did what was asked."""
        value = self.interaction.extras.get("acwc_refusal")
        return None if value is None else str(value)

    @property
    def refusal_reported(self) -> bool:
        """True when the refused attempt was put on record for the TD anyway
        (``interaction.extras["acwc_refusal_reported"]``)."""
        return bool(self.interaction.extras.get("acwc_refusal_reported"))

    @property
    def ephemeral(self) -> bool:
        """True when every message-bearing response was ephemeral."""
        shown = [r for r in self.responses if r.kind in ("message", "deferred", "followup")]
        return bool(shown) and all(r.ephemeral for r in shown)


def _check_commands(items: Sequence[Mapping[str, Any]]) -> None:
    """Refuse a command sync the way Discord does: 400 50035, each bad command by its index
    in the list (discord.py's CommandSyncFailure names the command from it)."""
    errors: dict[str, Any] = {}
    for index, item in enumerate(items):
        found = [{"code": "INVALID_FORM_BODY", "message": p} for p in shape_problems(item)]
        if command_size(item) > MAX_COMMAND_CHARACTERS:
            message = f"Command exceeds maximum size ({MAX_COMMAND_CHARACTERS})"
            found.append({"code": "APPLICATION_COMMAND_TOO_LARGE", "message": message})
        if found:
            errors[str(index)] = {"_errors": found}
    if len(items) > MAX_COMMANDS_PER_SCOPE:
        message = f"Must be {MAX_COMMANDS_PER_SCOPE} or fewer in length."
        errors["_errors"] = [{"code": "BASE_TYPE_MAX_LENGTH", "message": message}]
    if errors:
        raise _http_error(400, 50035, "Invalid Form Body", errors)


class _FakeResponse:
    """Enough of ``aiohttp.ClientResponse`` for ``discord.HTTPException``."""

    def __init__(self, status: int, reason: str) -> None:
        self.status = status
        self.reason = reason


def _http_error(
    status: int, code: int, message: str, errors: Mapping[str, Any] | None = None
) -> discord.HTTPException:
    data: dict[str, Any] = {"code": code, "message": message}
    if errors:
        data["errors"] = errors
    if status == 403:
        return discord.Forbidden(_FakeResponse(403, "Forbidden"), data)  # type: ignore[arg-type]
    if status == 404:
        return discord.NotFound(_FakeResponse(404, "Not Found"), data)  # type: ignore[arg-type]
    return discord.HTTPException(_FakeResponse(status, "Error"), data)  # type: ignore[arg-type]


class _FakeSession:
    """Stands in for the aiohttp session; nothing may use it."""

    closed = False

    async def close(self) -> None:
        self.closed = True

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"DiscordHarness: network access attempted (session.{name})")


class _ScriptedResponse:
    """Enough of ``aiohttp.ClientResponse`` for ``discord.http.HTTPClient.request``."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str]) -> None:
        self.status = status
        self.reason = "Too Many Requests" if status == 429 else "OK"
        self.headers = {"content-type": "application/json", **headers}
        self._text = json.dumps(body)

    async def text(self, encoding: str = "utf-8") -> str:
        return self._text

    async def __aenter__(self) -> _ScriptedResponse:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


class _RateLimitingSession:
    """The aiohttp session discord.py sees while the harness rate-limits one request: the
    first send is answered 429 with ``retry_after`` (as Discord does, through its proxy, so
    with a ``Via`` header), the next ones with the harness's own answer."""

    def __init__(self, retry_after: float, answer: Callable[[], Awaitable[Any]]) -> None:
        self.retry_after = retry_after
        self.answer = answer
        self.sends = 0

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        self.sends += 1
        if self.sends == 1:
            body = {"message": "You are being rate limited.", "retry_after": self.retry_after}
            body["global"] = False
            return _ScriptedResponse(429, body, {"Via": "1.1 google"})
        return self._answered()

    @contextlib.asynccontextmanager
    async def _answered(self) -> AsyncIterator[_ScriptedResponse]:
        yield _ScriptedResponse(200, await self.answer(), {})


@dataclass(slots=True)
class _InteractionState:
    interaction_id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    guild_id: int | None
    dm_user_id: int | None
    source_message: RecordedMessage | None = None  # for component / modal interactions
    original: RecordedMessage | None = None  # the @original message
    pending_defer: bool = False  # a thinking defer awaiting its first followup
    created_at: datetime | None = None  # on the harness's `clock`, when it has one
    message_ids: list[int] = field(default_factory=list)  # the messages it made


def _parse_multipart(multipart: Sequence[Mapping[str, Any]] | None) -> tuple[Any, list[str]]:
    payload: Any = None
    files: list[str] = []
    for part in multipart or []:
        if part.get("name") == "payload_json":
            payload = json.loads(part["value"])
        elif part.get("filename"):
            files.append(str(part["filename"]))
    return payload, files


def _file_bytes(file: discord.File) -> bytes:
    """The content of a file the bot sends, leaving it where discord.py expects it."""
    file.reset()
    data = file.fp.read()
    file.reset()
    return bytes(data)


def _route_params(route: Route) -> dict[str, str]:
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(route.path))
    url_path = route.url[len(Route.BASE) :] if route.url.startswith(Route.BASE) else route.url
    url_path = url_path.split("?", 1)[0]
    m = re.fullmatch(pattern, url_path)
    return dict(m.groupdict()) if m else {}


class _RecordingWebhookAdapter(_dwebhook.AsyncWebhookAdapter):
    """Webhook adapter that never touches the network; see DiscordHarness._webhook."""

    def __init__(self, harness: DiscordHarness) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self._harness = harness

    async def request(
        self,
        route: Route,
        session: Any = None,
        *,
        payload: dict[str, Any] | None = None,
        multipart: list[dict[str, Any]] | None = None,
        files: Sequence[discord.File] | None = None,
        params: dict[str, Any] | None = None,
        **_: Any,
    ) -> Any:
        body: Any = payload
        names: list[str] = []
        if multipart:
            body, names = _parse_multipart(multipart)
        if files:
            names = names or [f.filename or "file" for f in files]
        recorded = len(self._harness.responses)
        result = await self._harness._webhook(route, body, names, params)
        if files:
            data = {f.filename or "file": _file_bytes(f) for f in files}
            for rec in self._harness.responses[recorded:]:
                rec.file_data.update(data)
        return result


# ---------------------------------------------------------------------------
# The harness
# ---------------------------------------------------------------------------


class _ErrorCollector(logging.Handler):
    def __init__(self, sink: list[BaseException]) -> None:
        super().__init__(level=logging.ERROR)
        self._sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            self._sink.append(record.exc_info[1])


RequestHandler = Callable[[RecordedRequest], Any | Awaitable[Any]]


class DiscordHarness:
    """Drives ``bot``'s real command tree and views with Discord's HTTP layer recorded.

    Call :meth:`start` (or use :func:`discord_harness`) before anything else and
    :meth:`close` at the end.
    """

    def __init__(
        self,
        bot: commands.Bot,
        *,
        guild_id: int = 1000,
        td_role_id: int = 2000,
        channels: dict[str, int] | None = None,
        application_id: int = 9000,
        bot_user_id: int | None = None,
        guild_name: str = "Antichess",
        bot_permissions: int | None = None,
    ) -> None:
        self.bot = bot
        self.guild_id = guild_id
        self.td_role_id = td_role_id
        self.application_id = application_id
        self.bot_user_id = bot_user_id if bot_user_id is not None else application_id
        self.guild_name = guild_name
        #: the permissions of the bot's own role (None: no role, only @everyone's)
        self.bot_permissions = bot_permissions
        #: the setup Discord reports (acwc_sim.discord_setup): a token other than this one is
        #: refused with 401 (None accepts any), the application's flags, whether the bot is
        #: in the guild (False: 403 50001 on the guild's endpoints)
        self.valid_token: str | None = None
        self.application_flags = 0
        self.bot_in_guild = True
        self._initial_channels: dict[str, int] = dict(channels or {"general": 3000})
        self.channels: dict[str, int] = {}
        self.default_channel_id: int = next(iter(self._initial_channels.values()), 3000)

        # what was recorded
        self.responses: list[RecordedResponse] = []
        self.messages: list[RecordedMessage] = []
        self.requests: list[RecordedRequest] = []
        #: off, `requests` stays empty and messages keep no `raw` payload and no `edits`: a
        #: long simulation sends tens of thousands of REST requests and needs none of them
        #: afterwards (each message's current content, embeds and buttons are still kept)
        self.keep_history = True
        #: a number: the harness keeps only that many of the latest REST messages in memory
        #: (the journal has every message and gives back an old one asked for by id), and
        #: forgets an interaction, its ephemeral messages and its responses once its token
        #: has expired (15 minutes on `clock`, as on Discord), and a nonce after an hour
        #: (Discord remembers one for a few minutes). None keeps everything. For long
        #: simulations, with `use_journal`: `messages` then lists the latest ones only.
        self.keep_in_memory: int | None = None
        self.unhandled: list[RecordedRequest] = []
        self.threads: list[dict[str, Any]] = []  # payloads of threads the bot created
        self.errors: list[BaseException] = []
        self.dm_closed: set[int] = set()
        #: channel id -> 50001 (Missing Access) or 50013 (Missing Permissions): Discord
        #: refuses the bot there, posts, threads and edits alike (and in the channel's threads)
        self.refused_channels: dict[int, int] = {}
        #: channels where the bot may post but not attach files (no Attach Files): Discord
        #: answers a message with a file there 403 50013, and text alone as usual
        self.files_refused: set[int] = set()
        #: every payload refused for Discord's limits (bot.discord_limits), as "METHOD path:
        #: problems": Discord answers 400 50035 and shows nothing, and since the bot may
        #: catch that answer (the outbox retries), `discord_harness` fails the test at its
        #: exit when any was recorded, unless the test set `breaches_expected`
        self.breaches: list[str] = []
        self.breaches_expected = False

        self._ids = itertools.count(1)
        self._live: dict[int, RecordedMessage] = {}  # every message by id (REST + interaction)
        self._interactions: dict[str, _InteractionState] = {}  # by token
        self._users: dict[int, dict[str, Any]] = {}
        self._channel_payloads: dict[int, dict[str, Any]] = {}
        self._dm_channel_of: dict[int, int] = {}  # user id -> DM channel id
        self._dm_user_of: dict[int, int] = {}  # DM channel id -> user id
        self._handlers: dict[tuple[str, str], RequestHandler] = {}
        self._rate_limits: list[list[Any]] = []  # [method, path, retry_after, remaining]
        self._rate_limiter = asyncio.Lock()  # one request at a time on the scripted session
        self.rate_limited: list[RecordedRequest] = []
        self._nonces: dict[str, int] = {}  # enforce_nonce: what Discord remembers (message ids)
        self._thread_active: dict[int, datetime] = {}  # a thread's last message (or creation)
        self._nonce_times: collections.deque[tuple[datetime, str]] = collections.deque()
        self._journal: MessageJournal | None = None
        self._running = 0  # interactions being processed (the record slices the lists)
        #: when set, each message posted is stamped with this clock's time (`sent_at`)
        self.clock: Callable[[], datetime] | None = None
        #: told of each message as it is posted (and of each one restored from the journal)
        self.on_post: Callable[[RecordedMessage], None] | None = None
        #: told of each REST edit of a message (and of each one replayed from the journal)
        self.on_edit: Callable[[RecordedMessage], None] | None = None
        #: a note the driver wrote beside the messages (what a player did and saw in replies
        #: only they see), kept in the journal in order, once per key
        self.on_note: Callable[[dict[str, Any]], None] | None = None
        self._notes: set[str] = set()
        self._adapter = _RecordingWebhookAdapter(self)
        self._restore: list[Callable[[], None]] = []
        self._started = False
        self.guild: discord.Guild | None = None
        #: seconds a single slash/press/submit (and settle) may take before TimeoutError
        self.timeout: float = 10.0

    # ------------------------------------------------------------------ setup

    async def start(self, *, run_setup_hook: bool = False, mark_ready: bool = False) -> None:
        """Install the recorders and cache the guild, then optionally run ``setup_hook``.

        ``run_setup_hook=True`` runs ``await bot.setup_hook()`` exactly like
        ``Client.login`` would (after ``_async_setup_hook``), with REST already
        recorded, so cogs / ``bot.add_view`` / ``tree.sync`` work offline.
        ``mark_ready=True`` sets the ready event (``wait_until_ready`` returns).
        """
        if self._started:
            raise RuntimeError("DiscordHarness already started")
        self._started = True
        bot = self.bot
        state = bot._connection
        loop = getattr(bot, "loop", None)
        if not isinstance(loop, asyncio.AbstractEventLoop):
            await bot._async_setup_hook()

        # -- REST: bot.http.request + session
        http = bot.http
        orig_session = getattr(http, "_HTTPClient__session", discord.utils.MISSING)
        http._HTTPClient__session = _FakeSession()  # type: ignore[attr-defined]
        http.request = self._rest  # type: ignore[method-assign]

        def _restore_http() -> None:
            with contextlib.suppress(AttributeError):
                del http.request
            http._HTTPClient__session = orig_session  # type: ignore[attr-defined]

        self._restore.append(_restore_http)

        # -- interaction responses: the webhook adapter context var
        orig_ctx_webhook = _dwebhook.async_context
        orig_ctx_inter = _dinteractions.async_context  # type: ignore[attr-defined]
        from contextvars import ContextVar

        ctx: ContextVar[_dwebhook.AsyncWebhookAdapter] = ContextVar(
            "discord_harness_webhook", default=self._adapter
        )
        _dwebhook.async_context = ctx
        _dinteractions.async_context = ctx  # type: ignore[attr-defined]

        def _restore_ctx() -> None:
            _dwebhook.async_context = orig_ctx_webhook
            _dinteractions.async_context = orig_ctx_inter  # type: ignore[attr-defined]

        self._restore.append(_restore_ctx)

        # -- identity
        orig_user, orig_app = state.user, state.application_id
        if state.application_id is None:
            state.application_id = self.application_id
        else:
            self.application_id = state.application_id
        self._users[self.bot_user_id] = self._user_payload(self.bot_user_id, "acwc-bot", bot=True)
        me: dict[str, Any] = {
            **self._users[self.bot_user_id],
            "verified": True,
            "mfa_enabled": False,
            "flags": 0,
            "locale": "en-US",
        }
        state.user = discord.ClientUser(state=state, data=me)  # type: ignore[arg-type]

        def _restore_identity() -> None:
            state.user = orig_user
            state.application_id = orig_app

        self._restore.append(_restore_identity)

        # -- errors logged by discord.py
        collector = _ErrorCollector(self.errors)
        dlog = logging.getLogger("discord")
        dlog.addHandler(collector)
        self._restore.append(lambda: dlog.removeHandler(collector))

        # -- guild cache
        try:
            self._build_guild()
            if run_setup_hook:
                await bot.setup_hook()
            if mark_ready:
                bot._ready.set()
        except BaseException:
            await self.close(close_bot=False)
            raise

    async def close(self, *, close_bot: bool = True) -> None:
        """Close the bot (offline) and restore everything :meth:`start` patched."""
        if not self._started:
            return
        try:
            await self.settle()
            if close_bot:
                await self.bot.close()
        finally:
            while self._restore:
                self._restore.pop()()
            self._started = False
            if self._journal is not None:
                self._journal.close()
                self._journal = None

    async def __aenter__(self) -> DiscordHarness:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
        if exc[0] is None:
            self.check_breaches()

    def _snowflake(self) -> int:
        return discord.utils.time_snowflake(discord.utils.utcnow()) + next(self._ids)

    def _user_payload(self, user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
        return {
            "id": str(user_id),
            "username": name,
            "global_name": name,
            "discriminator": "0",
            "avatar": None,
            "bot": bot,
            "public_flags": 0,
        }

    def _build_guild(self) -> None:
        state = self.bot._connection
        # A part of what Discord gives @everyone in a new server (Embed Links and Attach
        # Files among them): a bot that needs no more works without a role of its own.
        everyone = discord.Permissions(
            view_channel=True,
            send_messages=True,
            embed_links=True,
            attach_files=True,
            read_message_history=True,
            use_application_commands=True,
        )
        data: dict[str, Any] = {
            "id": str(self.guild_id),
            "name": self.guild_name,
            "owner_id": "1",
            "roles": [
                self._role_payload(self.guild_id, "@everyone", everyone.value, position=0),
                self._role_payload(self.td_role_id, "TD", 0, position=1),
            ],
            "channels": [],
            "members": [],
            "emojis": [],
            "stickers": [],
            "features": [],
            "member_count": 0,
            "preferred_locale": "en-US",
        }
        guild = discord.Guild(data=data, state=state)  # type: ignore[arg-type]
        state._add_guild(guild)
        self.guild = guild
        for name, cid in self._initial_channels.items():
            self.add_text_channel(cid, name)
        self.add_member(self.bot_user_id, "acwc-bot", bot=True)
        if self.bot_permissions is not None:
            self.set_bot_permissions(self.bot_permissions)

    @staticmethod
    def _role_payload(
        role_id: int, name: str, permissions: int, *, position: int
    ) -> dict[str, Any]:
        return {
            "id": str(role_id),
            "name": name,
            "color": 0,
            "colors": {"primary_color": 0},
            "hoist": False,
            "position": position,
            "permissions": str(permissions),
            "managed": False,
            "mentionable": True,
            "flags": 0,
        }

    def _require_guild(self) -> discord.Guild:
        if self.guild is None:
            raise RuntimeError("DiscordHarness.start() has not been awaited")
        return self.guild

    # ------------------------------------------------------------ world setup

    def add_role(self, role_id: int, name: str, *, permissions: int = 0) -> discord.Role:
        guild = self._require_guild()
        position = len(guild._roles)
        role = discord.Role(
            guild=guild,
            state=self.bot._connection,
            data=self._role_payload(role_id, name, permissions, position=position),  # type: ignore[arg-type]
        )
        guild._add_role(role)
        return role

    def add_user(self, user_id: int, name: str, *, bot: bool = False) -> discord.User:
        """A Discord user who is *not* a member of the guild (DM-only contexts)."""
        self._users[user_id] = self._user_payload(user_id, name, bot=bot)
        return self.bot._connection.store_user(self._users[user_id])  # type: ignore[arg-type]

    def add_member(
        self, user_id: int, name: str, *, roles: Sequence[int] = (), bot: bool = False
    ) -> discord.Member:
        """Cache a guild member (re-adding replaces name and roles)."""
        guild = self._require_guild()
        state = self.bot._connection
        for rid in roles:
            if guild.get_role(rid) is None:
                self.add_role(rid, f"role-{rid}")
        self._users[user_id] = self._user_payload(user_id, name, bot=bot)
        data = {
            "user": self._users[user_id],
            "roles": [str(r) for r in roles],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": None,
        }
        member = discord.Member(data=data, guild=guild, state=state)  # type: ignore[arg-type]
        guild._add_member(member)
        return member

    def member(self, user_id: int) -> discord.Member:
        m = self._require_guild().get_member(user_id)
        if m is None:
            raise KeyError(f"user {user_id} is not a cached member")
        return m

    def _channel_base(self, channel_id: int, name: str, type_: int) -> dict[str, Any]:
        return {
            "id": str(channel_id),
            "type": type_,
            "guild_id": str(self.guild_id),
            "name": name,
            "position": len(self._channel_payloads),
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }

    def add_text_channel(self, channel_id: int, name: str) -> discord.TextChannel:
        guild = self._require_guild()
        data = self._channel_base(channel_id, name, 0)
        channel = discord.TextChannel(state=self.bot._connection, guild=guild, data=data)  # type: ignore[arg-type]
        guild._add_channel(channel)
        self._channel_payloads[channel_id] = data
        self.channels[name] = channel_id
        return channel

    def add_forum_channel(
        self, channel_id: int, name: str, *, tags: Sequence[tuple[int, str]] = ()
    ) -> discord.ForumChannel:
        guild = self._require_guild()
        data = self._channel_base(channel_id, name, 15)
        data.update(
            {
                "available_tags": [
                    {
                        "id": str(tid),
                        "name": tname,
                        "moderated": False,
                        "emoji_id": None,
                        "emoji_name": None,
                    }
                    for tid, tname in tags
                ],
                "default_reaction_emoji": None,
                "default_sort_order": None,
                "default_forum_layout": 0,
                "default_thread_rate_limit_per_user": 0,
                "default_auto_archive_duration": 10080,
            }
        )
        channel = discord.ForumChannel(state=self.bot._connection, guild=guild, data=data)  # type: ignore[arg-type]
        guild._add_channel(channel)
        self._channel_payloads[channel_id] = data
        self.channels[name] = channel_id
        return channel

    def add_channel(self, channel_id: int, name: str, type_: int) -> None:
        """A guild channel of any type (text 0, voice 2, category 4, announcement 5, forum 15)."""
        discord_setup.add_channel(self, channel_id, name, type_)

    def set_bot_permissions(self, permissions: int) -> discord.Role:
        """The bot's own role (made by the invite) with exactly these permissions."""
        return discord_setup.set_bot_permissions(self, permissions)

    def set_overwrite(
        self,
        channel_id: int,
        target_id: int,
        *,
        allow: int = 0,
        deny: int = 0,
        member: bool = False,
    ) -> None:
        """A channel permission overwrite for a role (or, `member=True`, a member)."""
        discord_setup.set_overwrite(
            self, channel_id, target_id, allow=allow, deny=deny, member=member
        )

    def use_journal(self, path: Path, *, fsync: bool = True) -> None:
        """Keep "Discord's" side on disk: every message posted, edited or deleted and every
        thread opened is appended to `path`, and what an earlier process left there is known
        again (messages as they last stood, with their nonces, DM channels and threads), as a
        real Discord remembers it after the bot was killed and started again. Call it after
        :meth:`start`."""
        journal = MessageJournal(path, fsync=fsync)
        for entry in journal.replay():
            if entry.get("op") == "thread":
                self._add_thread_payload(entry["data"])
                continue
            if entry.get("op") == "note":
                self._noted(entry)
                continue
            msg = self._live.get(int(entry["id"]))
            if msg is None:
                msg = RecordedMessage(id=int(entry["id"]), channel_id=int(entry["channel_id"]))
                self._live[msg.id] = msg
                self.messages.append(msg)
                self._restore_message(msg, entry)
                self._posted(msg)
                continue
            self._restore_message(msg, entry)
            if entry.get("op") == "state" and not msg.deleted and self.on_edit is not None:
                self.on_edit(msg)
        self._journal = journal
        self._forget_old()

    def _restore_message(self, msg: RecordedMessage, entry: Mapping[str, Any]) -> None:
        msg.content = str(entry.get("content") or "")
        msg.embeds = list(entry.get("embeds") or [])
        msg.components = list(entry.get("components") or [])
        msg.flags = int(entry.get("flags") or 0)
        msg.files = list(entry.get("files") or [])
        msg.deleted = bool(entry.get("deleted"))
        msg.guild_id = entry.get("guild_id")
        stamp = entry.get("sent_at")
        msg.sent_at = datetime.fromisoformat(stamp) if stamp else None
        dm_user = entry.get("dm_user_id")
        if dm_user is not None:
            msg.dm_user_id = int(dm_user)
            self._dm_channel_of[msg.dm_user_id] = msg.channel_id
            self._dm_user_of[msg.channel_id] = msg.dm_user_id
        if entry.get("nonce") is not None:
            self._remember_nonce(str(entry["nonce"]), msg)

    def _remember_nonce(self, nonce: str, msg: RecordedMessage) -> None:
        self._nonces[nonce] = msg.id
        if self.keep_in_memory is not None and msg.sent_at is not None:
            self._nonce_times.append((msg.sent_at, nonce))

    def _find(self, message_id: int | None) -> RecordedMessage | None:
        """A message by id: in memory, or read back from the journal if it was forgotten."""
        if message_id is None:
            return None
        msg = self._live.get(message_id)
        if msg is not None or self._journal is None or self.keep_in_memory is None:
            return msg
        entry = self._journal.latest(message_id)
        if entry is None:
            return None
        msg = RecordedMessage(id=message_id, channel_id=int(entry["channel_id"]))
        self._restore_message(msg, {**entry, "nonce": None})
        self._live[message_id] = msg
        return msg

    def _forget_old(self) -> None:
        """In a long simulation (`keep_in_memory`), forget what Discord keeps but no one will
        ask for again soon: REST messages beyond the latest ones (the journal has them),
        interactions whose token expired with their ephemeral messages and responses, and
        nonces older than an hour. Only between interactions: a record slices the lists."""
        keep = self.keep_in_memory
        if keep is None or self._running or self._journal is None:
            return
        excess = len(self.messages) - keep
        if excess > max(keep // 4, 1):  # in batches: `messages` is a list
            for msg in self.messages[:excess]:
                if self._live.get(msg.id) is msg and self._journal.follows(msg.id):
                    del self._live[msg.id]
            del self.messages[:excess]
        if self.clock is None:
            return
        now = self.clock()
        while self._nonce_times and self._nonce_times[0][0] < now - NONCE_MEMORY:
            _, nonce = self._nonce_times.popleft()
            self._nonces.pop(nonce, None)
        expired = False
        while self._interactions:
            token, st = next(iter(self._interactions.items()))
            if st.created_at is None or st.created_at > now - TOKEN_LIFETIME:
                break
            del self._interactions[token]
            expired = True
            for message_id in st.message_ids:
                made = self._live.get(message_id)
                if made is not None and made.ephemeral:
                    del self._live[message_id]
        if expired:
            live = {st.interaction_id for st in self._interactions.values()}
            self.responses = [r for r in self.responses if r.interaction_id in live]

    def _posted(self, msg: RecordedMessage) -> None:
        if self.on_post is not None:
            self.on_post(msg)

    def note(self, key: str, at: datetime, who: str, text: str) -> None:
        """A note beside the messages, in the journal in its place; a note whose `key` is
        already there (written before a kill) is not written again."""
        if key in self._notes:
            return
        entry = {"op": "note", "key": key, "at": at.isoformat(), "who": who, "text": text}
        if self._journal is not None:
            self._journal.write(entry)
        self._noted(entry)

    def _noted(self, entry: dict[str, Any]) -> None:
        self._notes.add(str(entry["key"]))
        if self.on_note is not None:
            self.on_note(entry)

    def _write_journal(self, msg: RecordedMessage, nonce: Any) -> None:
        if self._journal is None:
            return
        self._journal.write(message_entry("post", msg, nonce))
        self._forget_old()

    def _journal_state(self, msg: RecordedMessage) -> None:
        """After an edit or a delete of a message the journal follows."""
        if self._journal is not None and self._journal.follows(msg.id):
            self._journal.write(message_entry("state", msg))

    def _journal_thread(self, data: dict[str, Any]) -> None:
        if self._journal is not None:
            self._journal.write({"op": "thread", "data": data})

    def on_request(self, method: str, path: str, handler: RequestHandler) -> None:
        """Override the fake answer to one REST route (template path, e.g.
        ``"/guilds/{guild_id}/members/{user_id}"``). The handler gets the
        :class:`RecordedRequest` and returns the JSON (or raises)."""
        self._handlers[(method.upper(), path)] = handler

    def archive_thread(self, thread_id: int) -> None:
        """Discord archives a thread nobody wrote in for its auto_archive_duration (also done
        by the clock, when there is one): its messages cannot be edited until a message or
        an unarchive brings it back."""
        meta = self._channel_payloads[thread_id]["thread_metadata"]
        meta["archived"] = True
        self._journal_thread(self._channel_payloads[thread_id])

    def _archived(self, channel_id: int) -> bool:
        data = self._channel_payloads.get(channel_id)
        meta = data.get("thread_metadata") if data else None
        if data is None or meta is None:
            return False
        last = self._thread_active.get(channel_id)
        if not meta["archived"] and self.clock is not None and last is not None:
            idle = timedelta(minutes=int(meta.get("auto_archive_duration") or 10080))
            if self.clock() - last > idle:
                self.archive_thread(channel_id)
        return bool(meta["archived"])

    def _touch_thread(self, channel_id: int) -> None:
        """A message in a thread (or its unarchiving): Discord unarchives it, unless a
        moderator locked it."""
        data = self._channel_payloads.get(channel_id)
        meta = data.get("thread_metadata") if data else None
        if data is None or meta is None:
            return
        if self._archived(channel_id):
            if meta.get("locked"):
                raise _http_error(400, 50083, "Thread is archived")
            meta["archived"] = False
            self._journal_thread(data)
        if self.clock is not None:
            self._thread_active[channel_id] = self.clock()

    def forget_nonces(self) -> None:
        """Discord's nonce memory has passed (it lasts minutes): a nonce sent again now makes a
        new message."""
        self._nonces.clear()
        self._nonce_times.clear()

    def off_request(self, method: str, path: str) -> None:
        """Drop an :meth:`on_request` override: the route gets the default fake answer again."""
        self._handlers.pop((method.upper(), path), None)

    # --------------------------------------------------------------- queries

    def rate_limit_next(
        self, method: str, path: str, *, retry_after: float, times: int = 1
    ) -> None:
        """Answer the next ``times`` requests to ``method path`` with HTTP 429 and
        ``retry_after`` once each, through discord.py's own ``HTTPClient.request``: its rate
        limiter sleeps ``retry_after`` and sends again, and that second send gets the
        harness's usual answer. Those requests are listed in :attr:`rate_limited`."""
        self._rate_limits.append([method.upper(), path, retry_after, times])

    def _take_rate_limit(self, req: RecordedRequest) -> float | None:
        for limit in self._rate_limits:
            if limit[3] > 0 and (limit[0], limit[1]) == (req.method, req.path):
                limit[3] -= 1
                return float(limit[2])
        return None

    async def _through_discord_rate_limiter(
        self, route: Route, retry_after: float, answer: Callable[[], Awaitable[Any]], **kw: Any
    ) -> Any:
        """Send `route` with discord.py's real request loop over a scripted session."""
        http = self.bot.http
        async with self._rate_limiter:
            if http._global_over is discord.utils.MISSING:
                http._global_over = asyncio.Event()  # what static_login would have made
                http._global_over.set()
            session = _RateLimitingSession(retry_after, answer)
            saved = http._HTTPClient__session  # type: ignore[attr-defined]
            http._HTTPClient__session = session  # type: ignore[attr-defined]
            try:
                return await discord.http.HTTPClient.request(http, route, **kw)
            finally:
                http._HTTPClient__session = saved  # type: ignore[attr-defined]

    def dms_to(self, user_id: int) -> list[RecordedMessage]:
        return [m for m in self.messages if m.dm_user_id == user_id]

    def in_channel(self, channel_id: int) -> list[RecordedMessage]:
        return [m for m in self.messages if m.channel_id == channel_id]

    def last_response(self) -> RecordedResponse:
        if not self.responses:
            raise AssertionError("no interaction response was recorded")
        return self.responses[-1]

    def last_message(self) -> RecordedMessage:
        if not self.messages:
            raise AssertionError("no message was sent over REST")
        return self.messages[-1]

    def message(self, message_id: int) -> RecordedMessage:
        """Live state of any message (REST or interaction-created) by id."""
        found = self._find(message_id)
        if found is None:
            raise KeyError(message_id)
        return found

    def buttons(
        self, msg: RecordedMessage | RecordedResponse | InteractionRecord
    ) -> list[dict[str, Any]]:
        """``{custom_id, label, disabled, style, url, emoji}`` of every button.

        For a response that created or changed a message, the *current* state of
        that message is used (so a later ``edit_message`` shows up)."""
        if isinstance(msg, InteractionRecord):
            with_comp = [r for r in msg.responses if r.components or r.message_id]
            if not with_comp:
                return []
            msg = with_comp[-1]
        live = self._find(msg.message_id) if isinstance(msg, RecordedResponse) else None
        if live is not None:
            return live.buttons
        return msg.buttons

    # ------------------------------------------------------- interaction payloads

    def _ensure_user(self, user_id: int, *, dm: bool) -> None:
        guild = self._require_guild()
        if user_id in self._users and (dm or guild.get_member(user_id) is not None):
            return
        name = self._users.get(user_id, {}).get("username") or f"user{user_id}"
        if dm:
            self.add_user(user_id, name)
        else:
            self.add_member(user_id, name)

    def _member_payload(self, user_id: int) -> dict[str, Any]:
        guild = self._require_guild()
        member = guild.get_member(user_id)
        if member is None:
            raise KeyError(f"user {user_id} is not a cached member")
        perms = 0
        default = guild.default_role
        perms |= default.permissions.value
        for role in member.roles:
            perms |= role.permissions.value
        if perms & discord.Permissions(administrator=True).value or guild.owner_id == user_id:
            perms = discord.Permissions.all().value
        return {
            "user": self._users[user_id],
            "roles": [str(r.id) for r in member.roles if r.id != guild.id],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": member.nick,
            "permissions": str(perms),
        }

    def _dm_channel_id(self, user_id: int) -> int:
        cid = self._dm_channel_of.get(user_id)
        if cid is None:
            cid = self._snowflake()
            self._dm_channel_of[user_id] = cid
            self._dm_user_of[cid] = user_id
        return cid

    def _dm_channel_payload(self, user_id: int) -> dict[str, Any]:
        if user_id not in self._users:
            self.add_user(user_id, f"user{user_id}")
        return {
            "id": str(self._dm_channel_id(user_id)),
            "type": 1,
            "recipients": [self._users[user_id]],
            "last_message_id": None,
        }

    def _channel_payload(self, channel_id: int) -> dict[str, Any] | None:
        if channel_id in self._dm_user_of:
            return self._dm_channel_payload(self._dm_user_of[channel_id])
        return self._channel_payloads.get(channel_id)

    def _base_interaction(
        self, type_: int, *, user: int, channel_id: int | None, dm: bool, data: dict[str, Any]
    ) -> tuple[dict[str, Any], _InteractionState]:
        self._ensure_user(user, dm=dm)
        iid = self._snowflake()
        token = f"harness-{iid}-{secrets.token_hex(4)}"
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": type_,
            "token": token,
            "version": 1,
            "data": data,
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": 8 * 1024 * 1024,
            "app_permissions": str(discord.Permissions.all().value),
        }
        if dm:
            cid = self._dm_channel_id(user)
            payload["user"] = self._users[user]
            payload["channel"] = self._dm_channel_payload(user)
            payload["channel_id"] = str(cid)
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": str(self.guild_id)}
            guild_id: int | None = None
            dm_user: int | None = user
        else:
            cid = channel_id if channel_id is not None else self.default_channel_id
            guild = self._require_guild()
            if guild._resolve_channel(cid) is None:
                self.add_text_channel(cid, f"channel-{cid}")
            payload["guild_id"] = str(self.guild_id)
            payload["guild_locale"] = "en-US"
            payload["member"] = self._member_payload(user)
            payload["channel"] = self._channel_payload(cid) or {"id": str(cid), "type": 0}
            payload["channel_id"] = str(cid)
            payload["context"] = 0
            payload["authorizing_integration_owners"] = {"0": str(self.guild_id)}
            guild_id = self.guild_id
            dm_user = None
        st = _InteractionState(
            interaction_id=iid,
            token=token,
            type=type_,
            user_id=user,
            channel_id=cid,
            guild_id=guild_id,
            dm_user_id=dm_user,
            created_at=self.clock() if self.clock is not None else None,
        )
        self._interactions[token] = st
        return payload, st

    def _message_payload(self, msg: RecordedMessage) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(msg.id),
            "channel_id": str(msg.channel_id),
            "author": self._users[self.bot_user_id],
            "content": msg.content,
            "embeds": msg.embeds,
            "components": msg.components,
            "attachments": [
                {
                    "id": str(i + 1),
                    "filename": n,
                    "size": 0,
                    "url": f"https://cdn.invalid/{n}",
                    "proxy_url": f"https://cdn.invalid/{n}",
                }
                for i, n in enumerate(msg.files)
            ],
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "type": 0,
            "timestamp": discord.utils.snowflake_time(msg.id).isoformat(),
            "edited_timestamp": None,
            "flags": msg.flags,
        }
        if msg.guild_id is not None:
            data["guild_id"] = str(msg.guild_id)
        if msg.via == "interaction":
            data["webhook_id"] = str(self.application_id)
            data["application_id"] = str(self.application_id)
        return data

    # ------------------------------------------------------------- drive it

    async def slash(
        self,
        command: str,
        *,
        user: int,
        options: Mapping[str, Any] | None = None,
        channel_id: int | None = None,
        dm: bool = False,
    ) -> InteractionRecord:
        """Invoke ``/command`` (full qualified name, e.g. ``"td registration open"``)
        as ``user`` with ``options`` keyed by parameter name (Python or display name).

        Values: str/int/float/bool/enum/Choice, and for user/member/role/channel
        options an id (int) or any object with ``.id``.  Runs exactly like the
        gateway path: ``tree._call`` and, on ``AppCommandError``, the tree's
        error dispatch (command/group/cog handlers then ``tree.on_error``).
        """
        data = self._command_data(command, user=user, options=options, dm=dm)
        payload, st = self._base_interaction(2, user=user, channel_id=channel_id, dm=dm, data=data)
        return await self._run(payload, st, via_tree=True)

    async def autocomplete(
        self,
        command: str,
        *,
        user: int,
        option: str,
        current: str,
        options: Mapping[str, Any] | None = None,
        channel_id: int | None = None,
        dm: bool = False,
    ) -> list[dict[str, Any]]:
        """What ``/command`` offers ``user`` while they type ``current`` into ``option``
        (the other ``options`` already filled in, as for :meth:`slash`): the choices
        (``{"name", "value"}`` dicts) the bot answered, in order.

        Runs like the gateway path (``tree._call`` on an APPLICATION_COMMAND_AUTOCOMPLETE
        interaction); raises ``AssertionError`` when the bot sent no choices at all or
        its autocomplete callback failed (discord.py only logs that).
        """
        data = self._command_data(
            command, user=user, options=options, dm=dm, focus=(option, current)
        )
        payload, st = self._base_interaction(4, user=user, channel_id=channel_id, dm=dm, data=data)
        rec = await self._run(payload, st, via_tree=True)
        answers = [r for r in rec.responses if r.kind == "autocomplete"]
        if rec.errors or not answers:
            raise AssertionError(
                f"/{command} {option}: no autocomplete answer (errors: {rec.errors!r})"
            )
        return list(answers[-1].choices)

    def _command_data(
        self,
        command: str,
        *,
        user: int,
        options: Mapping[str, Any] | None,
        dm: bool,
        focus: tuple[str, str] | None = None,
    ) -> dict[str, Any]:
        """The interaction data naming ``/command`` with its options, nested in its groups."""
        tree = self.bot.tree
        parts = command.split()
        if not parts:
            raise ValueError("empty command name")
        guild_obj = discord.Object(self.guild_id)
        root: Any = None if dm else tree.get_command(parts[0], guild=guild_obj)
        is_guild_cmd = root is not None
        if root is None:
            root = tree.get_command(parts[0])
        if root is None:
            known = sorted(
                {c.name for c in tree.get_commands()}
                | {c.name for c in tree.get_commands(guild=guild_obj)}
            )
            raise LookupError(f"no slash command /{parts[0]} (known: {known})")

        chain: list[Any] = [root]
        node = root
        for name in parts[1:]:
            if not isinstance(node, app_commands.Group):
                raise LookupError(f"/{command}: {node.qualified_name!r} is not a group")
            child = node.get_command(name)
            if child is None:
                subs = [c.name for c in node.commands]
                raise LookupError(f"/{command}: no subcommand {name!r} in {subs}")
            chain.append(child)
            node = child
        if not isinstance(node, app_commands.Command):
            raise LookupError(f"/{command} is a group; name a subcommand")

        self._ensure_user(user, dm=dm)
        resolved: dict[str, dict[str, Any]] = {}
        leaf_options = self._build_options(node, dict(options or {}), resolved, dm=dm, focus=focus)

        # nest: root data <- group options <- subcommand options
        nested = leaf_options
        for depth in range(len(chain) - 1, 0, -1):
            item = chain[depth]
            opt_type = 1 if isinstance(item, app_commands.Command) else 2
            nested = [{"type": opt_type, "name": item.name, "options": nested}]
        data: dict[str, Any] = {
            "id": str(self._snowflake()),
            "name": root.name,
            "type": 1,
            "options": nested,
        }
        if resolved:
            data["resolved"] = resolved
        if is_guild_cmd:
            data["guild_id"] = str(self.guild_id)
        return data

    def start_slash(
        self,
        command: str,
        *,
        user: int,
        options: Mapping[str, Any] | None = None,
        channel_id: int | None = None,
        dm: bool = False,
    ) -> asyncio.Task[InteractionRecord]:
        """Like :meth:`slash` but returns a task right away, for commands that wait
        for a button press / modal (``await view.wait()``)::

            task = h.start_slash("td close", user=TD)
            await h.until(lambda: h.responses)  # the confirm prompt is out
            await h.press("close:confirm", user=TD)
            rec = await task
        """
        return asyncio.ensure_future(
            self.slash(command, user=user, options=options, channel_id=channel_id, dm=dm)
        )

    async def until(self, predicate: Callable[[], Any], *, within: float | None = None) -> None:
        """Yield to the loop until ``predicate()`` is truthy (TimeoutError after
        ``within`` seconds, default :attr:`timeout`)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.timeout if within is None else within)
        while not predicate():
            if loop.time() > deadline:
                raise TimeoutError("DiscordHarness.until: condition never became true")
            await asyncio.sleep(0.001)

    def _build_options(
        self,
        cmd: app_commands.Command[Any, ..., Any],
        options: dict[str, Any],
        resolved: dict[str, dict[str, Any]],
        *,
        dm: bool,
        focus: tuple[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        params = {p.name: p for p in cmd.parameters}
        params.update({p.display_name: p for p in cmd.parameters})
        for key in [*options, *([focus[0]] if focus else [])]:
            if key not in params:
                raise ValueError(
                    f"/{cmd.qualified_name} has no option {key!r} "
                    f"(options: {[p.display_name for p in cmd.parameters]})"
                )
        given = {params[k].name: v for k, v in options.items()}
        focused = params[focus[0]].name if focus else None
        for p in cmd.parameters:
            if p.name == focused and focus is not None:
                # Discord sends what is typed so far as a string, whatever the option's type.
                name, kind = p.display_name, p.type.value
                out.append({"name": name, "type": kind, "value": focus[1], "focused": True})
                continue
            if p.name not in given:
                if p.required and focus is None:  # autocomplete: only what is filled in
                    raise ValueError(
                        f"/{cmd.qualified_name}: required option {p.display_name!r} missing"
                    )
                continue
            out.append(self._option(p, given[p.name], resolved, dm=dm))
        return out

    def _option(
        self,
        param: app_commands.Parameter,
        value: Any,
        resolved: dict[str, dict[str, Any]],
        *,
        dm: bool,
    ) -> dict[str, Any]:
        t = param.type
        T = discord.AppCommandOptionType
        if isinstance(value, app_commands.Choice):
            value = value.value
        elif isinstance(value, enum.Enum):
            value = value.value
        opt: dict[str, Any] = {"name": param.display_name, "type": t.value}
        if t is T.string:
            opt["value"] = str(value)
        elif t is T.integer:
            opt["value"] = int(value)
        elif t is T.number:
            opt["value"] = float(value)
        elif t is T.boolean:
            opt["value"] = bool(value)
        elif t in (T.user, T.role, T.channel, T.mentionable):
            sid = int(getattr(value, "id", value))
            opt["value"] = str(sid)
            self._resolve(t, sid, resolved, dm=dm)
        else:
            raise NotImplementedError(f"option type {t} is not supported by the harness")
        return opt

    def _resolve(
        self,
        t: discord.AppCommandOptionType,
        sid: int,
        resolved: dict[str, dict[str, Any]],
        *,
        dm: bool,
    ) -> None:
        T = discord.AppCommandOptionType
        guild = self._require_guild()
        is_role = guild.get_role(sid) is not None
        if t is T.role or (t is T.mentionable and is_role):
            role = guild.get_role(sid)
            if role is None:
                raise ValueError(f"role {sid} is not cached; use add_role()")
            resolved.setdefault("roles", {})[str(sid)] = self._role_payload(
                sid, role.name, role.permissions.value, position=role.position
            )
            return
        if t is T.channel:
            ch = self._channel_payload(sid)
            if ch is None:
                raise ValueError(f"channel {sid} is not cached; use add_text_channel()")
            resolved.setdefault("channels", {})[str(sid)] = {
                "id": str(sid),
                "type": ch["type"],
                "name": ch.get("name", ""),
                "permissions": str(discord.Permissions.all().value),
                "guild_id": str(self.guild_id),
                **(
                    {"parent_id": ch["parent_id"], "thread_metadata": ch["thread_metadata"]}
                    if "thread_metadata" in ch
                    else {}
                ),
            }
            return
        # user / mentionable-user
        if sid not in self._users:
            self.add_user(sid, f"user{sid}")
        resolved.setdefault("users", {})[str(sid)] = self._users[sid]
        if not dm and guild.get_member(sid) is not None:
            mp = self._member_payload(sid)
            mp.pop("user")
            resolved.setdefault("members", {})[str(sid)] = mp

    async def press(
        self,
        custom_id: str,
        *,
        user: int,
        message: RecordedMessage | RecordedResponse | int | None = None,
        dm: bool = False,
        values: Sequence[str] | None = None,
    ) -> InteractionRecord:
        """Click the component ``custom_id`` (button, or select with ``values``).

        ``message`` defaults to the newest recorded message carrying that
        custom_id; if none carries it (e.g. a persistent view registered with
        ``bot.add_view`` for a message sent before a restart) a message holding
        just that button is synthesised in the default channel (or the user's
        DM channel when ``dm=True``).
        """
        target = self._target_message(custom_id, message)
        if target is None:
            cid = self._dm_channel_id(user) if dm else self.default_channel_id
            target = RecordedMessage(
                id=self._snowflake(),
                channel_id=cid,
                components=[
                    {
                        "type": 1,
                        "components": [
                            {"type": 2, "style": 1, "custom_id": custom_id, "label": custom_id}
                        ],
                    }
                ],
                guild_id=None if dm else self.guild_id,
                dm_user_id=user if dm else None,
            )
            self._live[target.id] = target
        comp = _find_component(target.components, custom_id)
        if comp is None:
            raise ValueError(f"message {target.id} has no component {custom_id!r}")
        if comp.get("disabled"):
            raise AssertionError(f"component {custom_id!r} is disabled; Discord would not send it")
        component_type = int(comp.get("type", 2)) if comp else 2
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = list(values)
        elif component_type != 2:
            data["values"] = []
        in_dm = target.dm_user_id is not None or target.channel_id in self._dm_user_of
        if in_dm and target.dm_user_id not in (None, user):
            raise ValueError(f"message {target.id} is in another user's DM channel")
        payload, st = self._base_interaction(
            3, user=user, channel_id=target.channel_id, dm=in_dm, data=data
        )
        payload["message"] = self._message_payload(target)
        st.source_message = target
        return await self._run(payload, st, via_tree=False)

    def _target_message(
        self, custom_id: str, message: RecordedMessage | RecordedResponse | int | None
    ) -> RecordedMessage | None:
        if isinstance(message, int):
            return self.message(message)
        if isinstance(message, RecordedResponse):
            found = self._find(message.message_id)
            if found is None:
                raise ValueError("that response did not create a message")
            return found
        if isinstance(message, RecordedMessage):
            return self._find(message.id) or message
        for msg in reversed(list(self._live.values())):
            if not msg.deleted and _find_component(msg.components, custom_id) is not None:
                return msg
        return None

    async def submit_modal(
        self,
        custom_id: str | None,
        values: Mapping[str, str | Sequence[str]],
        *,
        user: int,
    ) -> InteractionRecord:
        """Submit a modal.  ``custom_id=None`` means the last modal opened.

        ``values`` keys are text-input custom_ids or their labels (looked up in
        the recorded ``send_modal`` payload); a list value fills a select.
        """
        modal_resp: RecordedResponse | None = None
        for r in reversed(self.responses):
            if r.kind == "modal" and (custom_id is None or r.custom_id == custom_id):
                modal_resp = r
                break
        if modal_resp is None and custom_id is None:
            raise AssertionError("no modal was opened")
        modal_id = custom_id if custom_id is not None else str(modal_resp.custom_id)  # type: ignore[union-attr]
        by_label: dict[str, str] = {}
        if modal_resp is not None:
            for f in modal_resp.modal_fields:
                if f.get("label"):
                    by_label[str(f["label"])] = str(f["custom_id"])
        rows: list[dict[str, Any]] = []
        known_ids = {f["custom_id"] for f in modal_resp.modal_fields} if modal_resp else set()
        for key, val in values.items():
            cid = key if key in known_ids or key not in by_label else by_label[key]
            if isinstance(val, str):
                comp: dict[str, Any] = {"type": 4, "custom_id": cid, "value": val}
            else:
                comp = {"type": 3, "custom_id": cid, "values": list(val)}
            rows.append({"type": 1, "components": [comp]})
        data = {"custom_id": modal_id, "components": rows}
        source = None
        channel_id: int | None = None
        dm = False
        if modal_resp is not None:
            channel_id = modal_resp.channel_id
            dm = channel_id in self._dm_user_of
            if modal_resp.source_message_id is not None:
                source = self._find(modal_resp.source_message_id)
        payload, st = self._base_interaction(5, user=user, channel_id=channel_id, dm=dm, data=data)
        if source is not None:
            payload["message"] = self._message_payload(source)
            st.source_message = source
        return await self._run(payload, st, via_tree=False)

    def _view_tasks(self) -> set[asyncio.Task[Any]]:
        """View and modal callbacks, and the event listeners discord.py scheduled for the
        interaction (``on_interaction``: e.g. the bot's answer to a stale button)."""
        store = self.bot._connection._view_store
        tasks: set[asyncio.Task[Any]] = set(getattr(store, "_ViewStore__tasks", set()))
        tasks |= {t for t in asyncio.all_tasks() if t.get_name() == "discord.py: on_interaction"}
        return tasks

    async def settle(self, rounds: int = 5, *, within: float | None = None) -> None:
        """Wait for view / modal callbacks and let freshly scheduled listeners run.

        Raises ``TimeoutError`` if callbacks are still running after ``within``
        seconds (default :attr:`timeout`), e.g. a callback awaiting a second press.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.timeout if within is None else within)
        while True:
            pending = [t for t in self._view_tasks() if not t.done()]
            if pending:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise TimeoutError(
                        f"DiscordHarness: view/modal callbacks still running: "
                        f"{[t.get_name() for t in pending]}"
                    )
                await asyncio.wait(pending, timeout=remaining)
                continue
            for _ in range(rounds):
                await asyncio.sleep(0)
            if all(t.done() for t in self._view_tasks()):
                return

    async def _run(
        self, payload: dict[str, Any], st: _InteractionState, *, via_tree: bool
    ) -> InteractionRecord:
        if not self._started:
            raise RuntimeError("DiscordHarness.start() has not been awaited")
        state = self.bot._connection
        self._forget_old()
        self._running += 1
        try:
            return await self._run_recorded(payload, st, state, via_tree=via_tree)
        finally:
            self._running -= 1

    async def _run_recorded(
        self,
        payload: dict[str, Any],
        st: _InteractionState,
        state: Any,
        *,
        via_tree: bool,
    ) -> InteractionRecord:
        n_resp, n_msg, n_err = len(self.responses), len(self.messages), len(self.errors)
        # Same steps as ConnectionState.parse_interaction_create, but the tree call is
        # awaited inline (instead of CommandTree._from_interaction's fire-and-forget task)
        # and we keep the Interaction object for the record.
        interaction: discord.Interaction[Any] = discord.Interaction(data=payload, state=state)  # type: ignore[arg-type]
        if via_tree:
            tree = self.bot.tree

            async def invoke() -> None:
                try:
                    await tree._call(interaction)
                except app_commands.AppCommandError as e:
                    await tree._dispatch_error(interaction, e)

            try:
                await asyncio.wait_for(invoke(), self.timeout)
            except TimeoutError as e:
                cmd = interaction.command
                name = cmd.qualified_name if cmd is not None else "?"
                raise TimeoutError(
                    f"DiscordHarness: /{name} did not finish within {self.timeout}s"
                    " (waiting for a press? use start_slash)"
                ) from e
        elif payload["type"] == 3:
            data = payload["data"]
            state._view_store.dispatch_view(data["component_type"], data["custom_id"], interaction)
        elif payload["type"] == 5:
            data = payload["data"]
            state._view_store.dispatch_modal(
                data["custom_id"], interaction, data["components"], data.get("resolved", {})
            )
        state.dispatch("interaction", interaction)
        await self.settle()
        return InteractionRecord(
            interaction=interaction,
            responses=[r for r in self.responses[n_resp:] if r.interaction_id == st.interaction_id],
            messages=self.messages[n_msg:],
            errors=self.errors[n_err:],
            failed=interaction.command_failed,
        )

    # ------------------------------------------------------- webhook recorder

    async def _webhook(
        self, route: Route, body: Any, files: list[str], query: dict[str, Any] | None
    ) -> Any:
        params = _route_params(route)
        token = route.webhook_token or params.get("webhook_token", "")
        st = self._interactions.get(token)
        if st is None:
            raise _http_error(
                404, 10015, f"Unknown Webhook (token {token!r} not from this harness)"
            )
        path, method = route.path, route.method
        if method in ("POST", "PATCH"):
            sent: Mapping[str, Any] = body if isinstance(body, Mapping) else {}
            callback = path.endswith("/callback")
            found = interaction_response_problems(sent) if callback else message_problems(sent)
            self._refuse(found, f"{method} {path}")
        if path.endswith("/callback"):
            return self._callback(st, body or {}, files)
        if method == "POST" and path == "/webhooks/{webhook_id}/{webhook_token}":
            return self._followup(st, body or {}, files)
        message_id = params.get("message_id", "")
        if path.endswith("/messages/@original") or message_id == "@original":
            target = st.original
        else:
            target = self._find(int(message_id)) if message_id.isdigit() else None
        if target is None:
            raise _http_error(404, 10008, "Unknown Message")
        if method == "GET":
            return self._message_payload(target)
        if method == "PATCH":
            target._apply(body or {})
            if files:
                target.files = files
            if self.keep_history:
                target.edits.append(body or {})
            self._journal_state(target)
            target.flags &= ~LOADING
            if target is st.original:
                st.pending_defer = False
            self._record_response("edit", st, target, raw=body or {}, files=files)
            return self._message_payload(target)
        if method == "DELETE":
            target.deleted = True
            self._journal_state(target)
            self._record_response("delete", st, target, raw={})
            return None
        return None

    def _record_response(
        self,
        kind: ResponseKind,
        st: _InteractionState,
        msg: RecordedMessage | None,
        *,
        raw: dict[str, Any],
        files: Sequence[str] = (),
        ephemeral: bool | None = None,
        **extra: Any,
    ) -> RecordedResponse:
        rec = RecordedResponse(
            kind=kind,
            interaction_id=st.interaction_id,
            user_id=st.user_id,
            channel_id=st.channel_id,
            content=msg.content if msg else "",
            embeds=list(msg.embeds) if msg else [],
            components=list(msg.components) if msg else [],
            ephemeral=msg.ephemeral if ephemeral is None and msg else bool(ephemeral),
            message_id=msg.id if msg else None,
            files=list(files),
            raw=raw if self.keep_history else {},
            source_message_id=st.source_message.id if st.source_message else None,
            **extra,
        )
        self.responses.append(rec)
        return rec

    def _new_interaction_message(
        self, st: _InteractionState, data: Mapping[str, Any], files: Sequence[str], flags: int
    ) -> RecordedMessage:
        msg = RecordedMessage(
            id=self._snowflake(),
            channel_id=st.channel_id,
            flags=flags,
            guild_id=st.guild_id,
            dm_user_id=st.dm_user_id,
            via="interaction",
            interaction_id=st.interaction_id,
            raw=dict(data) if self.keep_history else {},
        )
        msg._apply({k: v for k, v in data.items() if k != "flags"})
        msg.files = list(files)
        self._live[msg.id] = msg
        st.message_ids.append(msg.id)
        return msg

    def _callback(self, st: _InteractionState, body: dict[str, Any], files: list[str]) -> Any:
        rtype = int(body.get("type", 0))
        data: dict[str, Any] = body.get("data") or {}
        kind = _CALLBACK_KINDS.get(rtype, "other")
        flags = int(data.get("flags") or 0)
        msg: RecordedMessage | None = None
        loading = False
        if kind == "message":
            msg = self._new_interaction_message(st, data, files, flags & ~LOADING)
            st.original = msg
            self._record_response(kind, st, msg, raw=body, files=files)
        elif kind == "deferred":
            msg = self._new_interaction_message(st, {}, (), (flags & EPHEMERAL) | LOADING)
            st.original = msg
            st.pending_defer = True
            loading = True
            self._record_response(kind, st, msg, raw=body)
        elif kind in ("update", "deferred_update"):
            msg = st.source_message
            if msg is not None:
                st.original = msg
                if kind == "update":
                    msg._apply(data)
                    if self.keep_history:
                        msg.edits.append(data)
                    self._journal_state(msg)
                    if files:
                        msg.files = files
            self._record_response(kind, st, msg, raw=body, files=files)
        elif kind == "modal":
            self._record_response(
                kind, st, None, raw=body, custom_id=data.get("custom_id"), title=data.get("title")
            )
            self.responses[-1].components = list(data.get("components") or [])
        elif kind == "autocomplete":
            self._record_response(kind, st, None, raw=body, choices=list(data.get("choices") or []))
        else:
            self._record_response("other", st, None, raw=body)

        interaction: dict[str, Any] = {
            "id": str(st.interaction_id),
            "type": st.type,
            "response_message_loading": loading,
            "response_message_ephemeral": bool(msg.ephemeral) if msg else False,
        }
        out: dict[str, Any] = {"interaction": interaction}
        if msg is not None and kind in ("message", "deferred", "update"):
            interaction["response_message_id"] = str(msg.id)
            out["resource"] = {"type": rtype, "message": self._message_payload(msg)}
        elif kind == "deferred_update" and msg is not None:
            interaction["response_message_id"] = str(msg.id)
        return out

    def _followup(self, st: _InteractionState, body: dict[str, Any], files: list[str]) -> Any:
        flags = int(body.get("flags") or 0)
        if st.pending_defer and st.original is not None:
            # Discord turns the first followup after a thinking defer into the
            # deferred message itself (keeping the defer's ephemerality).
            msg = st.original
            msg._apply({k: v for k, v in body.items() if k != "flags"})
            if files:
                msg.files = files
            msg.flags &= ~LOADING
            st.pending_defer = False
        else:
            msg = self._new_interaction_message(st, body, files, flags & EPHEMERAL)
        self._record_response("followup", st, msg, raw=body, files=files)
        return self._message_payload(msg)

    # ---------------------------------------------------------- REST recorder

    async def _rest(
        self,
        route: Route,
        *,
        files: Sequence[discord.File] | None = None,
        form: Iterable[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> Any:
        body: Any = kwargs.get("json")
        names: list[str] = []
        if form is not None:
            parsed, names = _parse_multipart(list(form))
            if parsed is not None:
                body = parsed
        if files:
            names = names or [f.filename or "file" for f in files]
        req = RecordedRequest(
            method=route.method,
            path=route.path,
            params=_route_params(route),
            json=body,
            query=kwargs.get("params"),
            reason=kwargs.get("reason"),
        )
        if self.keep_history:
            self.requests.append(req)
        retry_after = self._take_rate_limit(req)
        if retry_after is not None:
            self.rate_limited.append(req)
            return await self._through_discord_rate_limiter(
                route,
                retry_after,
                lambda: self._answer(req, names),
                files=files,
                form=form,
                **kwargs,
            )
        return await self._answer(req, names)

    async def _answer(self, req: RecordedRequest, names: list[str]) -> Any:
        """The answer of the registered handler for `req`, else of the emulated Discord."""
        handler = self._handlers.get((req.method, req.path))
        try:
            self._check_refused(req)
            if names and int(req.params.get("channel_id", 0)) in self.files_refused:
                raise _http_error(403, 50013, "Missing Permissions")
            body: Mapping[str, Any] = req.json if isinstance(req.json, Mapping) else {}
            where = f"{req.method} {req.path}"
            if req.method == "POST" and req.path.endswith("/threads"):
                self._refuse(thread_problems(body), where)  # a forum post's first message too
            elif req.method in ("POST", "PATCH") and "/messages" in req.path:
                self._refuse(message_problems(body), where)
            if handler is not None:
                result = handler(req)
                if asyncio.iscoroutine(result) or isinstance(result, Awaitable):
                    result = await result
                return result
            return self._default_rest(req, names)
        except discord.HTTPException as e:
            req.status = e.status
            raise

    def _refuse(self, problems: list[str], where: str) -> None:
        """Answer a payload over Discord's limits as Discord does (400 50035), and record it."""
        if not problems:
            return
        text = "; ".join(problems)
        self.breaches.append(f"{where}: {text}")
        raise _http_error(400, 50035, "Invalid Form Body: " + text)

    def check_breaches(self) -> None:
        """Fail (AssertionError) when the bot sent anything Discord's limits refuse, unless
        the test declared it expects that (`breaches_expected`)."""
        if self.breaches and not self.breaches_expected:
            listed = "\n".join(self.breaches[:20])
            raise AssertionError(f"the bot sent what Discord refuses (400 50035):\n{listed}")

    def _check_refused(self, req: RecordedRequest) -> None:
        """403 where `refused_channels` says the bot lacks access or a permission."""
        if not self.refused_channels or "channel_id" not in req.params:
            return
        channel_id = int(req.params["channel_id"])
        parent = self._channel_payloads.get(channel_id, {}).get("parent_id")
        for target in (channel_id, int(parent) if parent else None):
            code = self.refused_channels.get(target or 0)
            if code is not None:
                text = "Missing Access" if code == 50001 else "Missing Permissions"
                raise _http_error(403, code, text)

    def _default_rest(self, req: RecordedRequest, files: list[str]) -> Any:
        m, path, p = req.method, req.path, req.params
        body: dict[str, Any] = req.json if isinstance(req.json, dict) else {}
        guild = self._require_guild()
        try:
            setup = discord_setup.answer(self, req)
        except discord_setup.SetupRefusal as refusal:
            raise _http_error(refusal.status, refusal.code, refusal.message) from None
        if setup is not discord_setup.NOT_MINE:
            return setup

        if (m, path) == ("POST", "/users/@me/channels"):
            return self._dm_channel_payload(int(body["recipient_id"]))
        if (m, path) == ("POST", "/channels/{channel_id}/messages"):
            cid = int(p["channel_id"])
            dm_user = self._dm_user_of.get(cid)
            if dm_user is not None and dm_user in self.dm_closed:
                raise _http_error(403, 50007, "Cannot send messages to this user")
            nonce = body.get("nonce")
            known = self._find(self._nonces.get(str(nonce))) if body.get("enforce_nonce") else None
            if known is not None:
                # Discord: the same nonce again from the same author answers with the message
                # it already created instead of posting a second one.
                return self._message_payload(known)
            self._touch_thread(cid)
            msg = RecordedMessage(
                id=self._snowflake(),
                channel_id=cid,
                flags=int(body.get("flags") or 0),
                guild_id=None if dm_user is not None else self.guild_id,
                dm_user_id=dm_user,
                files=files,
                raw=body if self.keep_history else {},
            )
            msg._apply({k: v for k, v in body.items() if k != "flags"})
            msg.files = files
            msg.sent_at = self.clock() if self.clock is not None else None
            self._live[msg.id] = msg
            self.messages.append(msg)
            if nonce is not None:
                self._remember_nonce(str(nonce), msg)
            self._write_journal(msg, nonce)
            self._posted(msg)
            return self._message_payload(msg)
        if path == "/channels/{channel_id}/messages/{message_id}":
            live = self._find(int(p["message_id"]))
            if live is None or live.deleted:
                raise _http_error(404, 10008, "Unknown Message")
            if m == "GET":
                return self._message_payload(live)
            if m == "PATCH":
                if self._archived(live.channel_id):
                    raise _http_error(400, 50083, "Thread is archived")
                live._apply(body)
                if files:
                    live.files = files
                if self.keep_history:
                    live.edits.append(body)
                self._journal_state(live)
                followed = self._journal is None or self._journal.follows(live.id)
                if self.on_edit is not None and followed:  # as a replay will see it
                    self.on_edit(live)
                return self._message_payload(live)
            if m == "DELETE":
                live.deleted = True
                self._journal_state(live)
                return None
        if (m, path) == ("POST", "/channels/{channel_id}/threads"):
            return self._create_thread(int(p["channel_id"]), body, files, message_id=None)
        if (m, path) == ("GET", "/channels/{channel_id}/messages"):
            return self._history(int(p["channel_id"]), req.query or {})
        if (m, path) == ("POST", "/channels/{channel_id}/messages/{message_id}/threads"):
            if int(p["message_id"]) in self._channel_payloads:  # Discord: one thread a message
                raise _http_error(400, 160004, "A thread has already been created for this message")
            return self._create_thread(
                int(p["channel_id"]), body, files, message_id=int(p["message_id"])
            )
        if path == "/channels/{channel_id}":
            ch = self._channel_payload(int(p["channel_id"]))
            if ch is None:
                raise _http_error(404, 10003, "Unknown Channel")
            if m == "GET":
                return ch
            if m == "PATCH":
                meta = ch.get("thread_metadata")
                if meta is not None and body.get("archived") is False:
                    self._touch_thread(int(p["channel_id"]))
                for k, v in body.items():
                    if meta is not None and k in ("archived", "locked", "auto_archive_duration"):
                        meta[k] = v
                    else:
                        ch[k] = v
                if meta is not None:
                    self._journal_thread(ch)
                return ch
            if m == "DELETE":
                return ch
        if path == "/guilds/{guild_id}/members/{user_id}":
            member = guild.get_member(int(p["user_id"]))
            if member is None:
                raise _http_error(404, 10007, "Unknown Member")
            if m == "PATCH":
                if "roles" in body and body["roles"] is not None:
                    member._roles = discord.utils.SnowflakeList(map(int, body["roles"]))
                if "nick" in body:
                    member.nick = body["nick"]
            if m in ("GET", "PATCH"):
                return self._member_payload(member.id)
        if path == "/guilds/{guild_id}/members/{user_id}/roles/{role_id}":
            member = guild.get_member(int(p["user_id"]))
            if member is None:
                raise _http_error(404, 10007, "Unknown Member")
            rid = int(p["role_id"])
            if m == "PUT" and not member._roles.has(rid):
                member._roles.add(rid)
            elif m == "DELETE" and member._roles.has(rid):
                member._roles.remove(rid)
            return None
        if (m, path) == ("GET", "/users/{user_id}"):
            uid = int(p["user_id"])
            if uid not in self._users:
                raise _http_error(404, 10013, "Unknown User")
            return self._users[uid]
        if path in (
            "/applications/{application_id}/commands",
            "/applications/{application_id}/guilds/{guild_id}/commands",
        ):
            if m == "GET":
                return []
            items = req.json if isinstance(req.json, list) else []
            try:
                _check_commands(items)
            except discord.HTTPException as refused:
                self.breaches.append(f"{m} {path}: {refused.text}")
                raise
            return [
                {
                    "type": 1,
                    "description": "",
                    "options": [],
                    "default_member_permissions": None,
                    **c,
                    "id": str(self._snowflake()),
                    "application_id": str(self.application_id),
                    "version": "1",
                    **({"guild_id": p["guild_id"]} if "guild_id" in p else {}),
                }
                for c in items
            ]
        if m in ("PUT", "DELETE") and (
            "/reactions/" in path
            or "/thread-members/" in path
            or path.startswith("/channels/{channel_id}/pins")
            or path.startswith("/channels/{channel_id}/messages/pins")
        ):
            return None
        if (m, path) in (
            ("POST", "/channels/{channel_id}/typing"),
            ("POST", "/channels/{channel_id}/messages/bulk-delete"),
        ):
            return None

        self.unhandled.append(req)
        _log.warning("DiscordHarness: unhandled REST %s %s %s", m, path, p)
        if m == "GET":
            raise _http_error(404, 0, f"DiscordHarness has no fake for GET {path}")
        if m == "DELETE":
            return None
        return {}

    def _history(self, channel_id: int, query: Mapping[str, Any]) -> list[dict[str, Any]]:
        """GET a channel's messages as Discord does: newest first, `limit` (at most 100),
        only those after `after` or before `before` (message ids). In a long simulation only
        the messages still held in memory are searched."""
        found = [m for m in self._live.values() if m.channel_id == channel_id and not m.deleted]
        if "after" in query:
            found = [msg for msg in found if msg.id > int(query["after"])]
        if "before" in query:
            found = [msg for msg in found if msg.id < int(query["before"])]
        found.sort(key=lambda msg: msg.id, reverse=True)
        return [self._message_payload(msg) for msg in found[: int(query.get("limit", 50))]]

    def _create_thread(
        self, channel_id: int, body: dict[str, Any], files: list[str], *, message_id: int | None
    ) -> dict[str, Any]:
        parent = self._channel_payloads.get(channel_id)
        is_forum = parent is not None and parent.get("type") in (15, 16)
        require_tag = 1 << 4  # a forum set to "Require people to select tags when posting"
        if is_forum and parent and int(parent.get("flags") or 0) & require_tag:
            if not body.get("applied_tags"):
                raise _http_error(400, 40067, "A tag is required to create a forum post")
        tid = message_id if message_id is not None else self._snowflake()
        now = discord.utils.utcnow().isoformat()
        data: dict[str, Any] = {
            "id": str(tid),
            "guild_id": str(self.guild_id),
            "parent_id": str(channel_id),
            "owner_id": str(self.bot_user_id),
            "name": body.get("name", "thread"),
            "type": 11 if is_forum or message_id is not None else int(body.get("type") or 11),
            "last_message_id": None,
            "rate_limit_per_user": body.get("rate_limit_per_user") or 0,
            "message_count": 0,
            "member_count": 1,
            "flags": 0,
            "applied_tags": [str(t) for t in body.get("applied_tags") or []],
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": body.get("auto_archive_duration") or 10080,
                "archive_timestamp": now,
                "locked": False,
                "invitable": body.get("invitable", True),
            },
        }
        self._add_thread_payload(data)
        self._journal_thread(data)
        if self.clock is not None:
            self._thread_active[tid] = self.clock()
        out = dict(data)
        starter = body.get("message")
        if is_forum and isinstance(starter, dict):
            msg = RecordedMessage(
                id=tid,  # a forum post's starter message shares the thread id
                channel_id=tid,
                guild_id=self.guild_id,
                files=files,
                raw=starter,
            )
            msg._apply({k: v for k, v in starter.items() if k != "flags"})
            msg.files = files
            msg.sent_at = self.clock() if self.clock is not None else None
            self._live[msg.id] = msg
            self.messages.append(msg)
            self._write_journal(msg, None)
            self._posted(msg)
            out["message"] = self._message_payload(msg)
        return out

    def _add_thread_payload(self, data: dict[str, Any]) -> None:
        """A thread known to the guild (created now, or again from the journal)."""
        guild = self._require_guild()
        tid = int(data["id"])
        if tid not in self._channel_payloads:
            self.threads.append(data)
        self._channel_payloads[tid] = data
        thread = discord.Thread(guild=guild, state=self.bot._connection, data=data)  # type: ignore[arg-type]
        guild._add_thread(thread)


@contextlib.asynccontextmanager
async def discord_harness(
    bot: commands.Bot,
    *,
    run_setup_hook: bool = False,
    mark_ready: bool = False,
    **kwargs: Any,
) -> AsyncIterator[DiscordHarness]:
    """``async with discord_harness(bot, guild_id=..., ...) as h:`` — started and closed for you."""
    h = DiscordHarness(bot, **kwargs)
    await h.start(run_setup_hook=run_setup_hook, mark_ready=mark_ready)
    try:
        yield h
    except BaseException:
        await h.close()
        raise
    await h.close()
    h.check_breaches()
