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
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # the game is only read; importing it would import the client, which calls us
    from bot.lichess.models import LichessGame

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
    "DoubleEntry",
    "EligibilityRequirements",
    "EntryHolder",
    "TDDecisionProblem",
    "account_hard_problems",
    "counts_before_cutoff",
    "describe",
    "double_entry",
    "eligibility_problems",
    "hard_problems",
    "is_hard_refused",
    "is_td",
    "last_second_before",
    "may_enter",
    "needs_td",
    "played_rated",
    "td_decision_problem",
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
    """Rule 2.1 (II.A): what is known about one Lichess account, as plain values.

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
    """Rule 2.1 (II.A): the thresholds (defaults: 2019 edition).

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
    """Rule 2.1 (II.A), rule 2.3 (II.C): the rule problems of an account, in
    :data:`ALL_PROBLEMS` order.

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
    """Rule 2.3.5 (II.C.5), rule 2.3.6 (II.C.6): true if any problem is one the bot refuses
    without asking the TD."""
    return any(p in HARD_REFUSALS for p in problems)


def hard_problems(problems: Iterable[str]) -> list[str]:
    """Rule 2.2 (II.B), rule 2.3.6 (II.C.6): the problems no TD exception can waive, in
    the order given; the rest go to the TD (:func:`needs_td`)."""
    return [p for p in problems if is_hard_refused((p,))]


def account_hard_problems(*, closed: bool, is_bot: bool) -> list[str]:
    """Rule 2.3.6 (II.C.6): what refuses an account before its owner proves it is theirs:
    a closed account (nothing else is checked), or a BOT account."""
    if closed:
        return [CLOSED_ACCOUNT]
    return [BOT_ACCOUNT] if is_bot else []


def needs_td(problems: Iterable[str]) -> bool:
    """Rule 2.2 (II.B): true if any problem must go to the TD (an exception or a ToS
    review)."""
    return any(p not in HARD_REFUSALS for p in problems)


# --- who is the TD (rules 1.2, 1.4) -----------------------------------------------------------


def is_td(
    user_id: int,
    role_ids: Collection[int],
    *,
    td_user_ids: Collection[int],
    td_role_id: int | None,
) -> bool:
    """Rule 1.2 (I.B): the TD is a configured TD user id, or anyone holding the configured
    TD role (``role_ids`` is empty outside a server)."""
    if user_id in td_user_ids:
        return True
    return td_role_id is not None and td_role_id in role_ids


def may_enter(*, is_td: bool) -> bool:
    """Rule 1.4 (I.D): the TD does not take part, so the TD cannot register."""
    return not is_td


# --- rule II.A.2: which games count -----------------------------------------------------------


def last_second_before(moment: datetime) -> datetime:
    """Rule 2.1.2 (II.A.2): the last whole second strictly before ``moment``: an inclusive
    whole-second ``until`` that means "before ``moment``" on Lichess's search index."""
    whole = moment.replace(microsecond=0)
    return whole - timedelta(seconds=1) if whole == moment else whole


def played_rated(game: LichessGame, user_id: str) -> bool:
    """Rule 2.1.2 (II.A.2): the game was played to an end and changed ``user_id``'s rating
    ("played rated games"): rated, a finished status, and a ``ratingDiff`` for the player."""
    if not game.rated or not game.finished:
        return False
    color = game.color_of(user_id)
    diff = game.white_rating_diff if color == "white" else game.black_rating_diff
    return color is not None and diff is not None


def counts_before_cutoff(game: LichessGame, user_id: str, cutoff: datetime) -> bool:
    """Rule 2.1.2 (II.A.2): the game counts towards the minimum: played rated
    (:func:`played_rated`) and played before the cut-off, i.e. its last move is strictly
    before ``cutoff``."""
    _require_aware(cutoff, "cutoff")
    return game.last_move_at < cutoff and played_rated(game, user_id)


# --- rule II.C.4: one person, one account -----------------------------------------------------

#: Registration states as the database stores them (db.models.RegistrationState values).
PENDING, APPROVED, REJECTED, WITHDRAWN = "pending", "approved", "rejected", "withdrawn"
_ACTIVE = frozenset({PENDING, APPROVED})


@dataclass(frozen=True)
class EntryHolder:
    """Rule 2.3.4 (II.C.4): a player row that already links a Discord user or a Lichess
    account: its Lichess id, its Discord user, whether it is pre-seeded, and its
    registration's state (None without a registration)."""

    lichess_id: str
    discord_id: int | None
    pre_seeded: bool
    state: str | None


DoubleEntry = Literal[
    "second_account",
    "rejected_with_other_account",
    "pre_seeded",
    "account_of_another_user",
    "already_registered",
    "rejected",
]


def double_entry(
    *,
    discord_id: int,
    lichess_id: str,
    mine: EntryHolder | None,
    theirs: EntryHolder | None,
) -> DoubleEntry | None:
    """Rule 2.3.4 (II.C.4), rule 2.3.5 (II.C.5): why ``discord_id`` may not enter with the
    Lichess account ``lichess_id``, or None if they may.

    ``mine`` is the player the Discord user is linked to, ``theirs`` the player of the
    Lichess account. A second account of a registered person is refused (and the TD told:
    ``second_account``, ``account_of_another_user``); after a rejection no other account
    may enter; a withdrawn registration may enter again, with any account.
    """
    if mine is not None and mine.lichess_id != lichess_id:
        if mine.state in _ACTIVE:
            return "second_account"
        if mine.state == REJECTED:
            return "rejected_with_other_account"
    if theirs is None:
        return None
    if theirs.pre_seeded:
        return "pre_seeded"
    if theirs.discord_id is not None and theirs.discord_id != discord_id:
        return "account_of_another_user"
    if theirs.state in _ACTIVE:
        return "already_registered"
    if theirs.state == REJECTED:
        return "rejected"
    return None


# --- rule II.B: the TD's decision ----------------------------------------------------------

TDDecisionProblem = Literal["already_decided", "exception_needs_reason", "rejection_needs_comment"]


def td_decision_problem(
    *, state: str, approve: bool, problems: Collection[str], reason: str | None
) -> TDDecisionProblem | None:
    """Rule 2.2 (II.B), rules 2.3.1-2.3.3 (II.C.1-3): why the TD's ruling on a registration
    cannot be recorded, or None. Only a pending registration is decided; approving one
    with problems is an exception and needs a reason; a rejection needs a comment for the
    player (rule 2.3.5 (II.C.5): it is final, so the player must read why)."""
    if state != PENDING:
        return "already_decided"
    if approve and problems and not reason:
        return "exception_needs_reason"
    if not approve and not reason:
        return "rejection_needs_comment"
    return None


# --- explanations ------------------------------------------------------------


def _fmt_instant(value: datetime) -> str:
    """Format an instant in UTC to the minute, as the rules state cut-offs."""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def describe(
    problem: str,
    facts: AccountFacts | None = None,
    req: EligibilityRequirements = _DEFAULT_REQUIREMENTS,
) -> str:
    """Rule 2.1 (II.A), rule 2.3 (II.C): one-line human explanation of a problem code, for
    players and the TD.

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
    """Rule 2.1 (II.A): Lichess usernames are 2 to 30 letters, digits, `_` or `-`; anything
    else is a typo."""
    return bool(_USERNAME.match(name))
