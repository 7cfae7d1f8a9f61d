"""The names the TD reads in the pick lists; Discord shows at most 100 characters of each."""

from __future__ import annotations

from bot.discord_limits import CHOICE_NAME
from bot.features.matches.text import STAGE_LABELS
from db.models import IncidentKind, MatchState, RegistrationState, StageKind

NAME_LIMIT = CHOICE_NAME

INCIDENT_LABELS = {
    IncidentKind.NO_SHOW: "no-show",
    IncidentKind.BREAK: "break",
    IncidentKind.LEFT: "left",
    IncidentKind.FORFEIT_CLAIM: "forfeit claim",
}
# Stages whose rounds have several boards worth telling apart by number.
BOARDED = (StageKind.SWISS, StageKind.TIEBREAK)


def clip(name: str) -> str:
    return name if len(name) <= NAME_LIMIT else name[: NAME_LIMIT - 1] + "…"


def state_word(state: str) -> str:
    return state.replace("_", " ")


def where(kind: StageKind, round_number: int, board: int, *, one_match: bool = False) -> str:
    """ "Swiss round 3, board 2", "Candidates round 1", "Final" (a final match: one match,
    no rounds)."""
    label = STAGE_LABELS[kind]
    if one_match:
        return label
    if kind in BOARDED:
        return f"{label} round {round_number}, board {board}"
    return f"{label} round {round_number}"


def match_name(
    kind: StageKind,
    round_number: int,
    board: int,
    a: str,
    b: str,
    state: MatchState,
    *,
    one_match: bool = False,
) -> str:
    place = where(kind, round_number, board, one_match=one_match)
    return f"{place}: {a} vs {b} ({state_word(state.value)})"


def player_status(
    *,
    disqualified: bool,
    withdrawn: bool,
    registration: RegistrationState | None,
    seeded: StageKind | None,
) -> str:
    if disqualified:
        return "disqualified"
    if withdrawn or registration is RegistrationState.WITHDRAWN:
        return "withdrawn"
    if seeded is not None:
        return f"seeded into the {STAGE_LABELS[seeded]}"
    if registration in (RegistrationState.PENDING, RegistrationState.REJECTED):
        return f"registration {registration.value}"
    return "registered"


def player_name(name: str, status: str) -> str:
    return f"{name} · {status}"


def registration_name(ident: int, name: str, state: str, seed: float | None) -> str:
    seeding = f", seed {seed:.0f}" if seed is not None else ""
    return f"registration {ident}: {name} ({state}{seeding})"


def report_name(ident: int, accused: str, state: str) -> str:
    """The accused only: who reported stays out of every name (rule VII.A)."""
    return f"cheat report {ident}: against {accused} ({state})"


def game_name(
    lichess_id: str, white: str, black: str, number: int, match_id: int, *, counted: bool
) -> str:
    void = "" if counted else ", voided"
    return f"{lichess_id}: {white}–{black} game {number} (match {match_id}{void})"


def incident_name(ident: int, kind: IncidentKind, a: str, b: str, state: str) -> str:
    return f"incident {ident}, {INCIDENT_LABELS[kind]}: {a} vs {b} ({state_word(state)})"
