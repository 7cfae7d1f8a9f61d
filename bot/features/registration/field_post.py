"""The field made public: the post in the announcement channel when registration closes.

Every approved entrant by seed (the order round 1 is paired in), with the seeding rating and
the two games behind it, and the pre-seeded players. A long field takes several messages,
each under Discord's 2,000 characters. The post is written through the outbox by key
(`field_post:1`, `field_post:2`, ...), and what each message shows is kept in the setting
`field_post` in the same transaction, so:

- it is posted once: a second close, the configured close passing after the TD's, or a
  restart finds the setting and queues nothing new;
- every change to the field before round 1 (a decision, a withdrawal, a reopening and a
  new close) edits the messages whose text changed, by their keys;
- once round 1 is published it never changes again.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import message_text
from bot.config import Config
from bot.features.registration import text as wording
from bot.features.registration.types import FieldEntry
from bot.outbox import enqueue_channel, enqueue_edit_of
from bot.registration_window import read_window, swiss_stage
from db.models import Player, Registration, RegistrationState, Setting

FIELD_POST_KEY = "field_post"
MESSAGE_LIMIT = message_text.MESSAGE_LIMIT


def part_key(number: int) -> str:
    """The outbox key of the post's `number`th message (from 1)."""
    return f"{FIELD_POST_KEY}:{number}"


async def field_entries(session: AsyncSession) -> list[FieldEntry]:
    """Approved, not pre-seeded, not withdrawn or disqualified, in the order round 1 seeds
    them (`rounds.progress._entrants`): best
    seeding rating first, unrated last, then by registration time."""
    rows = (
        await session.execute(
            select(Player, Registration)
            .join(Registration, Registration.player_id == Player.id)
            .where(
                Registration.state == RegistrationState.APPROVED,
                Player.pre_seeded_stage.is_(None),
                Player.withdrawn_at.is_(None),
                Player.disqualified_at.is_(None),
            )
        )
    ).all()
    ordered = sorted(
        rows,
        key=lambda pr: (
            pr[0].seeding_rating is None,
            -(pr[0].seeding_rating or 0.0),
            pr[1].created_at,
            pr[1].id,
        ),
    )
    return [
        FieldEntry(
            seed=seed,
            lichess_username=player.lichess_username,
            seeding_rating=player.seeding_rating,
            rating_at_cutoff=reg.rating_at_cutoff,
            rating_at_cutoff_game=reg.rating_at_cutoff_game,
            peak_rating=reg.peak_rating,
            peak_rating_game=reg.peak_rating_game,
        )
        for seed, (player, reg) in enumerate(ordered, start=1)
    ]


def split_parts(header: str, lines: list[str]) -> list[str]:
    """The post as messages under the limit: the header once, then the lines, cut only
    between lines; each message of a long post says which part it is (bot.message_text)."""
    return message_text.split_parts(
        header,
        lines,
        limit=MESSAGE_LIMIT,
        marker=wording.field_part_marker,
        continued=wording.field_continued(),
    )


async def render_field_post(session: AsyncSession, config: Config, now: datetime) -> list[str]:
    """The post's messages as the field stands now."""
    window = await read_window(session, config, now)
    entries = await field_entries(session)
    header = wording.field_header(config, len(entries), window)
    return split_parts(header, [wording.field_line(e) for e in entries])


async def refresh_field_post(session: AsyncSession, config: Config, now: datetime) -> None:
    """Post the field once registration is closed, or edit the post to match the field;
    nothing once round 1 is out, or without an announcement channel."""
    channel_id = config.discord.announcement_channel_id
    if channel_id is None or await swiss_stage(session, config) is not None:
        return
    stored = await session.get(Setting, FIELD_POST_KEY)
    if stored is None and (await read_window(session, config, now)).is_open:
        return  # nothing is public while registration is open
    state: dict[str, Any] = json.loads(stored.value) if stored else {}
    posted: int = state.get("posted", 0)
    shown: list[str] = list(state.get("shown", []))
    parts = await render_field_post(session, config, now)
    # A field that shrank leaves messages it no longer needs: they say so rather than vanish.
    texts = parts + [wording.field_part_unused()] * max(0, posted - len(parts))
    shown += [""] * (len(texts) - len(shown))
    for index, text in enumerate(texts):
        digest = _digest(text)
        if shown[index] == digest:
            continue
        if index < posted:
            enqueue_edit_of(
                session, key=part_key(index + 1), channel_id=channel_id, now=now, content=text
            )
        else:
            enqueue_channel(
                session, channel_id=channel_id, now=now, content=text, key=part_key(index + 1)
            )
        shown[index] = digest
    value = json.dumps({"posted": max(posted, len(parts)), "shown": shown})
    if stored is None:
        session.add(Setting(key=FIELD_POST_KEY, value=value, updated_at=now))
    elif stored.value != value:
        stored.value, stored.updated_at = value, now


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:16]
