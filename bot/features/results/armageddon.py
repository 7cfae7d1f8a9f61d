"""The Armageddon of the Final (rule III.G.6): private bids for White, revealed together.

Each finalist bids the time they would play White with; neither sees the other's bid until
both are in. The lower bid plays White (equal bids: the previous champion), with that time
against Black's 3 minutes, no increment, and Black has draw odds. A Lichess challenge gives
both sides the same clock, so the bot opens a 3+0 game, tells both players exactly how the
clocks must be, counts the game only with the right player as White, and asks the TD to
confirm the clocks, which the game record cannot show.
"""

from __future__ import annotations

import json
import re

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor, record
from bot.clock import Clock
from bot.config import Config
from bot.errors import InvalidInput, NotAllowed, WrongStage
from bot.events import EventBus
from bot.features.matches.context import mention, player_by_discord, post_for_match
from bot.features.matches.text import addressed
from bot.features.results import text as wording
from bot.features.results.records import MatchRecords
from bot.features.results.stage_rules import ARMAGEDDON_KEY
from bot.features.results.types import BidReceipt
from bot.lichess.client import LichessClient
from bot.rules import final as final_rules
from bot.service import Service
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import Setting

_BID = re.compile(r"\s*(?:(\d{1,2})\s*[:m]\s*(\d{1,2})\s*s?|(\d{1,3})\s*s?)\s*", re.IGNORECASE)


def parse_bid(text: str, black_seconds: int = final_rules.ARMAGEDDON_BLACK_S) -> int:
    """A bid as whole seconds from `m:ss`, `2m17`, or seconds (`137`)."""
    found = _BID.fullmatch(text or "")
    if found is None:
        raise InvalidInput(wording.bad_bid(text))
    minutes, seconds, plain = found.groups()
    if plain is not None:
        value = int(plain)
    else:
        if int(seconds) > 59:
            raise InvalidInput(wording.bad_bid(text))
        value = int(minutes) * 60 + int(seconds)
    low, high = final_rules.ARMAGEDDON_MIN_BID_S, black_seconds
    if not low <= value <= high:
        raise InvalidInput(wording.bid_out_of_range(low, high))
    return value


class ArmageddonBids(Service):
    """The bids and the reveal (the Armageddon's game link then comes with the sweep)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        config: Config,
        clock: Clock,
        *,
        records: MatchRecords,
        lichess: LichessClient | None = None,
        events: EventBus | None = None,
    ) -> None:
        super().__init__(sessions, config, clock, lichess=lichess, events=events)
        self.records = records

    async def submit_bid(self, *, discord_id: int, match_id: int, text: str) -> BidReceipt:
        """One bid per finalist, kept private; the second one reveals both at once."""
        black = self.config.stages.final_armageddon_black_seconds
        seconds = parse_bid(text, black)
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            player = await player_by_discord(session, discord_id)
            ctx = await self.records.one(session, match_id)
            if ctx is None or player.id not in (ctx.a.id, ctx.b.id):
                raise NotAllowed(wording.not_a_finalist())
            row = await session.get(Setting, ARMAGEDDON_KEY + str(match_id))
            if row is None:
                raise WrongStage(wording.no_armageddon_yet())
            state = json.loads(row.value)
            bids: dict[str, int] = state["bids"]
            if state.get("white") is not None or str(player.id) in bids:
                raise WrongStage(wording.bid_already_in())
            bids[str(player.id)] = seconds
            record(
                session,
                at=now,
                actor=Actor.player(discord_id),
                action="armageddon_bid",
                subject_type="match",
                subject_id=match_id,
                details={},  # the amount stays private until the reveal
            )
            if len(bids) < 2:
                row.value, row.updated_at = json.dumps(state), now
                return BidReceipt(seconds, revealed=False)
            champion_bid, challenger_bid = bids[str(ctx.a.id)], bids[str(ctx.b.id)]
            white = final_rules.armageddon_white(champion_bid, challenger_bid, black_s=black)
            state["white"], state["revealed_at"] = white, now.isoformat()
            row.value, row.updated_at = json.dumps(state), now
            ctx.match.challenge_url = None  # the sweep opens the 3+0 game link
            white_player, black_player = (ctx.a, ctx.b) if white == "champion" else (ctx.b, ctx.a)
            white_bid = champion_bid if white == "champion" else challenger_bid
            record(
                session,
                at=now,
                actor=Actor.job(),
                action="armageddon_revealed",
                subject_type="match",
                subject_id=match_id,
                details={"bids": {"champion": champion_bid, "challenger": challenger_bid},
                         "white": white},
            )  # fmt: skip
            reveal = wording.armageddon_reveal(
                ctx.a.lichess_username,
                champion_bid,
                ctx.b.lichess_username,
                challenger_bid,
                white_player.lichess_username,
                black_player.lichess_username,
                white_bid,
                equal=champion_bid == challenger_bid,
                black_clock=black,
            )
            post_for_match(
                session,
                [ctx.a, ctx.b],
                thread_id=ctx.thread_id,
                now=now,
                content=addressed([mention(ctx.a), mention(ctx.b)], reveal),
            )
            notify_td(
                session,
                self.config,
                now=now,
                content=wording.armageddon_td(
                    match_id, white_player.lichess_username, white_bid, black
                ),
            )
            return BidReceipt(seconds, revealed=True)
