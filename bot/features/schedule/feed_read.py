"""What the calendar feeds read: every published match with an agreed time (of the whole
championship, or of one player), named by its place and players, with its result and a
version that only ever grows.

The version comes from the audit log, so it is the same after a restart and needs no column
of its own: SEQUENCE is the number of changes a reader of the event can see since the first
agreement (each later `match_time_set`, each game recorded, the game link opened, each
decision on the result and each undoing of one); a match decided without an audit row of its
own (a forfeit when a round closes or a player leaves) counts one for being decided.
LAST-MODIFIED is when the last of these happened (or when the match ended).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import stage_kinds
from bot.config import Config
from bot.features.matches.text import match_place, stage_label
from bot.features.schedule.reads import MATCH_SUBJECT, TIME_SET, counted_games, names
from bot.features.schedule.types import DECIDED
from db.models import (
    AuditEntry,
    Match,
    MatchState,
    Player,
    Registration,
    RegistrationState,
    Round,
    RoundState,
    Stage,
)

#: Audit rows after which an event says something new besides its time.
SEEN_CHANGES = ("game_recorded", "challenge_created")
#: Audit rows that decide a match's result or undo a decision (results, discipline, the TD).
RESULT_CHANGES = (
    "match_finished",
    "match_reopened",
    "score_set",
    "match_forfeited",
    "match_ruled_draw",
    "match_adjudicated",
    "match_disregarded",
    "forfeit_overruled",
)
VERSIONED = (TIME_SET, *SEEN_CHANGES, *RESULT_CHANGES)


@dataclass(frozen=True)
class FeedMatch:
    """One match of a feed: its place ("Swiss round 3, board 2", "Final"), its two players
    by Lichess name, and what the event shows."""

    match_id: int
    place: str
    player_a: str
    player_b: str
    start: datetime
    state: MatchState
    score_a: float
    score_b: float
    points_a: float | None
    points_b: float | None
    forfeit_winner: str | None  # a forfeit's winner; None: none (or not a forfeit)
    challenge_url: str | None
    sequence: int  # the event's version: see the module's docstring
    modified: datetime  # when what the event says last changed
    game_links: list[str] = field(default_factory=list)

    @property
    def decided(self) -> bool:
        return self.state in DECIDED


@dataclass(frozen=True)
class _Version:
    sequence: int
    modified: datetime | None


async def player_named(session: AsyncSession, name: str) -> Player | None:
    """The player of a feed's address, by Lichess name in any case, if the championship has
    made them public: an approved entry, or a match in a published round (a pending or
    refused registration is the TD's business, so its name gets no feed)."""
    key = name.strip().lower()
    player = await session.scalar(
        select(Player).where(
            or_(Player.lichess_id == key, func.lower(Player.lichess_username) == key)
        )
    )
    if player is None:
        return None
    approved = await session.scalar(
        select(Registration.id).where(
            Registration.player_id == player.id, Registration.state == RegistrationState.APPROVED
        )
    )
    if approved is not None:
        return player
    played = await session.scalar(
        select(Match.id)
        .join(Round, Match.round_id == Round.id)
        .where(
            Round.state != RoundState.DRAFT,
            or_(Match.player_a_id == player.id, Match.player_b_id == player.id),
        )
        .limit(1)
    )
    return player if played is not None else None


async def _versions(session: AsyncSession, matches: Sequence[Match]) -> dict[int, _Version]:
    rows = await session.execute(
        select(
            AuditEntry.subject_id,
            AuditEntry.action,
            func.count(AuditEntry.id),
            func.max(AuditEntry.at),
        )
        .where(
            AuditEntry.subject_type == MATCH_SUBJECT,
            AuditEntry.action.in_(VERSIONED),
            AuditEntry.subject_id.in_([m.id for m in matches]),
        )
        .group_by(AuditEntry.subject_id, AuditEntry.action)
    )
    counts: dict[int, dict[str, int]] = defaultdict(dict)
    latest: dict[int, list[datetime]] = defaultdict(list)
    for subject, action, count, at in rows:
        if subject is None:  # pragma: no cover - the query asks for match rows
            continue
        counts[subject][action] = count
        latest[subject].append(at)
    versions: dict[int, _Version] = {}
    for match in matches:
        seen = counts.get(match.id, {})
        results = sum(seen.get(a, 0) for a in RESULT_CHANGES)
        unrecorded_end = 1 if match.state in DECIDED and results == 0 else 0
        sequence = (
            max(0, seen.get(TIME_SET, 0) - 1)
            + sum(seen.get(a, 0) for a in SEEN_CHANGES)
            + results
            + unrecorded_end
        )
        times = [*latest.get(match.id, [])]
        if match.state in DECIDED and match.finished_at is not None:
            times.append(match.finished_at)
        versions[match.id] = _Version(sequence, max(times) if times else None)
    return versions


async def feed_matches(
    session: AsyncSession, config: Config, *, player: Player | None = None
) -> list[FeedMatch]:
    """Every match of a published round that has an agreed time and two players, earliest
    first; only `player`'s when given. A match without an agreed time has no event (its
    round deadline is on the pages and in /schedule: an all-day placeholder for every
    unscheduled match would fill a subscriber's calendar with guesses)."""
    query = (
        select(Match, Round, Stage)
        .join(Round, Match.round_id == Round.id)
        .join(Stage, Round.stage_id == Stage.id)
        .where(
            Round.state != RoundState.DRAFT,
            Match.agreed_time.is_not(None),
            Match.player_b_id.is_not(None),
            Match.state != MatchState.BYE,
        )
        .order_by(Match.agreed_time, Match.id)
    )
    if player is not None:
        query = query.where(or_(Match.player_a_id == player.id, Match.player_b_id == player.id))
    found = (await session.execute(query)).all()
    if not found:
        return []
    matches = [match for match, _, _ in found]
    ids = [m.id for m in matches]
    people = {p for m in matches for p in (m.player_a_id, m.player_b_id) if p is not None}
    named = await names(session, people)
    games = await counted_games(session, ids)
    versions = await _versions(session, matches)
    feed: list[FeedMatch] = []
    for match, round_, stage in found:
        assert match.agreed_time is not None and match.player_b_id is not None
        place = match_place(
            stage_label(stage.kind, stage.name),
            round_.number,
            match.board,
            one_match=stage_kinds.is_final_match(config.format, stage),
        )
        forfeit_winner = None
        if match.state is MatchState.FORFEITED and match.forfeit_winner_id is not None:
            forfeit_winner = named.get(match.forfeit_winner_id)
        version = versions[match.id]
        feed.append(
            FeedMatch(
                match_id=match.id,
                place=place,
                player_a=named.get(match.player_a_id, "?"),
                player_b=named.get(match.player_b_id, "?"),
                start=match.agreed_time,
                state=match.state,
                score_a=match.score_a,
                score_b=match.score_b,
                points_a=match.points_a,
                points_b=match.points_b,
                forfeit_winner=forfeit_winner,
                challenge_url=match.challenge_url,
                game_links=games.get(match.id, []),
                sequence=version.sequence,
                modified=version.modified or round_.published_at or round_.starts_at,
            )
        )
    return feed
