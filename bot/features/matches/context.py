"""What several match services share: a match with its round and players, the player's
current match, a message to a player that falls back to the match thread, and the match's
public post that mentions its players (docs/MESSAGES.md: one copy per reader)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import stage_kinds
from bot.config import Config
from bot.errors import InvalidInput, NotAllowed, WrongStage
from bot.features.matches import text as wording
from bot.features.matches.live_games import live_game
from bot.features.matches.types import GameLine, MatchProgress
from bot.format.model import Format
from bot.outbox import enqueue_channel, enqueue_dm
from db.models import Game, Match, Player, Round, RoundState, Setting, Stage, StageKind


@dataclass
class MatchContext:
    """A match with its round and players, loaded in one session."""

    match: Match
    round_: Round
    a: Player
    b: Player | None

    @property
    def thread_id(self) -> int | None:
        """Where the match talks: its own thread, else the round's."""
        return self.match.thread_id or self.round_.thread_id

    def has(self, player_id: int) -> bool:
        return player_id in (self.a.id, self.b.id if self.b else None)

    def opponent_of(self, player_id: int) -> Player:
        if self.b is None:
            raise WrongStage(wording.BYE)
        return self.b if player_id == self.a.id else self.a

    def player(self, player_id: int | None) -> Player | None:
        if player_id == self.a.id:
            return self.a
        if self.b is not None and player_id == self.b.id:
            return self.b
        return None

    def name(self, player_id: int | None) -> str:
        player = self.player(player_id)
        return player.lichess_username if player else "the TD"


async def match_progress(session: AsyncSession, ctx: MatchContext) -> MatchProgress:
    """The score and every stored game of the match, for replies that must say why."""
    rows = (
        await session.scalars(
            select(Game).where(Game.match_id == ctx.match.id).order_by(Game.number)
        )
    ).all()
    lines = [
        GameLine(
            g.number,
            g.lichess_id,
            ctx.name(g.white_player_id),
            ctx.name(g.black_player_id),
            g.result_a,
            g.counted,
            g.voided_reason,
            g.flagged,
        )
        for g in rows
    ]
    match = ctx.match
    live = await live_game(session, match.id)
    return MatchProgress(
        player_a=ctx.a.lichess_username,
        player_b=ctx.b.lichess_username if ctx.b else "",
        state=match.state,
        score_a=match.score_a,
        score_b=match.score_b,
        games=lines,
        challenge_url=match.challenge_url,
        forfeit_winner=ctx.name(match.forfeit_winner_id) if match.forfeit_winner_id else None,
        link_white=await _link_white(session, match) if match.challenge_url else None,
        live_game=live.url if live is not None else None,
    )


#: Setting key + match id: who has White on the match's game link (the results feature
#: writes it with the link: Lichess gives White to the first of the link's two users).
LINK_WHITE_KEY = "link-white:"


async def _link_white(session: AsyncSession, match: Match) -> str | None:
    row = await session.get(Setting, LINK_WHITE_KEY + str(match.id))
    return row.value if row is not None else None


async def load_context(session: AsyncSession, match: Match) -> MatchContext:
    round_ = await session.get(Round, match.round_id)
    a = await session.get(Player, match.player_a_id)
    b = await session.get(Player, match.player_b_id) if match.player_b_id else None
    if round_ is None or a is None:  # pragma: no cover - foreign keys
        raise LookupError(f"match {match.id} is incomplete")
    return MatchContext(match, round_, a, b)


async def context_by_id(session: AsyncSession, match_id: int) -> MatchContext:
    match = await session.get(Match, match_id)
    if match is None:
        raise InvalidInput(wording.no_such_match(match_id))
    return await load_context(session, match)


async def player_by_discord(session: AsyncSession, discord_id: int) -> Player:
    player = await session.scalar(select(Player).where(Player.discord_id == discord_id))
    if player is None:
        raise NotAllowed(wording.NOT_A_PLAYER)
    return player


