"""The Armageddon of a knock-out or final match (rule III.G.6; the 2019 Final, a Semifinal,
the Grand Final, the Third Place Playoff): private bids for White, revealed together.

Each player bids the time they would play White with; neither sees the other's bid until
both are in. The lower bid plays White (equal bids, by the format's `equal_bids`: the previous
champion when they play the match, otherwise, and always under `rock_paper_scissors`, a
rock-paper-scissors game whose winner the TD records with a button or `/td armageddon rps`;
`bot.rules.armageddon.armageddon_colours` decides), with that time
against Black's 3 minutes, no increment, and Black has draw odds. A Lichess challenge gives
both sides the same clock, so the bot opens a 3+0 game, tells both players exactly how the
clocks must be, counts the game only with the right player as White, and asks the TD to
confirm the clocks, which the game record cannot show.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.audit import Actor, record, record_td_decision
from bot.clock import Clock
from bot.config import Config
from bot.errors import InvalidInput, NotAllowed, WrongStage
from bot.events import EventBus
from bot.features.matches.context import mention, player_by_discord, post_for_match
from bot.features.matches.text import addressed
from bot.features.results import armageddon_text as clock_words
from bot.features.results import text as wording
from bot.features.results.records import MatchRecords
from bot.features.results.stage_rules import ARMAGEDDON_KEY, RPS_VIEW, MatchRecord
from bot.features.results.types import BidReceipt, RpsChoice, RpsWaiting
from bot.lichess.client import LichessClient
from bot.rules import final as final_rules
from bot.rules.armageddon import A, B, EqualBids, armageddon_colours
from bot.service import Service
from bot.td_alerts import notify_td
from db.engine import transaction
from db.models import Player, Setting

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


def previous_champion_side(config: Config, a: Player, b: Player) -> str | None:
    """Which side of a match is the previous champion (`players.previous_champion`, or the
    pre-seeded player of role `champion`): "a", "b", or None when neither plays it."""
    names = {p.lichess.lower() for p in config.players.pre_seeded if p.role == "champion"}
    if config.players.previous_champion:
        names.add(config.players.previous_champion.lower())
    if a.lichess_id.lower() in names:
        return A
    if b.lichess_id.lower() in names:
        return B
    return None


def _named(player: Player, player_id: int | None, name: str | None) -> bool:
    """The player the TD's button (its id) or command (the Lichess name) names."""
    if player_id is not None:
        return player.id == player_id
    typed = (name or "").strip().lower()
    return typed in (player.lichess_id, player.lichess_username.lower())


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
        """One bid per player of the match, kept private; the second one reveals both at
        once."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            player = await player_by_discord(session, discord_id)
            ctx = await self.records.one(session, match_id)
            if ctx is None or player.id not in (ctx.a.id, ctx.b.id):
                raise NotAllowed(wording.not_a_finalist())
            black = self.records.rules.black_seconds(ctx.stage)
            seconds = parse_bid(text, black)
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
            colours = armageddon_colours(  # rules III.G.6.b-c; 2020-2024: rock-paper-scissors
                champion_bid,
                challenger_bid,
                equal_bids=EqualBids(self.config.format.equal_bids),
                previous_champion=previous_champion_side(self.config, ctx.a, ctx.b),  # III.G.6.c
                black_s=black,
            )
            if colours.white is None:  # equal bids: the TD records who won White
                row.value, row.updated_at = json.dumps(state), now
                self._ask_for_rock_paper_scissors(session, ctx, champion_bid, now)
                return BidReceipt(seconds, revealed=True)
            white = final_rules.CHAMPION if colours.white == A else final_rules.CHALLENGER
            self._reveal(session, ctx, row, state, white, now, rock_paper_scissors=False)
            return BidReceipt(seconds, revealed=True)

    def _reveal(
        self,
        session: AsyncSession,
        ctx: MatchRecord,
        row: Setting,
        state: dict[str, Any],
        white: str,
        now: datetime,
        *,
        rock_paper_scissors: bool,
    ) -> None:
        """Who plays White is known: the bids are revealed, and the sweep opens the 3+0 link."""
        black = self.records.rules.black_seconds(ctx.stage)
        bids: dict[str, int] = state["bids"]
        champion_bid, challenger_bid = bids[str(ctx.a.id)], bids[str(ctx.b.id)]
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
            subject_id=ctx.match.id,
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
            rock_paper_scissors=rock_paper_scissors,
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
            content=clock_words.revealed_td(
                self.records.rules.match_name(ctx), white_player.lichess_username, white_bid, black
            ),
        )

    def _ask_for_rock_paper_scissors(
        self, session: AsyncSession, ctx: MatchRecord, bid: int, now: datetime
    ) -> None:
        """Equal bids under `rock_paper_scissors`, or under `previous_champion` with no
        previous champion in the match: both players and the TD are told, and the TD gets
        one button per player to record the rock-paper-scissors winner."""
        record(
            session,
            at=now,
            actor=Actor.job(),
            action="armageddon_bids_equal",
            subject_type="match",
            subject_id=ctx.match.id,
            details={"bid": bid},
        )
        a, b = ctx.a.lichess_username, ctx.b.lichess_username
        no_champion = self.config.format.equal_bids == EqualBids.PREVIOUS_CHAMPION.value
        post_for_match(
            session,
            [ctx.a, ctx.b],
            thread_id=ctx.thread_id,
            now=now,
            content=addressed(
                [mention(ctx.a), mention(ctx.b)],
                wording.armageddon_equal_bids(a, b, bid, no_previous_champion=no_champion),
            ),
        )
        notify_td(
            session,
            self.config,
            now=now,
            content=wording.armageddon_rps_td(self.records.rules.label(ctx), a, b, bid),
            view=(RPS_VIEW, {"players": [[ctx.a.id, a], [ctx.b.id, b]]}),
        )

    async def record_rps_winner(
        self,
        *,
        td_id: int,
        player_id: int | None = None,
        player_name: str | None = None,
        match_id: int | None = None,
    ) -> RpsChoice:
        """The TD records who won rock-paper-scissors after equal bids (by the button's
        player id or the command's name, in the match `match_id` when given, otherwise in
        the match with equal bids that player plays, one still waiting first); the winner
        plays White. Again: nothing changes."""
        now = self.clock.now()
        async with transaction(self.sessions) as session:
            waiting = await self._equal_bids(session)
            if match_id is not None:
                waiting = [w for w in waiting if w[0].match.id == match_id]
            if not waiting:
                raise WrongStage(wording.no_rps_waiting())
            found = next(
                (
                    (ctx, row, state, side)
                    for ctx, row, state in waiting
                    for side, p in ((final_rules.CHAMPION, ctx.a), (final_rules.CHALLENGER, ctx.b))
                    if _named(p, player_id, player_name)
                ),
                None,
            )
            if found is None:
                first = waiting[0][0]
                typed = player_name if player_name is not None else str(player_id)
                raise InvalidInput(
                    wording.not_in_rps(typed, first.a.lichess_username, first.b.lichess_username)
                )
            ctx, row, state, side = found
            if state.get("white") is not None:
                white = ctx.a if state["white"] == final_rules.CHAMPION else ctx.b
                return RpsChoice(white.lichess_username, already=True)
            winner = ctx.a if side == final_rules.CHAMPION else ctx.b
            record_td_decision(
                session,
                at=now,
                td_id=td_id,
                kind="armageddon_rps",
                subject_type="match",
                subject_id=ctx.match.id,
                decision=winner.lichess_id,
            )
            self._reveal(session, ctx, row, state, side, now, rock_paper_scissors=True)
            return RpsChoice(winner.lichess_username, already=False)

    async def waiting_for_rps(self) -> list[RpsWaiting]:
        """The matches whose equal Armageddon bids wait for the TD's rock-paper-scissors
        winner (the autocomplete of `/td armageddon rps match:`)."""
        async with self.sessions() as session:
            return [
                RpsWaiting(
                    ctx.match.id,
                    self.records.rules.match_name(ctx),
                    ctx.a.lichess_username,
                    ctx.b.lichess_username,
                )
                for ctx, _row, state in await self._equal_bids(session)
                if state.get("white") is None
            ]

    async def _equal_bids(
        self, session: AsyncSession
    ) -> list[tuple[MatchRecord, Setting, dict[str, Any]]]:
        """The matches whose two Armageddon bids are in and equal: those still waiting for
        White first, then those recorded, each by match id."""
        rows = await session.scalars(
            select(Setting).where(Setting.key.startswith(ARMAGEDDON_KEY, autoescape=True))
        )
        found = []
        for row in rows:
            state = json.loads(row.value)
            bids = list(state.get("bids", {}).values())
            if len(bids) != 2 or bids[0] != bids[1]:
                continue
            ctx = await self.records.one(session, int(row.key.removeprefix(ARMAGEDDON_KEY)))
            if ctx is not None:
                found.append((ctx, row, state))
        found.sort(key=lambda item: (item[2].get("white") is not None, item[0].match.id))
        return found
