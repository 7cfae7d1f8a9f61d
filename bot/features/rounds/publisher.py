"""Puts published rounds into Discord: the pairings post, its thread, and a thread per match
opened by a message that pings its two players (a round of one match, the Final, talks in the
round's thread).

Everything it needs is in the database, and it records every id it creates right away, so
it can run after each publication and again from the periodic job: a crash in the middle is
completed on the next run instead of being lost.

Never twice, with the guarantees of the outbox (bot.outbox):
- one sync at a time in the process (a lock): the Publish button and the periodic job used
  to read the same unposted boards and both send them;
- every message carries a stable nonce with `enforce_nonce`, so a send repeated within
  Discord's nonce memory (a few minutes) returns the message already made;
- before a round's first send an in-flight marker (`posting:<round id>`, the time) is
  committed, and removed once every id is recorded. A sync that finds a marker knows an
  earlier one may have reached Discord without recording it (a kill, a lost answer), so it
  looks for what the bot already posted (the round's post by its title among the channel's
  threads, each message by its text in the channel since the marker) before sending again,
  whatever time has passed since.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Literal

import discord
from sqlalchemy import delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import stage_kinds
from bot.channel_access import ChannelAccess, is_refusal
from bot.clock import Clock
from bot.config import Config
from bot.features.matches.round_post import (
    board_opening,
    bye_opening,
    match_thread_name,
    parts_key,
    render_round_post_layout,
    round_instructions,
    round_post_state,
)
from bot.features.matches.text import knockout_thread_name, stage_label
from bot.features.rounds import text as wording
from bot.features.rounds import weeks
from bot.features.rounds.starters import match_name
from bot.features.rounds.text import no_channel_text
from bot.message_text import split_parts
from bot.stage_kinds import at_own_pace
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import Match, MatchState, Player, Round, RoundState, Setting, Stage

log = logging.getLogger(__name__)
NO_CHANNEL_KEY = "no-pairings-channel:"
IN_FLIGHT = "posting:"  # a round whose sends may have reached Discord without their ids
MARGIN = timedelta(minutes=1)  # clocks differ: look a little before the marker
THREAD_EXISTS = 160004  # Discord: a thread has already been created for this message
# A round's or a match's thread stays active for a week without messages (Discord's longest);
# a message sent in an archived thread brings it back, an edit unarchives it first
# (bot/thread_edits.py).
ARCHIVE_MINUTES: Literal[10080] = 10080


class RoundPublisher:
    def __init__(
        self,
        client: discord.Client,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        config: Config,
        access: ChannelAccess | None = None,
    ) -> None:
        self.client = client
        self.sessions = sessions
        self.clock = clock
        self.config = config
        self.access = access  # a pairings channel Discord refuses waits (bot.channel_access)
        self._lock = asyncio.Lock()  # one sync at a time: the button and the job both call it

    async def sync(self) -> int:
        """Create whatever is missing for published rounds; returns how many items it made."""
        channel_id = self.config.discord.pairings_channel_id
        if channel_id is None:
            await self._tell_td_no_channel()
            return 0
        if self.access is not None and self.access.wait(channel_id) is not None:
            return 0
        async with self._lock:
            return await self._sync_rounds(channel_id)

    async def _sync_rounds(self, channel_id: int) -> int:
        async with self.sessions() as session:
            # Only rounds with something missing: no post yet, or a match without its message
            # (this runs every few seconds; rounds already posted cost nothing).
            unposted = select(Match.round_id).where(Match.message_id.is_(None))
            rounds = (
                await session.scalars(
                    select(Round)
                    .where(
                        Round.state != RoundState.DRAFT,
                        or_(Round.thread_id.is_(None), Round.id.in_(unposted)),
                    )
                    .order_by(Round.id)
                )
            ).all()
        made = 0
        for round_ in rounds:
            try:
                made += await self._sync_round(round_.id, channel_id)
            except discord.HTTPException as error:
                if self.access is not None and is_refusal(error):
                    doing = wording.posting_pairings(round_.number)
                    await self.access.refused(channel_id, error, doing=doing)
                    return made
                log.warning("could not post round %s yet; will retry", round_.id, exc_info=True)
        if made and self.access is not None:
            await self.access.worked(channel_id)
        return made

    async def _tell_td_no_channel(self) -> None:
        """A published round with no pairings channel to post it in: the TD hears once per
        round (the players got no post, thread or ping); the round is posted as soon as a
        channel is set."""
        async with transaction(self.sessions) as session:
            waiting = (
                await session.execute(
                    select(Round.id, Round.number, Stage.kind)
                    .join(Stage, Stage.id == Round.stage_id)
                    .where(Round.state != RoundState.DRAFT, Round.thread_id.is_(None))
                )
            ).all()
            if not waiting:
                return
            keys = {round_id: f"{NO_CHANNEL_KEY}{round_id}" for round_id, _, _ in waiting}
            told = set(
                await session.scalars(select(Setting.key).where(Setting.key.in_(keys.values())))
            )
            now = self.clock.now()
            for round_id, number, kind in waiting:
                if keys[round_id] in told:
                    continue
                session.add(Setting(key=keys[round_id], value="told", updated_at=now))
                notify_td(session, self.config, now=now, content=no_channel_text(kind, number))
                log.warning("round %s is published but no pairings channel is set", round_id)

    async def _sync_round(self, round_id: int, channel_id: int) -> int:
        made = 0
        async with self.sessions() as session:
            round_ = await session.get(Round, round_id)
            assert round_ is not None
            stage = await session.get(Stage, round_.stage_id)
            needs_post = round_.thread_id is None
            layout = await render_round_post_layout(session, round_id) if needs_post else None
            label = stage_label(stage.kind, stage.name) if stage else None
            own_pace = stage is not None and at_own_pace(stage)
            title = wording.round_post_title(label, round_.number, own_pace=own_pace)
        earlier = await self._mark_in_flight(round_id)
        if layout is not None:
            parts = layout.parts
            post_channel, message_id, thread_id = await self._create_post(
                channel_id, title, parts[0], round_id=round_id, earlier=earlier
            )
            # A long round's further parts follow the first message where it is (the text
            # channel, or the forum post's own thread), before the match messages.
            more = [
                await self._send_once(post_channel, text, f"acwcr{round_id}p{i}", earlier)
                for i, text in enumerate(parts[1:], start=1)
            ]
            async with transaction(self.sessions) as session:
                row = await session.get(Round, round_id)
                assert row is not None
                row.post_channel_id, row.post_message_id = post_channel, message_id
                row.thread_id = thread_id
                if more:
                    now = self.clock.now()
                    state = round_post_state(more, layout)
                    await session.merge(
                        Setting(key=parts_key(round_id), value=state, updated_at=now)
                    )
            made += 1
        else:
            assert round_.thread_id is not None
            thread_id = round_.thread_id
        made += await self._post_matches(round_id, thread_id, channel_id, earlier)
        async with transaction(self.sessions) as session:  # every id is recorded
            await session.execute(delete(Setting).where(Setting.key == IN_FLIGHT + str(round_id)))
        return made

    async def _mark_in_flight(self, round_id: int) -> datetime | None:
        """Commit the in-flight marker before the round's first send; returns the time of an
        earlier one (a sync that may have sent without recording), or None."""
        key = IN_FLIGHT + str(round_id)
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            row = await session.get(Setting, key)
            if row is not None:
                return datetime.fromisoformat(row.value)
            session.add(Setting(key=key, value=now.isoformat(), updated_at=now))
        return None

    async def _create_post(
        self, channel_id: int, title: str, content: str, *, round_id: int, earlier: datetime | None
    ) -> tuple[int, int, int]:
        """A forum gets one post per round; a text channel a message with a thread on it.
        After an interrupted sync, the post it made is found and taken instead."""
        channel = self.client.get_channel(channel_id) or await self.client.fetch_channel(channel_id)
        if isinstance(channel, discord.ForumChannel):
            made = self._own_thread(channel, title, earlier) if earlier else None
            if made is not None:
                return made.id, made.id, made.id  # a forum post's first message is the thread's id
            created = await channel.create_thread(
                name=title, content=content, auto_archive_duration=ARCHIVE_MINUTES
            )
            return created.thread.id, created.message.id, created.thread.id
        if not isinstance(channel, discord.TextChannel):
            raise discord.InvalidData(
                f"pairings channel {channel_id} is not a text or forum channel"
            )
        message_id = await self._send_once(channel.id, content, f"acwcr{round_id}", earlier)
        try:
            thread = await channel.get_partial_message(message_id).create_thread(
                name=title, auto_archive_duration=ARCHIVE_MINUTES
            )
        except discord.HTTPException as error:
            if error.code != THREAD_EXISTS:
                raise
            return channel.id, message_id, message_id  # made before: a message's thread has its id
        return channel.id, message_id, thread.id

    def _own_thread(self, channel: object, title: str, since: datetime) -> discord.Thread | None:
        """The bot's thread (or forum post) titled `title` in `channel`, made since `since`
        (guild cache: Discord sends every active thread the bot can see when it connects)."""
        me = self.client.user.id if self.client.user else None
        threads = (
            channel.threads
            if isinstance(channel, discord.TextChannel | discord.ForumChannel)
            else []
        )
        for thread in threads:
            made = thread.created_at or discord.utils.snowflake_time(thread.id)
            if thread.name == title and thread.owner_id == me and made >= since - MARGIN:
                return thread
        return None

    async def _send_once(
        self, channel_id: int, text: str, nonce: str, earlier: datetime | None
    ) -> int:
        """Send `text` with a stable nonce, unless an interrupted sync already did (then its
        id): the bot's own message with the same text since the marker."""
        channel = self.client.get_partial_messageable(channel_id)
        if earlier is not None:
            after = discord.Object(id=discord.utils.time_snowflake(earlier - MARGIN))
            me = self.client.user.id if self.client.user else None
            async for message in channel.history(limit=100, after=after):
                if message.author.id == me and message.content == text:
                    return message.id
        return (await channel.send(text, nonce=nonce)).id

    async def _post_matches(
        self, round_id: int, thread_id: int, channel_id: int, earlier: datetime | None
    ) -> int:
        """Each match's own thread, opened by a message that pings both players (their one
        copy of the pairing, and what adds them to the thread) with the round's instructions;
        a bye is told in the round's thread. A round of one match (the Final) talks in the
        round's thread: a thread of its own would only repeat it (docs/MESSAGES.md)."""
        async with self.sessions() as session:
            matches = (
                await session.scalars(
                    select(Match)
                    .where(Match.round_id == round_id, Match.message_id.is_(None))
                    .order_by(Match.board)
                )
            ).all()
            if not matches:
                return 0
            lines = {m.id: await self._board_line(session, m) for m in matches}
            header = await self._instructions(session, round_id)
            pairings = await session.scalar(
                select(func.count(Match.id)).where(
                    Match.round_id == round_id, Match.player_b_id.is_not(None)
                )
            )
            names = {m.id: await self._thread_name(session, m) for m in matches}
        if (pairings or 0) <= 1:
            return await self._post_in_round_thread(thread_id, header, lines, earlier)
        byes = {m.id: lines[m.id] for m in matches if names[m.id] is None}
        made = await self._post_in_round_thread(thread_id, None, byes, earlier) if byes else 0
        for match in matches:
            name = names[match.id]
            if name is not None:
                opening = f"{lines[match.id]}\n{header}"
                await self._open_match_thread(channel_id, match, name, opening, earlier)
                made += 1
        return made

    async def _post_in_round_thread(
        self,
        thread_id: int,
        header: str | None,
        lines: dict[int, str],
        earlier: datetime | None,
    ) -> int:
        """Lines in the round's thread under `header`, cut into as few messages as fit."""
        texts = list(lines.values())
        parts = split_parts(header, texts) if header else split_parts(texts[0], texts[1:])
        for part in parts:
            ids = [match_id for match_id, line in lines.items() if line in part]
            message_id = await self._send_once(thread_id, part, f"acwcb{ids[0]}", earlier)
            async with transaction(self.sessions) as session:
                for match_id in ids:
                    row = await session.get(Match, match_id)
                    assert row is not None
                    row.message_id, row.thread_id = message_id, thread_id
        return len(parts)

    async def _open_match_thread(
        self, channel_id: int, match: Match, name: str, opening: str, earlier: datetime | None
    ) -> None:
        """The match's thread in the pairings channel: a forum post opened by `opening`, or
        in a text channel a thread (Discord notes it in the channel) and `opening` in it.
        Each id is recorded as soon as it exists; after an interrupted sync the thread is
        found by its name and the opening by its text instead of being made twice."""
        channel = self.client.get_channel(channel_id) or await self.client.fetch_channel(channel_id)
        thread_id, message_id = match.thread_id, None
        if thread_id is None:
            found = self._own_thread(channel, name, earlier) if earlier else None
            if found is not None:
                thread_id = found.id
                message_id = found.id if isinstance(channel, discord.ForumChannel) else None
            elif isinstance(channel, discord.ForumChannel):
                created = await channel.create_thread(
                    name=name, content=opening, auto_archive_duration=ARCHIVE_MINUTES
                )
                thread_id, message_id = created.thread.id, created.message.id
            elif isinstance(channel, discord.TextChannel):
                thread = await channel.create_thread(
                    name=name,
                    type=discord.ChannelType.public_thread,
                    auto_archive_duration=ARCHIVE_MINUTES,
                )
                thread_id = thread.id
            else:
                raise discord.InvalidData(f"pairings channel {channel_id} cannot hold threads")
            await self._record_match(match.id, thread_id, message_id)
        if message_id is None:
            message_id = await self._send_once(thread_id, opening, f"acwcm{match.id}", earlier)
            await self._record_match(match.id, thread_id, message_id)

    async def _record_match(self, match_id: int, thread_id: int, message_id: int | None) -> None:
        async with transaction(self.sessions) as session:
            row = await session.get(Match, match_id)
            assert row is not None
            row.thread_id, row.message_id = thread_id, message_id

    async def _thread_name(self, session: AsyncSession, match: Match) -> str | None:
        """The match thread's name; None for a bye, which has no thread."""
        if match.player_b_id is None or match.state is MatchState.BYE:
            return None
        round_ = await session.get(Round, match.round_id)
        stage = await session.get(Stage, round_.stage_id) if round_ else None
        a = await session.get(Player, match.player_a_id)
        b = await session.get(Player, match.player_b_id)
        assert round_ is not None and stage is not None and a is not None and b is not None
        name = match_name(self.config.format, stage.key, match.board)
        if name is not None:  # a knock-out's match: "Semifinal 1"
            return knockout_thread_name(
                self.config.tournament.short_name, name, a.lichess_username, b.lichess_username
            )
        return match_thread_name(
            self.config.tournament.short_name,
            stage_label(stage.kind, stage.name),
            round_.number,
            match,
            a.lichess_username,
            b.lichess_username,
        )

    async def _board_line(self, session: AsyncSession, match: Match) -> str:
        a = await session.get(Player, match.player_a_id)
        b = await session.get(Player, match.player_b_id) if match.player_b_id else None
        assert a is not None
        if b is None or match.state is MatchState.BYE:
            return bye_opening(a, match.points_a or 0)
        return board_opening(match, a, b)

    async def _instructions(self, session: AsyncSession, round_id: int) -> str:
        round_ = await session.get(Round, round_id)
        assert round_ is not None
        stage = await session.get(Stage, round_.stage_id)
        if stage is not None and stage_kinds.is_final_match(self.config.format, stage):
            return round_instructions(round_, None)  # no weekly deadlines (IV.C)
        negotiation = self.config.negotiation
        offers_due = weeks.offers_due(self.config, round_.starts_at)  # the format's week
        return round_instructions(round_, (negotiation.required_offers, offers_due))
