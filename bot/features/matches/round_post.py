"""The round's pairings post (rule V.A's "Pairings forum post"): rendered from the database.

Every change a player or the TD sees in it (an agreed time, a result) re-renders the whole
post and queues an edit through the outbox, so the post always shows the committed state.
A round too long for one Discord message (2000 characters: about a dozen boards with their
links) is posted as several; each later edit changes only the messages whose text changed.
Where the post is cut never moves (each line is measured at the longest it can grow), and
the publisher stores the first board of each message: a change to one board (an /accept, a
result) re-renders only the message that lists it, a dozen boards instead of the round.
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_right
from dataclasses import dataclass, fields
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from bot.discord_limits import MESSAGE_CONTENT, THREAD_NAME
from bot.features.matches import text as wording
from bot.features.matches.context import mention
from bot.features.matches.text import own_pace_header, round_post_header
from bot.outbox import enqueue_edit
from bot.stage_kinds import at_own_pace
from bot.timefmt import discord_time
from db.models import Match, MatchState, Player, Round, Setting, Stage

PROFILE = "https://lichess.org/@/"
MESSAGE_LIMIT = MESSAGE_CONTENT
THREAD_NAME_LIMIT = THREAD_NAME
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


def _pairing(match: Board, names: dict[int, str], seeds: dict[int, int], board: bool) -> str:
    a, b = match.player_a_id, match.player_b_id or 0
    pairing = f"{player_link(names[a], seeds.get(a))} vs {player_link(names[b], seeds.get(b))}"
    return f"Board {match.board}: {pairing}" if board else pairing


def match_line(
    match: Board, names: dict[int, str], seeds: dict[int, int], *, board: bool = True
) -> str:
    """The board's line: its players (by id in `names`), then its time or result; a final
    match's line (`board` False) has no board number."""
    if match.player_b_id is None:
        a = match.player_a_id
        return f"Bye: {player_link(names[a], seeds.get(a))} (+{_score(match.points_a or 0)})"
    line = _pairing(match, names, seeds, board)
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
    return len(_pairing(match, names, seeds, True)) + max(status, forfeit)


def _longest_status(sample: datetime) -> int:
    """The longest time or score a line can end with (a forfeit depends on the names)."""
    return max(
        len(" · time not agreed yet"), len(f" · {discord_time(sample)}"), len(" · **000.5–000.5**")
    )


def _cut(header: str, longest: list[int]) -> list[int]:
    """Where the post's messages begin (indices into the round's boards), cut by the
    lines' longest lengths: one message if the whole post fits (then it reads exactly as it
    always did)."""
    if len(header) + 1 + sum(n + 1 for n in longest) <= MESSAGE_LIMIT:
        return [0]
    room = MESSAGE_LIMIT - len(header) - len(PART_OF.format(part=999, parts=999)) - 1
    starts, used = [0], 0
    for index, size in enumerate(longest):
        if index > starts[-1] and used + size + 1 > room:
            starts.append(index)
            used = 0
        used += size + 1
    return starts


def _part_text(header: str, lines: list[str], part: int, parts: int) -> str:
    """One message of a post of `parts` messages (`part` counts from 1)."""
    if parts == 1:
        return "\n".join([header, "", *lines])
    return "\n".join([header + PART_OF.format(part=part, parts=parts), "", *lines])[:MESSAGE_LIMIT]


@dataclass(frozen=True)
class PostLayout:
    """The post's messages and the first board of each: a later edit of one board
    re-renders only its message (the cut never moves, see `_longest_line`)."""

    parts: list[str]
    first_boards: list[int]


@dataclass(frozen=True)
class _PostInputs:
    """What the post's lines are rendered from."""

    header: str
    deadline: datetime
    matches: list[Board]
    names: dict[int, str]
    seeds: dict[int, int]
    boards: bool = True  # False: a final match's post (no board, no seeds)

    def lines(self) -> list[str]:
        return [match_line(m, self.names, self.seeds, board=self.boards) for m in self.matches]


async def _post_inputs(
    session: AsyncSession, round_id: int, boards: tuple[int, int | None] | None = None
) -> _PostInputs:
    """The header and the boards (all, or from the first of `boards` to before the second)
    with their players' names and seeds."""
    round_ = await session.get(Round, round_id)
    if round_ is None:
        raise LookupError(f"no round {round_id}")
    stage = await session.get(Stage, round_.stage_id)
    a, b = aliased(Player), aliased(Player)
    query = (
        select(*_BOARD_COLUMNS, a.lichess_username, b.lichess_username)
        .join(a, a.id == Match.player_a_id)
        .outerjoin(b, b.id == Match.player_b_id)
        .where(Match.round_id == round_id)
    )
    if boards is not None:
        query = query.where(Match.board >= boards[0])
        if boards[1] is not None:
            query = query.where(Match.board < boards[1])
    matches: list[Board] = []
    names: dict[int, str] = {}
    width = len(_BOARD_COLUMNS)
    for row in await session.execute(query.order_by(Match.board)):
        match = Board(*row[:width])
        matches.append(match)
        names[match.player_a_id] = row[width]
        if match.player_b_id is not None:
            names[match.player_b_id] = row[width + 1]
    stage_name = wording.stage_label(stage.kind, stage.name) if stage else ""
    if stage is not None and at_own_pace(stage):
        header = own_pace_header(stage_name, round_.number)
        return _PostInputs(header, round_.deadline, matches, names, {}, boards=False)
    seeding = stage.seeding if stage else []
    seeds = {pid: i + 1 for i, pid in enumerate(seeding) if pid in names}
    header = round_post_header(stage_name, round_.number, discord_time(round_.deadline))
    return _PostInputs(header, round_.deadline, matches, names, seeds)


