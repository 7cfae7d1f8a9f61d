"""The stage catalogue's answers for the engine: what a running stage row does, asked of the
format in one place, so that no feature branches on a stage's kind or name
(`tests/layout/test_stage_branching.py`, docs/ARCHITECTURE.md "How to add a stage kind").

A row runs the format stage of its key (`config.format.stage(row.key)`); a row whose key the
format lacks (the 2019 tiebreak matches, `<swiss key>_tiebreak`; a 2019 database's rows under
another config) falls back to the format kind its engine kind runs (`FORMAT_KIND`).
"""

from __future__ import annotations

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.format.model import Format, KnockoutStage, PreSeeded, RoundRobinStage
from bot.format.swiss import swiss_stage
from db.models import NO_POOL, Stage, StageKind

__all__ = [
    "FORMAT_KIND",
    "MATCH_KINDS",
    "engine_kind",
    "first_pool_row",
    "format_kind",
    "is_final_match",
    "is_final_match_of",
    "is_match_stage",
    "is_own_row",
    "is_qualification",
    "is_robin",
    "is_tiebreak_matches",
    "kind_of",
    "knockout_match_name",
    "swiss_query",
    "swiss_row",
]

#: The format's stage kind each engine kind runs (the tiebreak matches belong to the Swiss).
FORMAT_KIND: dict[StageKind, str] = {
    StageKind.SWISS: "swiss",
    StageKind.TIEBREAK: "swiss",
    StageKind.CANDIDATES: "round_robin",
    StageKind.FINAL: "final_match",
    StageKind.KNOCKOUT: "knockout",
}
#: The engine kind that runs each format kind (a pool of a round robin is a CANDIDATES row).
ENGINE_KIND: dict[str, StageKind] = {
    "swiss": StageKind.SWISS,
    "round_robin": StageKind.CANDIDATES,
    "knockout": StageKind.KNOCKOUT,
    "final_match": StageKind.FINAL,
}
#: The format kinds whose matches are played game by game by a match format of their own
#: (`Config.match_format`): a knock-out's matches and a final match.
MATCH_KINDS = frozenset({"knockout", "final_match"})


def engine_kind(fmt: Format, key: str) -> StageKind:
    """The engine kind of the rows of the format's stage `key` (what a pre-seeded player's
    `pre_seeded_stage` records: 2024's Candidates pools are CANDIDATES rows, a Grand Final a
    FINAL row)."""
    return ENGINE_KIND[fmt.stage(key).kind]


def kind_of(fmt: Format, key: str, kind: StageKind) -> str:
    """The format kind of the stage a row of `key` and engine `kind` runs: its format
    stage's by key, else its engine kind's (`FORMAT_KIND`)."""
    if key in fmt.keys():
        return fmt.stage(key).kind
    return FORMAT_KIND[kind]


def format_kind(fmt: Format, stage: Stage) -> str:
    """The format kind of the stage a row runs (`kind_of`)."""
    return kind_of(fmt, stage.key, stage.kind)


def is_match_stage(fmt: Format, stage: Stage) -> bool:
    """A stage whose matches are decided game by game by a match format of their own (a
    knock-out, a final match): no fixed length, the Armageddon at the end."""
    return format_kind(fmt, stage) in MATCH_KINDS


def is_final_match(fmt: Format, stage: Stage) -> bool:
    """A final match (the 2019 Final, a Grand Final, a Third Place Playoff): one match, not
    played in weekly rounds but in sessions as the players see fit (rules IV.C, VI.C), read
    game by game, the champion crowned (or its places given) when it is decided."""
    return is_final_match_of(fmt, stage.key, stage.kind)


def is_final_match_of(fmt: Format, key: str, kind: StageKind) -> bool:
    """`is_final_match` for a row read as its key and engine kind (a query's columns)."""
    return kind_of(fmt, key, kind) == "final_match"


def knockout_match_name(fmt: Format, key: str, board: int) -> str | None:
    """The name of a knock-out's match on `board` (board N is the format's pairing N:
    "Semifinal 1"); None for a row of any other kind."""
    spec = fmt.stage(key) if key in fmt.keys() else None
    if isinstance(spec, KnockoutStage) and 1 <= board <= len(spec.pairings):
        return spec.pairings[board - 1].name
    return None


def is_robin(fmt: Format, stage: Stage) -> bool:
    """A round-robin stage's row (one pool; 2019: the Candidates), not the tiebreak matches,
    which the engine also plays as a round robin but which belong to the Swiss."""
    return format_kind(fmt, stage) == "round_robin"


def is_tiebreak_matches(stage: Stage) -> bool:
    """The 2019 tiebreak matches (rule III.E.5): a row of the Swiss's, played as a round
    robin, that no stage of the format names."""
    return stage.kind is StageKind.TIEBREAK


def keeps_a_seat(fmt: Format, stage: Stage) -> bool:
    """A final match with a pre-seeded seat (2019's Final, the champion's, rule III.C): one
    who leaves it is replaced by rule VIII.C, not by the players below moving up."""
    if not is_final_match(fmt, stage) or stage.key not in fmt.keys():
        return False
    return any(isinstance(rule, PreSeeded) for rule in fmt.stage(stage.key).entry)


def at_own_pace(stage: Stage) -> bool:
    """A final match's row (every format's: the 2019 Final, a Grand Final, a Third Place
    Playoff): one match in sessions at the players' own pace (rule IV.C), so its post has
    no round, board, seeds or deadline."""
    return stage.kind is StageKind.FINAL


def is_own_row(kind: StageKind) -> bool:
    """An engine kind whose row is no stage of the format but has a key and name of its own
    beside its stage's (the tiebreak matches: `<swiss key>_tiebreak`)."""
    return kind is StageKind.TIEBREAK


def is_qualification(fmt: Format, stage: Stage) -> bool:
    """A row of the Swiss, the qualification: the Swiss itself or its tiebreak matches."""
    return format_kind(fmt, stage) == "swiss"


def swiss_query(fmt: Format) -> Select[Stage]:
    """The query of the row of the format's Swiss (`swiss_stage`), by its key."""
    return select(Stage).where(Stage.key == swiss_stage(fmt).key, Stage.pool == NO_POOL)


async def swiss_row(session: AsyncSession, fmt: Format) -> Stage | None:
    """The row of the format's Swiss (`swiss_stage`), or None before round 1 is published."""
    return await session.scalar(swiss_query(fmt))


async def first_pool_row(session: AsyncSession, fmt: Format) -> Stage | None:
    """The row of the first pool of the format's first round-robin stage (2019: the
    Candidates), or None before it started or in a format without one."""
    for stage in fmt.stages:
        if isinstance(stage, RoundRobinStage):
            query = select(Stage).where(Stage.key == stage.key, Stage.pool == stage.pools[0].key)
            return await session.scalar(query)
    return None
