"""How each stage reads a match: the Swiss and tiebreak matches may stop early, the
Candidates are played out; a match of a knock-out or a final-match stage (the 2019 Final, a
Semifinal, the Grand Final, the Third Place Playoff) goes on by its stage's match format
(`Config.match_format`: rule III.G, later editions' schemes) up to the Armageddon.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.config import Config
from bot.features.matches.context import place_named
from bot.features.matches.text import match_label
from bot.features.matches.types import PLAYED_ON
from bot.features.results import text as wording
from bot.features.results.types import FinalBlock, FinalShape
from bot.format.model import KnockoutStage
from bot.lichess.models import LichessGame
from bot.rules import final as final_rules
from bot.rules import final_schemes
from bot.rules.attribution import split_at_end
from bot.rules.match import stops_early
from bot.stage_kinds import is_final_match
from bot.stage_kinds import is_match_stage as _is_match_stage
from db.models import (
    Game,
    Match,
    MatchState,
    Player,
    Round,
    Stage,
)

log = logging.getLogger(__name__)

UNDER_WAY = (MatchState.SCHEDULED, MatchState.IN_PROGRESS)
AFTER_END = wording.AFTER_END
ARMAGEDDON = wording.ARMAGEDDON_WAITS
ARMAGEDDON_KEY = "armageddon:"  # Setting key + match id: the bids and who plays White
BID_VIEW = "armageddon_bid"
RPS_VIEW = "armageddon_rps"  # the TD's buttons: who won rock-paper-scissors
TD_VOID = "voided by the TD: "


@dataclass
class MatchRecord:
    """A match with everything its results need, loaded in one session."""

    match: Match
    round_: Round
    stage: Stage
    a: Player
    b: Player
    games: list[Game]
    # The Armageddon of a knock-out or final match (III.G.6): who plays White once both
    # bids are revealed ("champion" is side a), and when they were (a game started before
    # the reveal is not the Armageddon).
    armageddon_white: str | None = None
    armageddon_revealed_at: datetime | None = None
    armageddon_white_bid: int | None = None  # seconds: White's bid, checked on the clocks

    @property
    def thread_id(self) -> int | None:
        return self.match.thread_id or self.round_.thread_id


def td_voided(game: Game) -> bool:
    return not game.counted and (game.voided_reason or "").startswith(TD_VOID)


class StageRules:
    """The rules of each stage applied to a match's results: the clock each game must
    have, which games count, when the match is over, the Armageddon of a match played by
    its stage's match format (a knock-out or a final match)."""

    def __init__(self, config: Config) -> None:
        self.config = config

    # --- rules per stage ----------------------------------------------------------------------

    @property
    def margin(self) -> timedelta:
        return timedelta(minutes=self.config.match_day.game_time_margin_minutes)

    def base_clock(self) -> tuple[int, int]:
        tc = self.config.tournament.time_control
        return (tc.limit_seconds, tc.increment)

    def is_match_stage(self, stage: Stage) -> bool:
        """A knock-out's or a final match's row: played by its match format (the
        catalogue's answer, `bot.stage_kinds`, for this config's format)."""
        return _is_match_stage(self.config.format, stage)

    def is_final_match(self, stage: Stage) -> bool:
        """A final match's row: one match, played in sessions and read game by game."""
        return is_final_match(self.config.format, stage)

    def _in_format(self, stage: Stage) -> bool:
        return stage.key in self.config.format.keys()

    def match_format(self, stage: Stage) -> final_rules.FinalFormat:
        """The match format of a knock-out or final-match stage row (its format stage by
        key); a Final row whose key the format lacks is the Final's (`Config.row_match_format`)."""
        return self.config.row_match_format(stage.key)

    def black_seconds(self, stage: Stage) -> int:
        """Black's clock in this stage's Armageddon (rule III.G.6.a)."""
        if not self._in_format(stage):
            return self.config.stages.final_armageddon_black_seconds
        return self.config.match_armageddon_black_seconds(stage.key)

    def place(self, ctx: MatchRecord) -> str:
        """The match as people name it ("Swiss round 3, board 2", "Semifinal 1", "Final");
        never its row id (issue 32)."""
        stage = ctx.stage
        return place_named(
            self.config.format,
            stage.key,
            stage.kind,
            stage.name,
            ctx.round_.number,
            ctx.match.board,
        )

    def label(self, ctx: MatchRecord) -> str:
        """ "Swiss round 3, board 2 (a vs b)": how the TD's notes name the match (and the TD's
        pick lists find it)."""
        return match_label(self.place(ctx), ctx.a.lichess_username, ctx.b.lichess_username)

    def match_name(self, ctx: MatchRecord) -> str:
        """What the match's posts call it: a knock-out match its pairing's name by board
        ("Semifinal 1"), any other the stage row's name ("Final", "Grand Final")."""
        stage = ctx.stage
        if self._in_format(stage):
            spec = self.config.format.stage(stage.key)
            if isinstance(spec, KnockoutStage) and 1 <= ctx.match.board <= len(spec.pairings):
                return spec.pairings[ctx.match.board - 1].name
        return stage.name

    def final_status(
        self, stage: Stage, results: Sequence[float], white: str | None = None
    ) -> final_rules.FinalStatus:
        return final_schemes.status(results, self.match_format(stage), armageddon_white=white)

    def final_turn(
        self, stage: Stage, results: Sequence[float], white: str | None = None
    ) -> final_rules.FinalTurn:
        """What the last of these games did to the match (rules III.G.3-6; a later
        scheme's tiebreak games or new week, `bot.rules.final_schemes.turn_after`)."""
        return final_schemes.turn_after(results, self.match_format(stage), armageddon_white=white)

    def final_shape(self, ctx: MatchRecord) -> FinalShape:
        fmt = self.match_format(ctx.stage)
        return FinalShape(
            fmt.lead,
            fmt.lead_rule_games,
            fmt.tiebreak_time_control,
            scheme=fmt.scheme.value,
            base_games=fmt.base_games,
            tiebreak_games=fmt.tiebreak_games,
            weeks=fmt.weeks,
            equal_bids=self.config.format.equal_bids,
            name=self.match_name(ctx),
        )

    def final_block(self, stage: Stage, results: Sequence[float]) -> FinalBlock | None:
        """Where the last of these games stands in a later scheme's block: its week (from
        week 2 of `week_repeats`) or its tiebreak game (`tiebreak_games`), with the block's
        score; None for the first block, `lead_by_two` and the Armageddon."""
        fmt = self.match_format(stage)
        played = len(results)
        if not played or played > final_schemes.armageddon_point(fmt):
            return None
        if fmt.scheme is final_rules.FinalScheme.WEEK_REPEATS:
            week = final_schemes.week_of(fmt, played)
            kind, number, size = "week", week, fmt.base_games
        elif fmt.scheme is final_rules.FinalScheme.TIEBREAK_GAMES and played > fmt.base_games:
            kind, number, size = "tiebreak", 1, fmt.tiebreak_games
        else:
            return None
        start = fmt.base_games * (number - 1) if kind == "week" else fmt.base_games
        if kind == "week" and number == 1:
            return None
        block = results[start:]
        a = sum(block)
        return FinalBlock(kind, number, len(block), size, a, len(block) - a)

    def clock_for(self, stage: Stage, results: Sequence[float]) -> tuple[int, int]:
        """The clock the next game must have (rules III.G.5, III.G.6.a and III.G.6.d in a
        match played by its match format, decided by `bot.rules.final.next_game_clock`)."""
        if not self.is_match_stage(stage):
            return self.base_clock()
        fmt = self.match_format(stage)
        minutes, increment = fmt.tiebreak_time_control.split("+")
        return final_schemes.next_game_clock(
            results,
            fmt,
            base=self.base_clock(),
            tiebreak=(int(minutes) * 60, int(increment)),
            armageddon_black_s=self.black_seconds(stage),
        )

    def cut(
        self, stage: Stage, results: Sequence[float], white: str | None = None
    ) -> tuple[int, bool, str]:
        """How many games count, whether the match is over, why the rest do not count:
        decided by `bot.rules.match.stops_early` (rules III.E.1, III.E.5, III.F.2) and, in
        a knock-out or final match, `bot.rules.final_schemes.counted_games` (rule III.G)."""
        if self.is_match_stage(stage):
            n, over, bids = final_schemes.counted_games(
                results, self.match_format(stage), armageddon_white=white
            )
            return n, over, ARMAGEDDON if bids else AFTER_END
        early = stops_early(
            stage.kind.value,
            players=len(stage.seeding),
            candidates_early_stop=self.config.stages.candidates_early_stop,
        )
        games = self.config.tournament.match_games
        n, over = split_at_end(results, games=games, early_stop=early)
        return n, over, AFTER_END

    def full_length(self, stage: Stage) -> int | None:
        """The games a decided match of this stage may be played on to (`stages.played_on`),
        or None when games after the decision are not recorded."""
        if stage.kind.value not in self.config.stages.played_on:
            return None
        if self.is_match_stage(stage):
            return self.match_format(stage).base_games
        return self.config.tournament.match_games

    def plays_on(self, ctx: MatchRecord) -> bool:
        """A finished match whose games after the decision are still being recorded."""
        full = self.full_length(ctx.stage)
        if full is None or ctx.match.state is not MatchState.FINISHED:
            return False
        played = [g for g in ctx.games if g.counted or g.voided_reason == PLAYED_ON]
        return len(played) < full

    def earliest(self, ctx: MatchRecord) -> datetime:
        """Games created from then on may count: the agreed time (less a margin), or for
        the Final, played over several sessions (rule VI.C), the start of its window."""
        assert ctx.match.agreed_time is not None
        return final_rules.earliest_counted_game(  # rule VI.C
            agreed=ctx.match.agreed_time,
            round_start=ctx.round_.starts_at,
            is_final=is_final_match(self.config.format, ctx.stage),
            margin=self.margin,
        )

    def final_clock_changed(self, ctx: MatchRecord, results: Sequence[float]) -> bool:
        """The next game needs another clock than the last one (2+5 to 2+0, III.G.5)."""
        if not self.is_match_stage(ctx.stage) or not results:
            return False
        return self.clock_for(ctx.stage, results) != self.clock_for(ctx.stage, results[:-1])

    def awaiting_bids(self, ctx: MatchRecord, results: Sequence[float]) -> bool:
        """The next game is the Armageddon and the bids for White are not all in."""
        return (
            self.is_match_stage(ctx.stage)
            and ctx.armageddon_white is None
            and self.final_status(ctx.stage, results).next_game == final_rules.ARMAGEDDON
        )

    def link_colours(self, ctx: MatchRecord, results: Sequence[float]) -> tuple[Player, Player]:
        """(White, Black) of the next game link: Lichess gives White to the first of the
        two users (`users=a,b`). The Armageddon's White is the bid winner (III.G.6); every
        other link gives player A (the pairing's first name) White in its first game, and
        Lichess alternates the colours in the rematches that follow."""
        white = ctx.armageddon_white
        if (
            self.is_match_stage(ctx.stage)
            and white is not None
            and self.final_status(ctx.stage, results, white).next_game == final_rules.ARMAGEDDON
        ):
            return (ctx.a, ctx.b) if white == final_rules.CHAMPION else (ctx.b, ctx.a)
        return ctx.a, ctx.b

    def is_armageddon_next(self, ctx: MatchRecord, results: Sequence[float]) -> bool:
        """The next game of a knock-out or final match is its Armageddon, colours known."""
        if not self.is_match_stage(ctx.stage) or ctx.armageddon_white is None:
            return False
        try:
            next_game = self.final_status(ctx.stage, results, ctx.armageddon_white).next_game
        except ValueError:  # already decided
            return False
        return next_game == final_rules.ARMAGEDDON

    def armageddon_refusal(
        self, ctx: MatchRecord, results: Sequence[float], game: LichessGame
    ) -> str | None:
        """Why a game cannot be the Armageddon: bids not in yet, or the wrong side White."""
        if not self.is_match_stage(ctx.stage):
            return None
        try:
            next_game = self.final_status(ctx.stage, results, ctx.armageddon_white).next_game
        except ValueError:  # already decided: a game played on is no Armageddon
            return None
        if next_game != final_rules.ARMAGEDDON:
            return None
        if ctx.armageddon_white is None:
            return wording.armageddon_waits_for_bids()
        white = ctx.a if ctx.armageddon_white == final_rules.CHAMPION else ctx.b
        revealed = ctx.armageddon_revealed_at
        if revealed is not None and game.created_at < revealed:
            return wording.armageddon_before_reveal()
        if game.white_id != white.lichess_id:
            return wording.armageddon_wrong_white(white.lichess_username)
        return None
