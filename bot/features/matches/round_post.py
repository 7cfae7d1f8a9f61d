"""The round's pairings post (rule V.A's "Pairings forum post"): rendered from the database.

Every change a player or the TD sees in it (an agreed time, a result) re-renders the whole
post and queues an edit through the outbox, so the post always shows the committed state.
A round too long for one Discord message (2000 characters: about a dozen boards with their
links) is posted as several; each later edit changes only the messages whose text changed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.outbox import enqueue_edit
from bot.timefmt import discord_time
from db.models import Match, MatchState, Player, Round, Setting, Stage

PROFILE = "https://lichess.org/@/"
MESSAGE_LIMIT = 2000  # Discord's limit on a message's content
PART_OF = " · part {part} of {parts}"
PARTS_KEY = "round_post_parts:"


@dataclass(frozen=True, slots=True)
class Board:
    """What a match's line in the post shows: read as plain columns, so re-rendering a
    round of 250 boards after each /accept does not load 750 ORM objects."""

    board: int
    player_a_id: int
    player_b_id: int | None
    state: MatchState
    score_a: float
    score_b: float
    points_a: float | None
    forfeit_winner_id: int | None
    agreed_time: datetime | None

    @classmethod
    def of(cls, match: Match) -> Board:
        return cls(*(getattr(match, column.key) for column in _BOARD_COLUMNS))


_BOARD_COLUMNS = tuple(getattr(Match, f.name) for f in fields(Board))


def player_link(name: str, seed: int | None) -> str:
    seed_text = f" ({seed})" if seed else ""
    return f"[{name}]({PROFILE}{name}){seed_text}"


def _score(value: float) -> str:
    return f"{value:g}"


def _pairing(match: Board, names: dict[int, str], seeds: dict[int, int]) -> str:
    a, b = match.player_a_id, match.player_b_id or 0
    return (
        f"Board {match.board}: {player_link(names[a], seeds.get(a))} vs "
        f"{player_link(names[b], seeds.get(b))}"
    )


def match_line(match: Board, names: dict[int, str], seeds: dict[int, int]) -> str:
    """The board's line: its players (by id in `names`), then its time or result."""
    if match.player_b_id is None:
        a = match.player_a_id
        return f"Bye: {player_link(names[a], seeds.get(a))} (+{_score(match.points_a or 0)})"
    line = _pairing(match, names, seeds)
    if match.state in (MatchState.FINISHED, MatchState.FORFEITED):
        result = f"{_score(match.score_a)}–{_score(match.score_b)}"
        if match.state is MatchState.FORFEITED:
            winner = names.get(match.forfeit_winner_id or 0)
            result = f"forfeit, won by {winner}" if winner else "forfeit"
        return f"{line} · **{result}**"
    if match.agreed_time is not None:
        return f"{line} · {discord_time(match.agreed_time)}"
    return f"{line} · time not agreed yet"


def _longest_line(match: Board, names: dict[int, str], seeds: dict[int, int], status: int) -> int:
    """The most characters this match's line can take in the round: a time, a result or a
    forfeit (`status`: the longest time or result, see `_longest_status`). Parts are cut by
    these lengths, so a line that grows never pushes a part over Discord's limit, and every
    board stays in the part (and the message) it started in."""
    if match.player_b_id is None:
        return len(match_line(match, names, seeds)) + len("00.5")
    longest_name = max(len(names[match.player_a_id]), len(names[match.player_b_id]))
    forfeit = len(" · **forfeit, won by **") + longest_name
    return len(_pairing(match, names, seeds)) + max(status, forfeit)


def _longest_status(sample: datetime) -> int:
    """The longest time or score a line can end with (a forfeit depends on the names)."""
    return max(
        len(" · time not agreed yet"), len(f" · {discord_time(sample)}"), len(" · **000.5–000.5**")
    )


