"""The round's pairings post (rule V.A's "Pairings forum post"): rendered from the database.

Every change a player or the TD sees in it (an agreed time, a result) re-renders the whole
post and queues an edit through the outbox, so the post always shows the committed state.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.outbox import enqueue_edit
from bot.timefmt import discord_time
from db.models import Match, MatchState, Player, Round, Stage

PROFILE = "https://lichess.org/@/"


def player_link(player: Player, seed: int | None) -> str:
    seed_text = f" ({seed})" if seed else ""
    return f"[{player.lichess_username}]({PROFILE}{player.lichess_username}){seed_text}"


def _score(value: float) -> str:
    return f"{value:g}"


def match_line(match: Match, players: dict[int, Player], seeds: dict[int, int]) -> str:
    a = players[match.player_a_id]
    if match.player_b_id is None:
        points = _score(match.points_a or 0)
        return f"Bye: {player_link(a, seeds.get(a.id))} (+{points})"
    b = players[match.player_b_id]
    line = (
        f"Board {match.board}: {player_link(a, seeds.get(a.id))} vs "
        f"{player_link(b, seeds.get(b.id))}"
    )
    if match.state in (MatchState.FINISHED, MatchState.FORFEITED):
        result = f"{_score(match.score_a)}–{_score(match.score_b)}"
        if match.state is MatchState.FORFEITED:
            winner = players.get(match.forfeit_winner_id or 0)
            result = f"forfeit, won by {winner.lichess_username}" if winner else "forfeit"
        return f"{line} · **{result}**"
    if match.agreed_time is not None:
        return f"{line} · {discord_time(match.agreed_time)}"
    return f"{line} · time not agreed yet"


async def render_round_post(session: AsyncSession, round_id: int) -> str:
    """The pairings post text: boards with seeds, profile links, agreed times and results."""
    round_ = await session.get(Round, round_id)
    if round_ is None:
        raise LookupError(f"no round {round_id}")
    stage = await session.get(Stage, round_.stage_id)
    seeds = {pid: i + 1 for i, pid in enumerate(stage.seeding if stage else [])}
    matches = (
        await session.scalars(select(Match).where(Match.round_id == round_id).order_by(Match.board))
    ).all()
    ids = {m.player_a_id for m in matches} | {m.player_b_id for m in matches if m.player_b_id}
    players = {
        p.id: p for p in (await session.scalars(select(Player).where(Player.id.in_(ids)))).all()
    }
    stage_name = stage.kind.value.capitalize() if stage else ""
    lines = [
        f"**{stage_name} round {round_.number}** · ends {discord_time(round_.deadline)}",
        "",
        *(match_line(m, players, seeds) for m in matches),
    ]
    return "\n".join(lines)[:4000]


async def queue_round_post_update(session: AsyncSession, round_id: int, *, now: datetime) -> None:
    """Queue an edit of the pairings post, if it has been posted already."""
    round_ = await session.get(Round, round_id)
    if round_ is None or round_.post_channel_id is None or round_.post_message_id is None:
        return  # the publisher posts the current state when it creates the post
    content = await render_round_post(session, round_id)
    enqueue_edit(
        session,
        channel_id=round_.post_channel_id,
        message_id=round_.post_message_id,
        now=now,
        content=content,
    )


def mention(player: Player) -> str:
    """A ping when the player is linked to Discord, else their Lichess name."""
    return f"<@{player.discord_id}>" if player.discord_id else f"**{player.lichess_username}**"


def match_opening(match: Match, a: Player, b: Player, round_: Round, offers_due: datetime) -> str:
    """The match's message in the round thread: who plays whom and what to do next."""
    return (
        f"**Board {match.board}** (match #{match.id}): {mention(a)} vs {mention(b)}\n"
        f"Agree on a start time with `/offer` (times in UTC, e.g. `wed 18:00`) and `/accept`. "
        f"Each of you owes 3 offers by {discord_time(offers_due)} unless one is accepted "
        f"first (rule V.C); the match must be played by {discord_time(round_.deadline)}."
    )
