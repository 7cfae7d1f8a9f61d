"""What the negotiation use cases other than /accept share (rule V): reading the times a
player types and checking them against the round (`TimeChecks`, given to the offers and
the TD's rulings by `bot.wiring`), counting the offers, making an offer with its reminder
and its Accept button, asking the player not at fault to choose. The agreed time itself is
fixed by `agreement.Agreements`, which `bot.wiring` gives to the use cases that fix one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncSession

from bot import due
from bot.audit import Actor, record
from bot.config import Config
from bot.due import DueKind
from bot.errors import InvalidInput
from bot.features.matches.context import MatchContext, mention, message_player, post_for_match
from bot.features.negotiation import text as wording
from bot.features.negotiation.agreement import (
    ANSWERABLE,
    MATCH_SUBJECT,
    OFFER_ACCEPT_VIEW,
    OFFER_SUBJECT,
    offer_numbers,
    offers_of,
)
from bot.rules.negotiation import (
    Deadlines,
    OfferRecord,
    answer_reminder_due,
    proposed_time_refusal,
    round_deadlines,
)
from bot.rules.negotiation import counted_offer_times as rule_counted_times
from bot.rules.timeinput import TimeInputError, parse_time, parse_times, zone_named
from bot.rules.week import round_offsets
from db.models import OfferKind, OfferState, Player, Round, TimeOffer

# Only words that cannot be mistaken for a Lichess username (a player may be called "none").
NOBODY = frozenset({"nobody", "no one"})
SECOND, HOUR = timedelta(seconds=1), timedelta(hours=1)


def record_of(offer: TimeOffer) -> OfferRecord:
    """The offer in the plain values the rules read."""
    return OfferRecord(
        ident=offer.id,
        by=offer.offered_by_id,
        plain=offer.kind is OfferKind.OFFER,
        answerable=offer.kind in ANSWERABLE,
        open=offer.state is OfferState.OPEN,
        withdrawn=offer.state is OfferState.WITHDRAWN,
        made_at=offer.created_at,
        time=offer.proposed_time,
    )


def round_deadlines_of(round_: Round, config: Config) -> Deadlines:
    """The round's offers deadline (rule V.C) and weekend check (rule V.H), in the format's
    week (`config.format.week`, `bot.rules.week.round_offsets`): the offers deadline is
    checked a second after the last second it names (2019: Wednesday 23:59:59, checked at
    Thursday 00:00; 2021 on: Friday 23:59:59, at Saturday 00:00)."""
    offsets = round_offsets(config.format.week.rule_week())
    return round_deadlines(
        round_.starts_at,
        round_.deadline,
        offers_due_hours=(offsets.offers_due + SECOND) / HOUR,
        weekend_hours=offsets.weekend / HOUR,
    )


def offers_due_at(round_: Round, config: Config) -> datetime:
    return round_deadlines_of(round_, config).offers_due


def counted_offer_times(
    offers: Sequence[TimeOffer], player_id: int, before: datetime
) -> list[datetime]:
    """The times of `player_id`'s offers that count for rule V.C, oldest first (decided by
    `bot.rules.negotiation.counted_offer_times`)."""
    return rule_counted_times([record_of(o) for o in offers], player_id, offers_due=before)


def counted_offers(offers: Sequence[TimeOffer], player_id: int, before: datetime) -> int:
    """How many of `player_id`'s offers count for rule V.C."""
    return len(counted_offer_times(offers, player_id, before))


def saved_zone(player: Player) -> ZoneInfo | None:
    """The zone the player set with /timezone; None for UTC, or for a name the tz database
    no longer has (then times are read in UTC, and the reply says so)."""
    if not player.time_zone:
        return None
    try:
        return zone_named(player.time_zone)
    except TimeInputError:
        return None