def _parts(header: str, lines: list[str], longest: list[int]) -> list[list[str]]:
    """The lines cut into Discord messages by their longest lengths (one message if the
    whole post fits: then it reads exactly as it always did)."""
    if len(header) + 1 + sum(n + 1 for n in longest) <= MESSAGE_LIMIT:
        return [lines]
    room = MESSAGE_LIMIT - len(header) - len(PART_OF.format(part=999, parts=999)) - 1
    parts: list[list[str]] = [[]]
    used = 0
    for line, size in zip(lines, longest, strict=True):
        if parts[-1] and used + size + 1 > room:
            parts.append([])
            used = 0
        parts[-1].append(line)
        used += size + 1
    return parts


async def render_round_post_parts(session: AsyncSession, round_id: int) -> list[str]:
    """The pairings post, boards with seeds, profile links, agreed times and results, as
    the messages it takes: a round of 128 boards is far over Discord's 2000 characters."""
    round_ = await session.get(Round, round_id)
    if round_ is None:
        raise LookupError(f"no round {round_id}")
    stage = await session.get(Stage, round_.stage_id)
    seeds = {pid: i + 1 for i, pid in enumerate(stage.seeding if stage else [])}
    matches = [
        Board(*row)
        for row in await session.execute(
            select(*_BOARD_COLUMNS).where(Match.round_id == round_id).order_by(Match.board)
        )
    ]
    ids = {m.player_a_id for m in matches} | {m.player_b_id for m in matches if m.player_b_id}
    rows = await session.execute(
        select(Player.id, Player.lichess_username).where(Player.id.in_(ids))
    )
    players: dict[int, str] = {pid: name for pid, name in rows}
    stage_name = stage.kind.value.capitalize() if stage else ""
    header = f"**{stage_name} round {round_.number}** · ends {discord_time(round_.deadline)}"
    lines = [match_line(m, players, seeds) for m in matches]
    status = _longest_status(round_.deadline)
    longest = [_longest_line(m, players, seeds, status) for m in matches]
    parts = _parts(header, lines, longest)
    if len(parts) == 1:
        return ["\n".join([header, "", *lines])]
    return [
        "\n".join([header + PART_OF.format(part=k, parts=len(parts)), "", *chunk])[:MESSAGE_LIMIT]
        for k, chunk in enumerate(parts, start=1)
    ]


async def render_round_post(session: AsyncSession, round_id: int) -> str:
    """The pairings post's first message (all of it for a round that fits in one)."""
    return (await render_round_post_parts(session, round_id))[0]


def parts_key(round_id: int) -> str:
    """The setting holding the message ids of a long post's second and later parts."""
    return f"{PARTS_KEY}{round_id}"


async def queue_round_post_update(session: AsyncSession, round_id: int, *, now: datetime) -> None:
    """Queue an edit of the pairings post, if it has been posted already: of each of its
    messages whose text changed, when the post takes several."""
    round_ = await session.get(Round, round_id)
    if round_ is None or round_.post_channel_id is None or round_.post_message_id is None:
        return  # the publisher posts the current state when it creates the post
    parts = await render_round_post_parts(session, round_id)
    if len(parts) == 1:
        enqueue_edit(
            session,
            channel_id=round_.post_channel_id,
            message_id=round_.post_message_id,
            now=now,
            content=parts[0],
        )
        return
    stored = await session.get(Setting, parts_key(round_id))
    state = json.loads(stored.value) if stored else {}
    message_ids = [round_.post_message_id, *state.get("messages", [])]
    shown: list[str] = state.get("shown", [])
    fresh = [_digest(text) for text in parts]
    for index, (message_id, text) in enumerate(zip(message_ids, parts, strict=False)):
        if index < len(shown) and shown[index] == fresh[index]:
            continue  # this message already shows it
        enqueue_edit(
            session, channel_id=round_.post_channel_id, message_id=message_id, now=now, content=text
        )
    if stored is not None:
        stored.value = json.dumps({**state, "shown": fresh})
        stored.updated_at = now


def round_post_state(message_ids: list[int], parts: list[str]) -> str:
    """What the publisher stores for a post of several messages: the ids of the second
    and later ones, and a digest of what each message shows (unchanged parts are not
    edited again)."""
    return json.dumps({"messages": message_ids, "shown": [_digest(text) for text in parts]})


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:16]


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
