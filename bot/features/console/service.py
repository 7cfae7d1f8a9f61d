"""The console's use case: the audit log, newest first, filtered by player or by match.

An entry belongs to a player when its subject is the player or one of theirs (their
registration, ownership challenges, matches, the offers and incidents of those matches,
the cheat reports about them), or when its details name them (`winner_id`, `loser_id`,
`at_fault`...). An entry belongs to a match when its subject is the match, one of its
offers or incidents, or when its details name the match (`match_id`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

from sqlalchemy import String, and_, cast, false, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from bot.errors import InvalidInput
from bot.features.console import text as wording
from bot.features.console.snapshot import read_snapshot
from bot.features.console.stage_view import describe
from bot.features.console.types import AuditLine, AuditPage
from bot.features.matches.context import match_label
from bot.service import Service
from db.models import (
    AuditEntry,
    CheatReport,
    Match,
    MatchIncident,
    OwnershipChallenge,
    Player,
    Registration,
    Round,
    Stage,
    TimeOffer,
)

PAGE = 25
# Detail keys that hold a player's id, their Discord id, their Lichess name, a match's id.
PLAYER_KEYS = {"player_id", "winner_id", "loser_id", "against_id", "reporter_id", "chooser_id"}
DISCORD_KEYS = {"discord_id", "other_discord_id", "author_id"}
NAME_KEYS = {"at_fault", "attempted", "registered", "lichess", "names", "accused", "player"}
MATCH_KEYS = {"match_id"}

Subjects = dict[str, set[int]]
Check = Callable[[AuditEntry], bool]


def _walk(details: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) pair in nested details, lists of values flattened."""
    if isinstance(details, dict):
        for key, value in details.items():
            if isinstance(value, list):
                for item in value:
                    yield str(key), item
                    yield from _walk(item)
            else:
                yield str(key), value
                yield from _walk(value)
    elif isinstance(details, list):
        for item in details:
            yield from _walk(item)


def names_player(details: Any, *, player: Player) -> bool:
    """True when the details name this player by id, Discord id or Lichess name."""
    for key, value in _walk(details):
        if isinstance(value, bool):
            continue
        if (key in PLAYER_KEYS or key.endswith("player_id")) and value == player.id:
            return True
        if key in DISCORD_KEYS and player.discord_id is not None and value == player.discord_id:
            return True
        if key in NAME_KEYS and isinstance(value, str) and value.lower() == player.lichess_id:
            return True
    return False


def names_match(details: Any, *, match_id: int) -> bool:
    return any(
        key in MATCH_KEYS and value == match_id and not isinstance(value, bool)
        for key, value in _walk(details)
    )


def _ids(rows: Iterable[Any]) -> set[int]:
    return {int(row) for row in rows}


