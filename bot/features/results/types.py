"""What the results use cases return, shared by the service and its wording."""

from __future__ import annotations

from dataclasses import dataclass, field

from db.models import Game


@dataclass(frozen=True)
class PollReport:
    """What one poll did: matches asked about, games stored, matches ended, failures."""

    polled: int
    new_games: int
    finished: list[int] = field(default_factory=list)
    errors: int = 0


@dataclass(frozen=True)
class Settled:
    """The match after an update: its score and whether it is over."""

    match_id: int
    score_a: float
    score_b: float
    finished: bool
    stored: dict[str, Game] = field(default_factory=dict)  # lichess id -> row, new ones


@dataclass(frozen=True)
class SubmitResult:
    match_id: int
    lichess_id: str
    number: int
    counted: bool
    already: bool
    score_a: float
    score_b: float
    finished: bool


@dataclass(frozen=True)
class VoidResult:
    match_id: int
    lichess_id: str
    score_a: float
    score_b: float
    finished: bool
    reopened: bool
    match: str  # its place and players, as the TD reads it (no row id: issue 32)


@dataclass(frozen=True)
class BidReceipt:
    """A finalist's Armageddon bid was taken; `revealed` once both are in."""

    seconds: int
    revealed: bool


@dataclass(frozen=True)
class RpsChoice:
    """The rock-paper-scissors winner the TD recorded (White); `already` when it was
    recorded before and nothing changed."""

    white: str
    already: bool


@dataclass(frozen=True)
class RpsWaiting:
    """A match whose equal Armageddon bids wait for the rock-paper-scissors winner."""

    match_id: int
    name: str  # the match's stage name ("Final", "Semifinal 1")
    a: str
    b: str


@dataclass(frozen=True)
class FinalShape:
    """A knock-out or final match's structure as configured (its stage's match format; the
    2019 Final's rule III.G), for the words that explain it."""

    lead: float
    lead_rule_games: int
    tiebreak_time_control: str
    scheme: str = "lead_by_two"  # `bot.rules.final.FinalScheme`
    base_games: int = 12
    tiebreak_games: int = 0  # `tiebreak_games`: the games after a tied base block
    weeks: int = 1  # `week_repeats`: the most weeks before the Armageddon
    equal_bids: str = "previous_champion"  # `bot.rules.armageddon.EqualBids`
    name: str = "Final"  # what the match's posts call it ("Semifinal 1", "Grand Final")


@dataclass(frozen=True)
class FinalBlock:
    """A Final game in a later scheme's block (a week after the first, the tiebreak games):
    `kind` "week" or "tiebreak", the week's `number` (1 for the tiebreak games), the game's
    place in the block and the block's size, and the block's score so far (side a first)."""

    kind: str
    number: int
    game: int
    size: int
    score_a: float
    score_b: float


def start_key(match_id: int, url: str) -> str:
    """The outbox key of a match's "starts now" post for the game link `url`: outside the
    Final, the match's scoreboard is shown in that post (one message: the link, then the
    games as they are read) instead of a post of its own."""
    return f"start:{match_id}:{url.rsplit('/', 1)[-1]}"
