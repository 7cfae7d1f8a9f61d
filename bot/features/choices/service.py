"""The pick lists behind the TD's autocomplete: one short read-only session each.

Every list holds at most 25 `(name, value)` pairs (Discord's limit) and keeps the entries
whose name contains what the TD typed (case-insensitive). A match is named by its place and
players ("Swiss round 3, board 2: a vs b"), so "round 3", "Semifinal" or a player's name
finds it; its row id is no part of any name (issue 32). Registrations and cheat reports keep
their numbers (the TD's texts name them so), and a number typed as digits puts that row first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from sqlalchemy import case, select
from sqlalchemy.orm import aliased

from bot.discord_limits import AUTOCOMPLETE_CHOICES
from bot.features.choices import text as wording
from bot.features.matches.context import place_named
from bot.service import Service
from db.models import (
    CheatReport,
    Game,
    Match,
    MatchIncident,
    MatchState,
    Player,
    Registration,
    RegistrationState,
    ReportState,
    Round,
    Stage,
)

LIMIT = AUTOCOMPLETE_CHOICES
V = TypeVar("V", int, str)


def pick(rows: Iterable[tuple[str, V]], typed: str, *, ids: bool = False) -> list[tuple[str, V]]:
    """The first `LIMIT` rows whose name contains `typed`; with `ids`, the row whose value is
    the number typed comes first even when its name does not contain it."""
    needle = typed.strip().lower()
    digits = needle.lstrip("#")
    wanted = int(digits) if ids and digits.isdigit() else None
    exact: list[tuple[str, V]] = []
    found: list[tuple[str, V]] = []
    for name, value in rows:
        if wanted is not None and value == wanted:
            exact.append((wording.clip(name), value))
        elif needle in name.lower():
            found.append((wording.clip(name), value))
        if len(exact) + len(found) >= LIMIT and (wanted is None or exact):
            break
    return (exact + found)[:LIMIT]


class ChoicesService(Service):
    """The TD's pick lists; no commands, no events, no timers."""

    async def matches(self, current: str) -> list[tuple[str, int]]:
        """Every match but byes, newest round first, then by board."""
        a, b = aliased(Player), aliased(Player)
        query = (
            select(
                Match.id,
                Match.board,
                Match.state,
                Round.number,
                Stage.kind,
                Stage.key,
                Stage.name,
                a.lichess_username,
                b.lichess_username,
            )
            .join(Round, Match.round_id == Round.id)
            .join(Stage, Round.stage_id == Stage.id)
            .join(a, Match.player_a_id == a.id)
            .join(b, Match.player_b_id == b.id)
            .where(Match.state != MatchState.BYE)
            .order_by(Round.starts_at.desc(), Round.id.desc(), Match.board, Match.id)
        )
        async with self.sessions() as session:
            rows = (await session.execute(query)).all()
        fmt = self.config.format
        return pick(
            (
                (
                    wording.match_name(
                        place_named(fmt, key, kind, stage_name, number, board),
                        name_a,
                        name_b,
                        state,
                    ),
                    ident,
                )
                for ident, board, state, number, kind, key, stage_name, name_a, name_b in rows
            ),
            current,
        )

    async def players(self, current: str) -> list[tuple[str, str]]:
        """Every player, by Lichess name; the value is the Lichess username."""
        query = (
            select(Player, Registration.state)
            .outerjoin(Registration, Registration.player_id == Player.id)
            .order_by(Player.lichess_id)
        )
        async with self.sessions() as session:
            rows = (await session.execute(query)).all()
        return pick(
            (
                (
                    wording.player_name(
                        player.lichess_username,
                        wording.player_status(
                            disqualified=player.disqualified_at is not None,
                            withdrawn=player.withdrawn_at is not None,
                            registration=state,
                            seeded=player.pre_seeded_stage,
                        ),
                    ),
                    player.lichess_username,
                )
                for player, state in rows
            ),
            current,
        )

    async def registrations(self, current: str) -> list[tuple[str, int]]:
        """Pending registrations first (the ones to decide), then the others, by number."""
        pending_first = case((Registration.state == RegistrationState.PENDING, 0), else_=1)
        query = (
            select(
                Registration.id,
                Registration.state,
                Registration.seeding_rating,
                Player.lichess_username,
            )
            .join(Player, Registration.player_id == Player.id)
            .order_by(pending_first, Registration.id)
        )
        async with self.sessions() as session:
            rows = (await session.execute(query)).all()
        return pick(
            (
                (wording.registration_name(ident, name, state.value, seed), ident)
                for ident, state, seed, name in rows
            ),
            current,
            ids=True,
        )

    async def reports(self, current: str) -> list[tuple[str, int]]:
        """Open and investigated reports first, newest first; never who reported (VII.A)."""
        active_first = case(
            (CheatReport.state.in_([ReportState.OPEN, ReportState.INVESTIGATING]), 0), else_=1
        )
        query = (
            select(CheatReport.id, CheatReport.state, Player.lichess_username)
            .join(Player, CheatReport.accused_player_id == Player.id)
            .order_by(active_first, CheatReport.id.desc())
        )
        async with self.sessions() as session:
            rows = (await session.execute(query)).all()
        return pick(
            (
                (wording.report_name(ident, accused, state.value), ident)
                for ident, state, accused in rows
            ),
            current,
            ids=True,
        )

    async def games(self, current: str) -> list[tuple[str, str]]:
        """Every recorded game, newest first; the value is the Lichess game id."""
        white, black = aliased(Player), aliased(Player)
        query = (
            select(
                Game.lichess_id,
                Game.number,
                Game.counted,
                white.lichess_username,
                black.lichess_username,
                Match.board,
                Round.number,
                Stage.kind,
                Stage.key,
                Stage.name,
            )
            .join(white, Game.white_player_id == white.id)
            .join(black, Game.black_player_id == black.id)
            .join(Match, Game.match_id == Match.id)
            .join(Round, Match.round_id == Round.id)
            .join(Stage, Round.stage_id == Stage.id)
            .order_by(Game.created_at.desc(), Game.id.desc())
        )
        async with self.sessions() as session:
            rows = (await session.execute(query)).all()
        fmt = self.config.format
        return pick(
            (
                (
                    wording.game_name(
                        lichess_id,
                        w,
                        bl,
                        number,
                        place_named(fmt, key, kind, stage_name, round_number, board),
                        counted=counted,
                    ),
                    lichess_id,
                )
                for (
                    lichess_id,
                    number,
                    counted,
                    w,
                    bl,
                    board,
                    round_number,
                    kind,
                    key,
                    stage_name,
                ) in rows
            ),
            current,
        )

    async def incidents(self, current: str) -> list[tuple[str, int]]:
        """Every incident, newest first, named by its kind, who reported it against whom and
        its match's place (`incident_name`: the TD's texts quote it)."""
        reporter, against = aliased(Player), aliased(Player)
        query = (
            select(
                MatchIncident.id,
                MatchIncident.kind,
                MatchIncident.state,
                reporter.lichess_username,
                against.lichess_username,
                Match.board,
                Round.number,
                Stage.kind,
                Stage.key,
                Stage.name,
            )
            .join(Match, MatchIncident.match_id == Match.id)
            .join(Round, Match.round_id == Round.id)
            .join(Stage, Round.stage_id == Stage.id)
            .join(reporter, MatchIncident.reporter_id == reporter.id)
            .outerjoin(against, MatchIncident.against_id == against.id)
            .order_by(MatchIncident.id.desc())
        )
        async with self.sessions() as session:
            rows = (await session.execute(query)).all()
        fmt = self.config.format
        return pick(
            (
                (
                    wording.incident_name(
                        kind,
                        by,
                        on,
                        place_named(fmt, key, stage_kind, stage_name, round_number, board),
                        state.value,
                    ),
                    ident,
                )
                for (
                    ident,
                    kind,
                    state,
                    by,
                    on,
                    board,
                    round_number,
                    stage_kind,
                    key,
                    stage_name,
                ) in rows
            ),
            current,
        )