class ConsoleService(Service):
    """The TD's view of the audit log, and each stage as it ran."""

    async def stages(self) -> list[dict[str, Any]]:
        """Each stage of the format with its rows, rounds, matches, standings and the entry
        rule that moved each player on (`stage_view.describe`, read in one session)."""
        return describe(await read_snapshot(self.sessions), self.config)

    async def audit(
        self, *, player: str | None = None, match_id: int | None = None, limit: int = PAGE
    ) -> AuditPage:
        """The newest `limit` entries about the player and/or the match (both: both apply)."""
        async with self.sessions() as session:
            who = await self._player(session, player) if player is not None else None
            match = await self._match(session, match_id) if match_id is not None else None
            query = select(AuditEntry).order_by(AuditEntry.at.desc(), AuditEntry.id.desc())
            checks: list[Check] = []
            if who is not None:
                subjects = await self._player_subjects(session, who)
                tokens = [str(who.id), who.lichess_id]
                if who.discord_id is not None:
                    tokens.append(str(who.discord_id))
                query = query.where(_prefilter(subjects, tokens))
                checks.append(_belongs(subjects, partial(names_player, player=who)))
            if match is not None:
                subjects = await self._match_subjects(session, match)
                query = query.where(_prefilter(subjects, [str(match.id)]))
                checks.append(_belongs(subjects, partial(names_match, match_id=match.id)))
            if checks:
                found = [
                    entry
                    for entry in (await session.scalars(query)).all()
                    if all(check(entry) for check in checks)
                ]
                total, page = len(found), found[:limit]
            else:
                total = await session.scalar(select(func.count(AuditEntry.id))) or 0
                page = list((await session.scalars(query.limit(limit))).all())
            lines = [await self._line(session, entry) for entry in page]
            label = await match_label(session, self.config.format, match) if match else None
        return AuditPage(scope=_scope(who, label), lines=lines, total=total)

    # --- the filters ---------------------------------------------------------------------------

    async def _player(self, session: AsyncSession, name: str) -> Player:
        typed = name.strip().lstrip("@").lower()
        found = await session.scalar(select(Player).where(Player.lichess_id == typed))
        if found is None:
            raise InvalidInput(wording.unknown_player(name))
        return found

    async def _match(self, session: AsyncSession, match_id: int) -> Match:
        found = await session.get(Match, match_id)
        if found is None:
            raise InvalidInput(wording.unknown_match(match_id))
        return found

    async def _player_subjects(self, session: AsyncSession, player: Player) -> Subjects:
        match_ids = _ids(
            await session.scalars(
                select(Match.id).where(
                    or_(Match.player_a_id == player.id, Match.player_b_id == player.id)
                )
            )
        )
        subjects = await self._match_rows(session, match_ids)
        subjects["player"] = {player.id}
        subjects["registration"] = _ids(
            await session.scalars(
                select(Registration.id).where(Registration.player_id == player.id)
            )
        )
        subjects["cheat_report"] = _ids(
            await session.scalars(
                select(CheatReport.id).where(CheatReport.accused_player_id == player.id)
            )
        )
        challenge = OwnershipChallenge.lichess_id == player.lichess_id
        if player.discord_id is not None:
            challenge = or_(challenge, OwnershipChallenge.discord_id == player.discord_id)
        subjects["ownership_challenge"] = _ids(
            await session.scalars(select(OwnershipChallenge.id).where(challenge))
        )
        return subjects

    async def _match_subjects(self, session: AsyncSession, match: Match) -> Subjects:
        return await self._match_rows(session, {match.id})

    async def _match_rows(self, session: AsyncSession, match_ids: set[int]) -> Subjects:
        incidents = select(MatchIncident.id).where(MatchIncident.match_id.in_(match_ids))
        offers = select(TimeOffer.id).where(TimeOffer.match_id.in_(match_ids))
        return {
            "match": set(match_ids),
            "incident": _ids(await session.scalars(incidents)),
            "time_offer": _ids(await session.scalars(offers)),
        }

    # --- one line ------------------------------------------------------------------------------

    async def _line(self, session: AsyncSession, entry: AuditEntry) -> AuditLine:
        reason = entry.details.get("reason") if isinstance(entry.details, dict) else None
        return AuditLine(
            id=entry.id,
            at=entry.at,
            actor_type=entry.actor_type,
            actor_id=entry.actor_id,
            action=entry.action,
            subject=await self._subject(session, entry.subject_type, entry.subject_id),
            reason=reason if isinstance(reason, str) and reason else None,
        )

    async def _subject(self, session: AsyncSession, kind: str, ident: int | None) -> str:
        """A readable subject: the row's number and the names that make it recognisable."""
        if ident is None:
            return wording.subject(kind, None)
        names: list[str] = []
        if kind == "player":
            player = await session.get(Player, ident)
            names = [player.lichess_username] if player else []
        elif kind == "match":
            names = await self._match_names(session, ident)
        elif kind == "incident":
            incident = await session.get(MatchIncident, ident)
            names = await self._match_names(session, incident.match_id) if incident else []
        elif kind == "time_offer":
            offer = await session.get(TimeOffer, ident)
            names = await self._match_names(session, offer.match_id) if offer else []
        elif kind == "registration":
            registration = await session.get(Registration, ident)
            if registration is not None:
                player = await session.get(Player, registration.player_id)
                names = [player.lichess_username] if player else []
        elif kind == "round":
            round_ = await session.get(Round, ident)
            stage = await session.get(Stage, round_.stage_id) if round_ else None
            names = (
                [wording.round_name(stage.kind.value, round_.number)] if round_ and stage else []
            )
        elif kind == "stage":
            stage = await session.get(Stage, ident)
            names = [stage.kind.value] if stage else []
        return wording.subject(kind, ident, names)

    async def _match_names(self, session: AsyncSession, match_id: int) -> list[str]:
        match = await session.get(Match, match_id)
        if match is None:
            return []
        if match.player_b_id is None:  # a bye: no pairing to name
            a = await session.get(Player, match.player_a_id)
            return [wording.pairing(a.lichess_username if a else "?", None)]
        return [await match_label(session, self.config.format, match)]


def _prefilter(subjects: Subjects, tokens: list[str]) -> ColumnElement[bool]:
    """In SQL: on one of the subjects, or details whose text holds one of the tokens (the
    exact test on the details is `_belongs`, in Python)."""
    clauses: list[ColumnElement[bool]] = [
        and_(AuditEntry.subject_type == kind, AuditEntry.subject_id.in_(ids))
        for kind, ids in subjects.items()
        if ids
    ]
    text = cast(AuditEntry.details, String)
    clauses += [text.like(f"%{token}%") for token in tokens]
    return or_(false(), *clauses)


def _belongs(subjects: Subjects, named: Callable[[Any], bool]) -> Check:
    """The exact test: on one of the subjects, or details that name the player or match."""

    def check(entry: AuditEntry) -> bool:
        ids = subjects.get(entry.subject_type, set())
        return (entry.subject_id is not None and entry.subject_id in ids) or named(entry.details)

    return check


def _scope(player: Player | None, match: str | None) -> str | None:
    """`match`: its place and players (`match_label`)."""
    if player is not None and match is not None:
        return wording.player_in_match(player.lichess_username, match)
    if player is not None:
        return player.lichess_username
    if match is not None:
        return wording.match_name(match)
    return None
