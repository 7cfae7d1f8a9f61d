"""The names the TD reads in the pick lists; Discord shows at most 100 characters of each."""

from __future__ import annotations

from bot.discord_limits import CHOICE_NAME
from bot.features.matches.text import STAGE_LABELS, incident_called
from db.models import IncidentKind, MatchState, RegistrationState, StageKind

NAME_LIMIT = CHOICE_NAME


def clip(name: str) -> str:
    return name if len(name) <= NAME_LIMIT else name[: NAME_LIMIT - 1] + "…"


def state_word(state: str) -> str:
    return state.replace("_", " ")


def match_name(place: str, a: str, b: str, state: MatchState) -> str:
    """ "Swiss round 3, board 2: a vs b (negotiating)": the match by its place
    (`bot.features.matches.context.place_of`) and players, never its row id (issue 32)."""
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
    lichess_id: str, white: str, black: str, number: int, place: str, *, counted: bool
) -> str:
    void = "" if counted else ", voided"
    return f"{lichess_id}: {white}–{black} game {number} ({place}{void})"


def incident_name(kind: IncidentKind, by: str, against: str | None, place: str, state: str) -> str:
    """The incident by what, who and where ("no-show claim by a against b, Swiss round 3,
    board 2 (claimed)"); never its row id (issue 32)."""
    return f"{incident_called(kind.value, by, against)}, {place} ({state_word(state)})"
