"""Entry requirements for a Lichess account (ACWC rules, section II).

Pure functions over plain values: the caller gathers the facts about an account
(from the Lichess API, elsewhere) and this module decides which rule problems
they raise.  No I/O, no clock; every threshold is a parameter whose default is
the 2019 edition.

Rule numbers follow the published rules text: II.A = entry requirements,
II.B = TD exceptions, II.C = disqualifying elements.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = [
    "ACCOUNT_TOO_NEW",
    "ALL_PROBLEMS",
    "BOT_ACCOUNT",
    "CLOSED_ACCOUNT",
    "HARD_REFUSALS",
    "NOT_FOUND",
    "TD_EXCEPTION_PROBLEMS",
    "TOO_FEW_GAMES",
    "TOS_VIOLATION",
    "AccountFacts",
    "EligibilityRequirements",
    "describe",
    "eligibility_problems",
    "is_hard_refused",
    "needs_td",
]

# --- problem codes -----------------------------------------------------------

NOT_FOUND = "not_found"
CLOSED_ACCOUNT = "closed_account"
BOT_ACCOUNT = "bot_account"
ACCOUNT_TOO_NEW = "account_too_new"
TOO_FEW_GAMES = "too_few_games"
TOS_VIOLATION = "tos_violation"

#: Every code, in the order :func:`eligibility_problems` reports them.
ALL_PROBLEMS: tuple[str, ...] = (
    NOT_FOUND,
    CLOSED_ACCOUNT,
    BOT_ACCOUNT,
    ACCOUNT_TOO_NEW,
    TOO_FEW_GAMES,
    TOS_VIOLATION,
)

#: Problems the bot refuses outright.  An unknown or closed account cannot play
#: at all, and rule II.C.6 (BOT accounts cannot play) allows no exception.
HARD_REFUSALS: frozenset[str] = frozenset({NOT_FOUND, CLOSED_ACCOUNT, BOT_ACCOUNT})

#: Entry requirements the TD may waive (rule II.B).
TD_EXCEPTION_PROBLEMS: frozenset[str] = frozenset({ACCOUNT_TOO_NEW, TOO_FEW_GAMES})

# tos_violation is neither: the API does not say *when* the engine/booster mark
# was given, and rules II.C.1 / II.C.2 hinge on that date, so only the TD decides.


# --- inputs ------------------------------------------------------------------


@dataclass(frozen=True)
class AccountFacts:
    """What is known about one Lichess account, as plain values.

    ``rated_games_before_cutoff`` may be capped at the minimum required (the
    counter stops once it has seen enough), so only compare it to the minimum.
    ``None`` means unknown, which is treated as failing the requirement.
    """

    exists: bool
    closed: bool = False
    is_bot: bool = False
    tos_violation: bool = False
    created_at: datetime | None = None  # aware UTC
    rated_games_before_cutoff: int | None = None


@dataclass(frozen=True)
class EligibilityRequirements:
    """Thresholds of rule II.A (defaults: 2019 edition).

    The "games played before" date of rule II.A.2 is applied by whoever counts
    the games, so it is not repeated here.
    """

    account_created_before: datetime = datetime(2019, 3, 1, tzinfo=UTC)
    min_rated_games: int = 100


_DEFAULT_REQUIREMENTS = EligibilityRequirements()


def _require_aware(value: datetime, name: str) -> None:
    """Reject naive datetimes: comparing them against UTC cut-offs is meaningless."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be a timezone-aware datetime, got {value!r}")


# --- decisions ---------------------------------------------------------------


def eligibility_problems(
    facts: AccountFacts, req: EligibilityRequirements = _DEFAULT_REQUIREMENTS
) -> list[str]:
    """Return the rule problems of an account, in :data:`ALL_PROBLEMS` order.

    An unknown account yields only ``not_found`` and a closed one only
    ``closed_account``: nothing else can be checked meaningfully (a closed
    account has no creation date, so reporting it as too new would mislead).
    An empty list means the account meets every requirement.
    """
    if not facts.exists:
        return [NOT_FOUND]
    if facts.closed:
        return [CLOSED_ACCOUNT]

    _require_aware(req.account_created_before, "account_created_before")
    problems: list[str] = []
    if facts.is_bot:
        problems.append(BOT_ACCOUNT)
    if facts.created_at is None:
        problems.append(ACCOUNT_TOO_NEW)
    else:
        _require_aware(facts.created_at, "created_at")
        # Rule II.A.1: "created prior to" -> the cut-off instant itself is too new.
        if facts.created_at >= req.account_created_before:
            problems.append(ACCOUNT_TOO_NEW)
    games = facts.rated_games_before_cutoff
    if games is None or games < req.min_rated_games:
        problems.append(TOO_FEW_GAMES)
    if facts.tos_violation:
        problems.append(TOS_VIOLATION)
    return problems


def is_hard_refused(problems: Iterable[str]) -> bool:
    """True if any problem is one the bot refuses without asking the TD."""
    return any(p in HARD_REFUSALS for p in problems)


def needs_td(problems: Iterable[str]) -> bool:
    """True if any problem must go to the TD (an exception or a ToS review)."""
    return any(p not in HARD_REFUSALS for p in problems)


# --- explanations ------------------------------------------------------------


def _fmt_instant(value: datetime) -> str:
    """Format an instant in UTC to the minute, as the rules state cut-offs."""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def describe(
    problem: str,
    facts: AccountFacts | None = None,
    req: EligibilityRequirements = _DEFAULT_REQUIREMENTS,
) -> str:
    """One-line human explanation of a problem code, for players and the TD.

    ``facts`` is optional; when given, the account's own values (creation date,
    game count) are quoted.  Raises ``ValueError`` for an unknown code.
    """
    if problem == NOT_FOUND:
        return "No Lichess account with this username exists."
    if problem == CLOSED_ACCOUNT:
        return "This Lichess account is closed."
    if problem == BOT_ACCOUNT:
        return "This is a BOT account; BOT accounts cannot play (rule II.C.6)."
    if problem == ACCOUNT_TOO_NEW:
        cutoff = _fmt_instant(req.account_created_before)
        if facts is None:
            return f"Account must be created before {cutoff} (rule II.A.1)."
        if facts.created_at is None:
            return f"Account creation date is unknown; it must be before {cutoff} (rule II.A.1)."
        created = facts.created_at.astimezone(UTC).strftime("%Y-%m-%d")
        where = "exactly at" if facts.created_at == req.account_created_before else "after"
        return f"Account created on {created}, {where} the cut-off {cutoff} (rule II.A.1)."
    if problem == TOO_FEW_GAMES:
        minimum = req.min_rated_games
        if facts is None:
            return f"At least {minimum} rated games before the cut-off are required (rule II.A.2)."
        games = facts.rated_games_before_cutoff
        if games is None:
            return (
                f"Number of rated games before the cut-off is unknown; "
                f"at least {minimum} are required (rule II.A.2)."
            )
        return (
            f"Only {games} rated games before the cut-off; "
            f"at least {minimum} are required (rule II.A.2)."
        )
    if problem == TOS_VIOLATION:
        return (
            "Account is marked for a Terms of Service violation; the TD decides, "
            "as the mark date is not known (rules II.C.1/II.C.2)."
        )
    raise ValueError(f"unknown eligibility problem code: {problem!r}")


_USERNAME = re.compile(r"^[A-Za-z0-9_-]{2,30}$")


def looks_like_username(name: str) -> bool:
    """Lichess usernames are 2 to 30 letters, digits, `_` or `-`; anything else is a typo."""
    return bool(_USERNAME.match(name))