async def render_round_post_layout(session: AsyncSession, round_id: int) -> PostLayout:
    """The pairings post, boards with seeds, profile links, agreed times and results, as
    the messages it takes: a round of 128 boards is far over Discord's 2000 characters."""
    found = await _post_inputs(session, round_id)
    lines = found.lines()
    status = _longest_status(found.deadline)
    starts = _cut(
        found.header, [_longest_line(m, found.names, found.seeds, status) for m in found.matches]
    )
    ends = [*starts[1:], len(lines)]
    parts = [
        _part_text(found.header, lines[start:end], k, len(starts))
        for k, (start, end) in enumerate(zip(starts, ends, strict=True), start=1)
    ]
    firsts = [found.matches[start].board if found.matches else 1 for start in starts]
    return PostLayout(parts, firsts)


async def render_round_post_parts(session: AsyncSession, round_id: int) -> list[str]:
    """The post's messages (see `render_round_post_layout`)."""
    return (await render_round_post_layout(session, round_id)).parts


async def render_round_post(session: AsyncSession, round_id: int) -> str:
    """The pairings post's first message (all of it for a round that fits in one)."""
    return (await render_round_post_parts(session, round_id))[0]


def parts_key(round_id: int) -> str:
    """The setting holding the message ids of a long post's second and later parts."""
    return f"{PARTS_KEY}{round_id}"


async def queue_round_post_update(
    session: AsyncSession, round_id: int, *, now: datetime, board: int | None = None
) -> None:
    """Queue an edit of the pairings post, if it has been posted already: of each of its
    messages whose text changed, when the post takes several. `board`, when only that
    board's line changed, re-renders just the message listing it (an /accept in a round of
    250 boards reads a dozen boards, not all of them)."""
    round_ = await session.get(Round, round_id)
    if round_ is None or round_.post_channel_id is None or round_.post_message_id is None:
        return  # the publisher posts the current state when it creates the post
    stored = await session.get(Setting, parts_key(round_id))
    state = json.loads(stored.value) if stored else {}
    message_ids = [round_.post_message_id, *state.get("messages", [])]
    shown: list[str] = list(state.get("shown", []))
    firsts: list[int] = state.get("first_boards") or []
    if board is not None and len(firsts) == len(message_ids) == len(shown) > 1:
        index = max(bisect_right(firsts, board) - 1, 0)
        upto = firsts[index + 1] if index + 1 < len(firsts) else None
        found = await _post_inputs(session, round_id, (firsts[index], upto))
        texts = {index: _part_text(found.header, found.lines(), index + 1, len(firsts))}
    else:
        layout = await render_round_post_layout(session, round_id)
        if len(layout.parts) == 1:
            enqueue_edit(
                session,
                channel_id=round_.post_channel_id,
                message_id=round_.post_message_id,
                now=now,
                content=layout.parts[0],
            )
            return
        texts, firsts = dict(enumerate(layout.parts)), layout.first_boards
        shown = shown[: len(texts)] + [""] * (len(texts) - len(shown))
    for index, text in texts.items():
        fresh = _digest(text)
        if index >= len(message_ids) or shown[index] == fresh:
            continue  # this message already shows it
        enqueue_edit(
            session,
            channel_id=round_.post_channel_id,
            message_id=message_ids[index],
            now=now,
            content=text,
        )
        shown[index] = fresh
    if stored is not None:
        stored.value = json.dumps({**state, "shown": shown, "first_boards": firsts})
        stored.updated_at = now


def round_post_state(message_ids: list[int], layout: PostLayout) -> str:
    """What the publisher stores for a post of several messages: the ids of the second
    and later ones, a digest of what each message shows (unchanged parts are not edited
    again) and the first board of each."""
    return json.dumps(
        {
            "messages": message_ids,
            "shown": [_digest(text) for text in layout.parts],
            "first_boards": layout.first_boards,
        }
    )


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:16]


def board_opening(match: Match, a: Player, b: Player) -> str:
    """The first line of a match's thread (or of its board in the round's thread): it pings
    both players."""
    return wording.board_opening(match.board, mention(a), mention(b))


def match_thread_name(
    short_name: str, stage: str, round_number: int, match: Match, a: str, b: str
) -> str:
    """A match thread's name within Discord's 100 characters (the short name and Lichess
    usernames are bounded well under it)."""
    return wording.match_thread_name(short_name, stage, round_number, match.board, a, b)[
        :THREAD_NAME_LIMIT
    ]


def bye_opening(a: Player, points: float) -> str:
    return wording.bye_opening(mention(a), points)


def round_instructions(round_: Round, offers: tuple[int, datetime] | None) -> str:
    """What every player of the round does next, said once above their boards (rule V.C's
    offers owed and their deadline; None in the Final, rule IV.C)."""
    return wording.round_instructions(round_.deadline, offers)