class TimeChecks:
    """The times a player or the TD types, read (rule V.B) and checked against the round
    (rule IV.F)."""

    def __init__(self, config: Config) -> None:
        self.config = config

    @property
    def margin(self) -> timedelta:
        return timedelta(minutes=self.config.negotiation.finish_margin_minutes)

    def problems(self, t: datetime, round_: Round, now: datetime) -> list[str]:
        """Why `t` cannot be the match time (rule IV.F, decided by `proposed_time_refusal`),
        worded; empty = playable."""
        refusal = proposed_time_refusal(
            t, now=now, round_start=round_.starts_at, round_end=round_.deadline, margin=self.margin
        )
        if refusal is None:
            return []
        return [wording.time_refused(refusal, t, round_, self.config.negotiation)]

    @staticmethod
    def parse_many(raw: str, round_: Round, zone: tzinfo | None = None) -> list[datetime]:
        """The UTC instants of the times a player typed (rule V.B); a time without a zone
        is read in `zone`, the player's own (`saved_zone`), or UTC."""
        try:
            return parse_times(
                raw, round_start=round_.starts_at, round_end=round_.deadline, zone=zone
            )
        except TimeInputError as exc:
            raise InvalidInput(exc.message) from None

    @staticmethod
    def parse_one(raw: str, round_: Round, zone: tzinfo | None = None) -> datetime:
        try:
            return parse_time(
                raw, round_start=round_.starts_at, round_end=round_.deadline, zone=zone
            )
        except TimeInputError as exc:
            raise InvalidInput(exc.message) from None


async def new_offer(
    session: AsyncSession,
    config: Config,
    ctx: MatchContext,
    player: Player,
    opponent: Player,
    kind: OfferKind,
    t: datetime,
    now: datetime,
) -> TimeOffer:
    """An open offer with its unanswered reminder, audit row and Accept messages."""
    row = TimeOffer(
        match_id=ctx.match.id,
        offered_by_id=player.id,
        kind=kind,
        proposed_time=t,
        state=OfferState.OPEN,
        created_at=now,
    )
    session.add(row)
    await session.flush()
    await due.schedule(
        session,
        kind=DueKind.OFFER_UNANSWERED,
        subject_type=OFFER_SUBJECT,
        subject_id=row.id,
        due_at=answer_reminder_due(now, hours=config.negotiation.answer_reminder_hours),
        payload={"match_id": ctx.match.id},
    )
    record(
        session,
        at=now,
        actor=Actor.player(player.discord_id or 0),
        action=f"time_{kind.value}",
        subject_type=MATCH_SUBJECT,
        subject_id=ctx.match.id,
        details={"offer_id": row.id, "time": t.isoformat()},
    )
    view = (OFFER_ACCEPT_VIEW, {"offer_id": row.id})
    number = offer_numbers(await offers_of(session, ctx.match.id))[row.id]
    if kind is OfferKind.RESCHEDULE and ctx.match.agreed_time is not None:
        posted = wording.reschedule_posted(
            player.lichess_username, mention(opponent), t, ctx.match.agreed_time, number
        )
    else:
        posted = wording.offer_posted(player.lichess_username, mention(opponent), t, number)
    post_for_match(session, [opponent], thread_id=ctx.thread_id, now=now, content=posted, view=view)
    return row


def dm(
    session: AsyncSession,
    ctx: MatchContext,
    player: Player,
    now: datetime,
    content: str,
    *,
    view: tuple[str, dict[str, Any]] | None = None,
) -> None:
    """A message for one player of the match (in its thread, mentioning them, or by DM)."""
    message_player(session, player, thread_id=ctx.thread_id, now=now, content=content, view=view)


def ask_to_choose(
    session: AsyncSession,
    ctx: MatchContext,
    chooser: Player,
    at_fault: Player,
    now: datetime,
    why: str,
) -> None:
    """Rule V.E: the player not at fault picks the time by the round deadline; `why` says
    what the opponent did (missed the offers, or ruled at fault by the TD)."""
    dm(
        session,
        ctx,
        chooser,
        now,
        wording.choose_request(at_fault.lichess_username, ctx.round_.deadline, why),
    )