async def current_match(session: AsyncSession, player: Player) -> Match:
    """The player's match in their latest published round."""
    match = await session.scalar(
        select(Match)
        .join(Round, Match.round_id == Round.id)
        .where(
            Round.state == RoundState.PUBLISHED,
            or_(Match.player_a_id == player.id, Match.player_b_id == player.id),
        )
        .order_by(Round.starts_at.desc(), Round.id.desc())
        .limit(1)
    )
    if match is None:
        raise WrongStage(wording.NO_CURRENT_MATCH)
    return match


def message_player(
    session: AsyncSession,
    player: Player,
    *,
    thread_id: int | None,
    now: datetime,
    content: str,
    view: tuple[str, dict[str, Any]] | None = None,
) -> None:
    """A DM; closed DMs (or no Discord link) become a mention in the match thread."""
    if player.discord_id is not None:
        enqueue_dm(
            session,
            user_id=player.discord_id,
            now=now,
            content=content,
            view=view,
            fallback_channel_id=thread_id,
        )
    elif thread_id:
        enqueue_channel(
            session,
            channel_id=thread_id,
            now=now,
            content=wording.for_player(player.lichess_username, content),
            view=view,
        )


def announce(session: AsyncSession, config: Config, now: datetime, content: str) -> None:
    """News for everyone, in the announcement channel (when one is set)."""
    channel = config.discord.announcement_channel_id
    if channel:
        enqueue_channel(session, channel_id=channel, now=now, content=content)


def pinged(players: Sequence[Player | None], text: str) -> str:
    """`text` after a ping for each player linked to Discord (none: `text` as it is): an
    announcement that concerns them notifies them (they qualified, are the Challenger,
    won the title)."""
    pings = [f"<@{p.discord_id}>" for p in players if p is not None and p.discord_id]
    return " ".join([*pings, text]) if pings else text


async def place_of(session: AsyncSession, fmt: Format | None, match: Match) -> str:
    """The match as people name it, for any text: "Swiss round 3, board 2", a knock-out's
    "Semifinal 1", a final match's "Final"; never its row id (issue 32)."""
    round_ = await session.get(Round, match.round_id)
    stage = await session.get(Stage, round_.stage_id) if round_ is not None else None
    if round_ is None or stage is None:  # pragma: no cover - foreign keys
        return wording.match_place("", 0, match.board, one_match=False)
    return place_named(fmt, stage.key, stage.kind, stage.name, round_.number, match.board)


def place_named(
    fmt: Format | None, key: str, kind: StageKind, name: str, round_number: int, board: int
) -> str:
    """`place_of` for a match read as its stage row's columns and its round and board (the
    TD's pick lists read them in one query)."""
    if fmt is not None:
        named = stage_kinds.knockout_match_name(fmt, key, board)
        if named is not None:
            return named
    return wording.match_place(
        wording.stage_label(kind, name),
        round_number,
        board,
        one_match=fmt is not None and stage_kinds.is_final_match_of(fmt, key, kind),
    )


async def match_label(session: AsyncSession, fmt: Format | None, match: Match) -> str:
    """ "Swiss round 3, board 2 (a vs b)": the match by its place and its players, as the
    TD's texts name it (and the TD's pick lists find it: `bot.features.choices`)."""
    a = await session.get(Player, match.player_a_id)
    b = await session.get(Player, match.player_b_id) if match.player_b_id else None
    names = (a.lichess_username if a else "?", b.lichess_username if b else "?")
    return wording.match_label(await place_of(session, fmt, match), *names)


def mention(player: Player) -> str:
    """A ping when the player is linked to Discord, else their Lichess name in bold."""
    return f"<@{player.discord_id}>" if player.discord_id else f"**{player.lichess_username}**"


def post_for_match(
    session: AsyncSession,
    players: Sequence[Player],
    *,
    thread_id: int | None,
    now: datetime,
    content: str,
    view: tuple[str, dict[str, Any]] | None = None,
    key: str | None = None,
) -> None:
    """The match's public record, once: a post in its thread whose text mentions `players`
    (a mention in a thread notifies the member, so they get no DM copy). Without a thread,
    each of `players` gets it by DM instead, so nobody who needs it misses it. `key` names
    the thread post for later edits."""
    if thread_id:
        enqueue_channel(session, channel_id=thread_id, now=now, content=content, view=view, key=key)
        return
    for player in players:
        message_player(session, player, thread_id=None, now=now, content=content, view=view)
