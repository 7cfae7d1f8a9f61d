"""Standings and pairings read from the database, and the standings posted after each round.

Every table is built by `builders.py` from what is stored (the stage's seeding, its rounds,
matches and games) and the pure rules; nothing here decides a result. The post after a round
is written in the transaction that closed it (`RoundComplete`), its picture attached (drawn
when sent); a knock-out's round posts its bracket instead, and a final match's end its
scoreboard and then the bracket.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import events
from bot.errors import InvalidInput, WrongStage
from bot.events import RoundComplete, StageFinished
from bot.features.discipline.common import robin_match_result
from bot.features.matches.text import STAGE_LABELS
from bot.features.tables import text as wording
from bot.features.tables.bracket_picture import BRACKET_FILE, bracket_png
from bot.features.tables.bracket_reading import read_bracket
from bot.features.tables.builders import (
    ARMAGEDDON,
    candidates_table,
    deciding_games,
    final_blocks,
    final_table,
    final_time_controls,
    knockout_table,
)
from bot.features.tables.kinds import (
    advancing,
    bracket_shows_whole,
    match_names,
    pairings_label,
    posts_scoreboard,
    table_kind,
    title_name,
)
from bot.features.tables.pictures import StandingsPictures
from bot.features.tables.posts import post_bracket, post_table
from bot.features.tables.reading import match_winner, swiss_table_once
from bot.features.tables.render import PICTURE_FILE
from bot.features.tables.stored import (
    counted_games,
    players_by_id,
    published_rounds,
    round_matches,
)
from bot.features.tables.text import bracket_text
from bot.features.tables.types import Answer, BoardLine, Bracket, FinalGame, RoundPairings, Table
from bot.format.swiss import swiss_stage
from bot.rules import final, final_schemes
from bot.service import Service, Subscription
from db.models import (
    Match,
    MatchState,
    Player,
    Round,
    RoundState,
    Stage,
    StageKind,
    StageState,
)

log = logging.getLogger(__name__)

__all__ = ["TablesService"]

DONE_STATES = (MatchState.FINISHED, MatchState.FORFEITED, MatchState.BYE)


# What can change the current table: after a transaction that published one of these, the
# standings picture is drawn again.
TABLE_EVENTS = (
    events.MatchFinished,
    events.PlayerForfeited,
    events.PlayerLeft,
    events.RoundComplete,
    events.RoundPublished,
    events.StageFinished,
)


class TablesService(Service):
    """/standings and /pairings, and the standings posted when a round closes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pictures = StandingsPictures(self.standings)

    # --- use cases ------------------------------------------------------------------------

    async def standings(self, stage: str | None = None) -> Table:
        """The table of `stage` (a stage or pool key, or a 2019 kind), or of the current row
        (the latest running one, else the last finished)."""
        async with self.sessions() as session:
            found = await self._stage(session, stage)
            return await self._table(session, found)

    async def standings_tables(self, stage: str | None = None) -> list[Table]:
        """Every table of `stage`: one per pool of a round robin. The default is every
        running row (both pools, both finals), else the rows of the last finished stage."""
        async with self.sessions() as session:
            rows = await self._stage_rows(session, stage)
            return [await self._table(session, row) for row in rows]

    async def standings_answer(self, stage: str | None = None) -> tuple[str, bytes]:
        """/standings: the table's text and its PNG (drawn once per table, see pictures)."""
        return await self.pictures.answer(await self.standings(stage))

    async def standings_answers(self, stage: str | None = None) -> list[Answer]:
        """/standings: each table's text and PNG, one per pool or running final; first the
        bracket a knock-out or a final match is drawn in, which stands in for a knock-out's
        table (it shows every cell of it, and where the players go)."""
        async with self.sessions() as session:
            rows = await self._stage_rows(session, stage)
            brackets, tables = [], []
            for row in rows:
                bracket = await self._bracket(session, row)
                if bracket is not None and bracket not in brackets:
                    brackets.append(bracket)
                if bracket is None or not bracket_shows_whole(self.config.format, row):
                    tables.append(await self._table(session, row))
        answers = [
            Answer(bracket_text(b), await asyncio.to_thread(bracket_png, b), BRACKET_FILE)
            for b in brackets
        ]
        for table in tables:
            text, png = await self.pictures.answer(table)
            answers.append(Answer(text, png, PICTURE_FILE))
        return answers

    async def pairings(
        self, round_number: int | None = None, stage: str | None = None
    ) -> RoundPairings:
        """A round's boards (default: the latest published round of the current stage)."""
        async with self.sessions() as session:
            found = await self._stage(session, stage)
            rounds = await published_rounds(session, found)
            if not rounds:
                raise WrongStage(wording.no_rounds(found.key, found.name))
            if round_number is None:
                round_ = rounds[-1]
            else:
                by_number = {r.number: r for r in rounds}
                if round_number not in by_number:
                    raise InvalidInput(
                        wording.no_such_round(
                            round_number, found.key, rounds[-1].number, found.name
                        )
                    )
                round_ = by_number[round_number]
            return await self._pairings(session, found, round_)

    # --- events ---------------------------------------------------------------------------

    def subscriptions(self) -> list[Subscription]:
        return [
            (RoundComplete, self._on_round_complete),
            (StageFinished, self._on_stage_finished),
            *((kind, self.pictures.on_table_changed) for kind in TABLE_EVENTS),
        ]

    def draw_ahead(self, on: bool) -> None:
        """Keep the current standings' picture drawn ahead of time, or stop (see pictures)."""
        self.pictures.draw_ahead(on)

    async def _on_stage_finished(
        self, session: AsyncSession, event: StageFinished, now: datetime
    ) -> None:
        """A final match is over: its scoreboard, game by game, for everyone, then the
        bracket it is drawn in (with its place or the champion)."""
        channel = self.config.discord.announcement_channel_id
        stage = await session.get(Stage, event.stage_id)
        if not channel or stage is None or not posts_scoreboard(self.config.format, stage):
            return
        try:
            table = await self._table(session, stage)
        except (ValueError, LookupError, WrongStage):
            log.exception("no final scoreboard post for stage %s", event.stage_id)
            return
        post_table(session, channel, table, now)
        bracket = await self._bracket(session, stage)
        if bracket is not None:
            post_bracket(session, channel, bracket, now)

    async def _on_round_complete(
        self, session: AsyncSession, event: RoundComplete, now: datetime
    ) -> None:
        """The table after the round, in the announcement channel, with its picture (a
        knock-out: its bracket instead). A table that cannot be built is logged, never
        allowed to undo the result."""
        channel = self.config.discord.announcement_channel_id
        stage = await session.get(Stage, event.stage_id)
        round_ = await session.get(Round, event.round_id)
        if not channel or stage is None or round_ is None:
            return
        bracket = await self._bracket(session, stage)
        if bracket is not None:
            post_bracket(session, channel, bracket, now)
            if bracket_shows_whole(self.config.format, stage):
                return
        try:
            table = await self._table(session, stage, after=round_)
        except (ValueError, LookupError, WrongStage):
            log.exception("no standings post after round %s", event.round_id)
            return
        post_table(session, channel, table, now)

    async def _bracket(self, session: AsyncSession, stage: Stage) -> Bracket | None:
        """The bracket `stage` is drawn in, if any; one that cannot be read is logged."""
        try:
            return await read_bracket(session, self.config, stage.key)
        except (ValueError, LookupError):
            log.exception("no bracket for stage %s", stage.id)
            return None

    # --- which stage, which rounds ------------------------------------------------------------

    async def _stage(self, session: AsyncSession, wanted: str | None) -> Stage:
        """One row: the first of `wanted`'s rows, or the latest running one."""
        if wanted is not None:
            return (await self._stage_rows(session, wanted))[0]
        ordered = await self._started(session)
        running = [s for s in ordered if s.state is StageState.RUNNING]
        if running:
            return running[-1]
        if ordered:
            return ordered[-1]
        raise WrongStage(wording.nothing_yet())

    async def _started(self, session: AsyncSession) -> list[Stage]:
        """The started rows in stage order (the tiebreak matches after the Swiss)."""
        rows = (await session.scalars(select(Stage).order_by(Stage.position, Stage.id))).all()
        return [s for s in rows if s.state is not StageState.PLANNED]

    async def _stage_rows(self, session: AsyncSession, wanted: str | None) -> list[Stage]:
        """`wanted`'s started rows (a stage key, a pool key, or a 2019 kind such as
        "tiebreak"); without it, every running row, else the last finished stage's rows."""
        ordered = await self._started(session)
        if wanted is None:
            running = [s for s in ordered if s.state is StageState.RUNNING]
            if running:
                return running
            if not ordered:
                raise WrongStage(wording.nothing_yet())
            return [s for s in ordered if s.key == ordered[-1].key]
        typed = wanted.strip().lower()
        for field in ("key", "pool", "kind"):
            found = [s for s in ordered if str(getattr(s, field)) == typed]
            if found:
                return found
        names = {s.key: s.name for s in self.config.format.stages}
        if typed not in names and typed not in {s.value for s in StageKind}:
            raise InvalidInput(wording.unknown_stage(wanted, self.config.format.keys()))
        raise WrongStage(wording.not_started(typed, names.get(typed, typed)))

    # --- the tables -------------------------------------------------------------------------

    async def _table(
        self, session: AsyncSession, stage: Stage, after: Round | None = None
    ) -> Table:
        rounds = await published_rounds(session, stage)
        if after is not None:
            rounds = [r for r in rounds if r.number <= after.number]
        build = {
            "swiss": self._swiss,
            "crosstable": self._robin,
            "tiebreak": self._robin,
            "knockout": self._knockout,
        }.get(table_kind(self.config.format, stage))
        if build is None:
            return await self._final(session, stage, rounds)
        return await build(session, stage, rounds, after)

    @staticmethod
    def _progress(rounds: list[Round], after: Round | None) -> tuple[int, bool]:
        """The round the table stands at, and whether it is over."""
        if after is not None:
            return after.number, True
        if not rounds:
            return 0, False
        last = rounds[-1]
        return last.number, last.state is RoundState.FINISHED

    async def _swiss(
        self, session: AsyncSession, stage: Stage, rounds: list[Round], after: Round | None
    ) -> Table:
        """The Swiss table. Only the columns it needs are read (no ORM objects: a Swiss of
        500 players has thousands of matches), and the table is built once per content."""
        rows = await session.execute(
            select(
                Player.id,
                Player.lichess_id,
                Player.lichess_username,
                Player.withdrawn_at.is_not(None) | Player.disqualified_at.is_not(None),
            ).where(Player.id.in_(stage.seeding))
        )
        players = {pid: (pid, key, name, bool(left)) for pid, key, name, left in rows}
        seeding = tuple(players[pid] for pid in stage.seeding if pid in players)
        number = {r.id: r.number for r in rounds}
        matches = await session.execute(
            select(
                Match.round_id,
                Match.player_a_id,
                Match.player_b_id,
                Match.state,
                Match.points_a,
                Match.points_b,
            )
            .where(Match.round_id.in_(number))
            .order_by(Match.round_id, Match.board)
        )
        # Only what the table shows: a match still being negotiated or played is the same
        # board whatever its state, so /accept does not make the table anew.
        boards = tuple(
            (number[r], a, b, pa or 0.0, pb or 0.0, state is MatchState.FORFEITED)
            if state in DONE_STATES
            else (number[r], a, b, None, None, False)
            for r, a, b, state, pa, pb in matches
        )
        at, finished = self._progress(rounds, after)
        title = wording.swiss_title(
            self.config.tournament.short_name, at, stage.total_rounds, finished
        )
        swiss = swiss_stage(self.config.format)
        return swiss_table_once(
            seeding,
            boards,
            at,
            self.config.swiss.qualifiers,
            title,
            self.config.swiss.short_median_buchholz,
            swiss.tiebreaks,
            swiss.bye_points,
        )

    async def _robin(
        self, session: AsyncSession, stage: Stage, rounds: list[Round], after: Round | None
    ) -> Table:
        """The Candidates (or the Swiss tiebreak matches) as a crosstable; each match counted
        by rule VIII.B (a forfeit with a winner is won by every game, one without a winner
        is disregarded)."""
        players = await players_by_id(session, stage.seeding)
        field = [players[pid] for pid in stage.seeding if pid in players]
        games = float(self.config.tournament.match_games)
        names = {pid: p.lichess_username for pid, p in players.items()}
        seeded = set(stage.seeding)
        results = [
            result
            for m in await round_matches(session, rounds)
            if (result := robin_match_result(m, seeded, names, games)) is not None
        ]
        at, finished = self._progress(rounds, after)
        short = self.config.tournament.short_name
        return candidates_table(
            [p.lichess_username for p in field],
            results,
            title=wording.robin_title(
                title_name(self.config.format, stage), short, at, stage.total_rounds, finished
            ),
            withdrawn={p.lichess_username for p in field if p.withdrawn_at or p.disqualified_at},
            places=advancing(self.config.format, stage),
        )

    async def _knockout(
        self, session: AsyncSession, stage: Stage, rounds: list[Round], after: Round | None
    ) -> Table:
        """A knock-out as its matches, by the format's names: the score and who goes on."""
        latest = {m.board: m for m in await round_matches(session, rounds)}  # the last round's
        matches = [latest[board] for board in sorted(latest)]  # (a player left: one voided)
        ids = [m.player_a_id for m in matches] + [m.player_b_id for m in matches if m.player_b_id]
        players = await players_by_id(session, ids)
        names = match_names(self.config.format, stage)

        def name(player_id: int | None) -> str | None:
            return players[player_id].lichess_username if player_id in players else None

        rows = [
            (
                names.get(m.board, wording.board_name(m.board)),
                players[m.player_a_id].lichess_username,
                name(m.player_b_id),
                m.score_a,
                m.score_b,
                name(match_winner(m)),
            )
            for m in matches
        ]
        at, finished = self._progress(rounds, after)
        title = wording.robin_title(
            title_name(self.config.format, stage),
            self.config.tournament.short_name,
            at,
            stage.total_rounds,
            finished,
        )
        return knockout_table(rows, title=title)

    async def _final(self, session: AsyncSession, stage: Stage, rounds: list[Round]) -> Table:
        match = [None, *(m for m in await round_matches(session, rounds) if m.player_b_id)][-1]
        if match is None or match.player_b_id is None:
            raise WrongStage(wording.not_started(stage.key, stage.name))
        players = await players_by_id(session, [match.player_a_id, match.player_b_id])
        a, b = players[match.player_a_id], players[match.player_b_id]
        rows = (await counted_games(session, [match.id])).get(match.id, [])
        rules = self.config.row_match_format(stage.key)
        controls = final_time_controls([g.result_a for g in rows], rules)
        games = [
            FinalGame(
                number,
                control,
                players[g.white_player_id].lichess_username,
                players[g.black_player_id].lichess_username,
                g.result_a,
                g.lichess_id,
            )
            for number, (g, control) in enumerate(zip(rows, controls, strict=True), start=1)
        ]
        armageddon = [g for g, c in zip(rows, controls, strict=True) if c == ARMAGEDDON]
        white = armageddon[0].white_player_id if armageddon else None
        try:
            decided = final_schemes.status(
                [g.result_a for g in rows],
                rules,
                armageddon_white=None if white is None else _side(white == a.id),
            ).winner
        except ValueError:  # games the rules cannot place: show them, name no winner
            decided = None
        winner = None if decided is None else (a if decided == final.CHAMPION else b)
        return final_table(
            a.lichess_username,
            b.lichess_username,
            games,
            title=wording.final_title(
                self.config.tournament.short_name,
                a.lichess_username,
                b.lichess_username,
                stage.name,
            ),
            winner=winner.lichess_username if winner else None,
            blocks=wording.final_blocks_note(final_blocks([g.result_a for g in rows], rules)),
            keep_last=deciding_games(len(rows), rules),
        )

    # --- pairings ---------------------------------------------------------------------------

    async def _pairings(self, session: AsyncSession, stage: Stage, round_: Round) -> RoundPairings:
        matches = await round_matches(session, [round_])
        ids = {m.player_a_id for m in matches} | {m.player_b_id for m in matches if m.player_b_id}
        players = await players_by_id(session, list(ids))
        counted = await counted_games(session, [m.id for m in matches])

        def name(player_id: int | None) -> str | None:
            return players[player_id].lichess_username if player_id in players else None

        boards = tuple(
            BoardLine(
                m.board,
                players[m.player_a_id].lichess_username,
                name(m.player_b_id),
                m.state.value,
                m.agreed_time,
                m.score_a,
                m.score_b,
                m.points_a,
                name(m.forfeit_winner_id),
                tuple(g.lichess_id for g in counted.get(m.id, [])),
            )
            for m in matches
        )
        return RoundPairings(
            pairings_label(self.config.format, stage, STAGE_LABELS.get(stage.kind.value, "")),
            round_.number,
            stage.total_rounds,
            round_.starts_at,
            round_.deadline,
            round_.state is RoundState.FINISHED,
            boards,
        )


def _side(is_a: bool) -> str:
    """Side `a` of the Final's match plays the champion's part in `bot.rules.final`: the
    rules are symmetric but for the names of the sides."""
    return final.CHAMPION if is_a else final.CHALLENGER
