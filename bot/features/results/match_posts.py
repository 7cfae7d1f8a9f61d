"""A knock-out's or final match's posts as its games are read (rule III.G): each game's
post in the thread with what it did to the match, #announcements told of each turn, the
bid requests when an Armageddon is next, and the Armageddon's result in the thread."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from bot.config import Config
from bot.features.matches.context import announce, mention, message_player, post_for_match
from bot.features.matches.text import addressed
from bot.features.results import armageddon_text as armageddon_words
from bot.features.results import spectator_text as spectators
from bot.features.results import text as wording
from bot.features.results.stage_rules import ARMAGEDDON_KEY, BID_VIEW, MatchRecord, StageRules
from bot.features.results.types import FinalShape
from bot.outbox import enqueue_channel
from bot.rules import final as final_rules
from db.models import Game, Setting


class MatchStagePosts:
    """The posts of a match played by its stage's match format, game by game."""

    def __init__(self, config: Config, rules: StageRules) -> None:
        self.config = config
        self.rules = rules

    async def _ask_for_bids(
        self, session: AsyncSession, ctx: MatchRecord, now: datetime, played: int
    ) -> None:
        """Still equal at the Armageddon point (30 games in the 2019 Final): each player
        bids privately for White (III.G.6)."""
        key = ARMAGEDDON_KEY + str(ctx.match.id)
        if await session.get(Setting, key) is not None:
            return  # asked already
        session.add(Setting(key=key, value=json.dumps({"bids": {}}), updated_at=now))
        for player in (ctx.a, ctx.b):
            message_player(
                session,
                player,
                thread_id=ctx.thread_id,
                now=now,
                content=wording.armageddon_bid_request(
                    played,
                    self.rules.black_seconds(ctx.stage),
                    self.config.format.equal_bids,
                    name=self.rules.match_name(ctx),
                ),
                view=(BID_VIEW, {"match_id": ctx.match.id}),
            )

    async def after_games(
        self, session: AsyncSession, ctx: MatchRecord, new: Sequence[Game], now: datetime
    ) -> None:
        """Every game of a final match (the Final, the Grand Final, the Third Place Playoff)
        read gets its post in the thread, however many one poll reads: the score, what the
        game did to the match (an extension, the two-point rule dropped, the 2+0 clock, the
        tiebreak games, the Armageddon, each with its rule) and the next game; a knock-out
        match (whose scoreboard is its start post's, as in the Swiss) gets only the posts of
        the games that change it. The poll's last post and each that changes the match
        mention both players, which notifies them (the Armageddon's is the bid request);
        without a thread those come by DM. A game that decides the match gets none: the
        result's post says it. A new time control read in the poll gets a new game link
        (rules III.G.3-6)."""
        results = [g.result_a for g in ctx.games if g.counted]
        new_ids = {g.id for g in new}
        played = [k for k, g in enumerate(g for g in ctx.games if g.counted) if g.id in new_ids]
        if not played:
            return
        status = self.rules.final_status(ctx.stage, results, ctx.armageddon_white)
        bids = status.next_game == final_rules.ARMAGEDDON and ctx.armageddon_white is None
        if bids or (
            status.next_game
            and any(self.rules.final_clock_changed(ctx, results[: k + 1]) for k in played)
        ):  # the Armageddon's link comes with the reveal, a new clock's with the next sweep
            ctx.match.challenge_url = None
        shape = self.rules.final_shape(ctx)
        every_game = self.rules.is_final_match(ctx.stage)
        for k in (k + 1 for k in played):
            turn = self.rules.final_turn(ctx.stage, results[:k], ctx.armageddon_white)
            if turn.status.next_game is None or not (every_game or turn.kind):
                continue
            last = k == len(results)
            text = wording.final_game_post(
                ctx.a.lichess_username,
                ctx.b.lichess_username,
                turn.status.champion_score,
                turn.status.challenger_score,
                k,
                turn.status.next_game,
                wording.final_turn_text(turn.kind, k, turn.block_end, turn.lead_rule_ends, shape),
                new_link=last and ctx.match.challenge_url is None,
                block=self.rules.final_block(ctx.stage, results[:k]),
                name=shape.name,
            )
            if turn.kind:
                self._announce_turn(session, ctx, turn, k, shape, now)
            if (turn.kind or last) and turn.kind != final_rules.ARMAGEDDON:
                text = addressed([mention(ctx.a), mention(ctx.b)], text)
                post_for_match(
                    session, [ctx.a, ctx.b], thread_id=ctx.thread_id, now=now, content=text
                )
            elif ctx.thread_id:
                enqueue_channel(session, channel_id=ctx.thread_id, now=now, content=text)
        if bids:
            await self._ask_for_bids(session, ctx, now, len(results))
        if status.armageddon_played and len(results) - 1 in played:
            self._armageddon_decided(session, ctx, status, shape.name, now)

    def _announce_turn(
        self,
        session: AsyncSession,
        ctx: MatchRecord,
        turn: final_rules.FinalTurn,
        played: int,
        shape: FinalShape,
        now: datetime,
    ) -> None:
        """#announcements hears each turn of the match (an extension, the clock change,
        the tiebreak games, the Armageddon), not only its start and its end."""
        games = (turn.block_end or played) - played
        text = spectators.match_turn(
            shape.name,
            ctx.a.lichess_username,
            ctx.b.lichess_username,
            turn.status.champion_score,
            turn.status.challenger_score,
            played,
            turn.kind or "",
            games=games,
            lead=shape.lead,
            clock=shape.tiebreak_time_control,
        )
        if text:
            announce(session, self.config, now, text)

    def _armageddon_decided(
        self,
        session: AsyncSession,
        ctx: MatchRecord,
        status: final_rules.FinalStatus,
        name: str,
        now: datetime,
    ) -> None:
        """The match's thread hears the Armageddon's result, not only a scoreboard edit."""
        game = [g for g in ctx.games if g.counted][-1]
        names = {ctx.a.id: ctx.a.lichess_username, ctx.b.id: ctx.b.lichess_username}
        winner = ctx.a if status.winner == final_rules.CHAMPION else ctx.b
        text = armageddon_words.armageddon_result(
            name,
            names[game.white_player_id],
            names[game.black_player_id],
            winner.lichess_username,
            game.result_a == 0.5,
        )
        post_for_match(
            session,
            [ctx.a, ctx.b],
            thread_id=ctx.thread_id,
            now=now,
            content=addressed([mention(ctx.a), mention(ctx.b)], text),
        )
