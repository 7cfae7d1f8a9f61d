"""Fair play (rule VII) as pure functions: report checks, report states, accusation heuristic.

Nothing here punishes anyone: the heuristic only decides whether a public message is worth
showing to the TD (rule VII.A), and the report states only say which moves are allowed.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from bot.rules.withdrawals import BOOSTER, ENGINE

__all__ = [
    "DESCRIPTION_MAX",
    "FINAL_STATES",
    "KEYWORDS",
    "LINKS_MAX",
    "STATES",
    "Accusation",
    "MarkRefusal",
    "TransitionProblem",
    "close_names",
    "find_accusation",
    "has_keyword",
    "link_problems",
    "mark_leave_reason",
    "mark_refusal",
    "new_account_mark",
    "split_links",
    "transition_problem",
]

DESCRIPTION_MAX = 1500
LINKS_MAX = 1000

# Report states, as the DB stores them (db.models.ReportState values).
OPEN, INVESTIGATING, DISMISSED, UPHELD = "open", "investigating", "dismissed", "upheld"
STATES = (OPEN, INVESTIGATING, DISMISSED, UPHELD)
# A report in one of these has been handled; the reporter is told so, once.
FINAL_STATES = frozenset({DISMISSED, UPHELD})

_LICHESS_URL = re.compile(r"^https?://(?:www\.)?lichess\.org(?:/[A-Za-z0-9/_#?=&.%@-]*)?$")
_LINK_SPLIT = re.compile(r"[\s,;]+")


def split_links(text: str) -> list[str]:
    """Rule 7.1 (VII.A): the links a reporter typed, separated by spaces, commas, semicolons
    or new lines."""
    return [part.strip("<>") for part in _LINK_SPLIT.split(text.strip()) if part.strip("<>")]


def link_problems(links: Iterable[str]) -> list[str]:
    """Rule 7.1 (VII.A): the links that are not lichess.org URLs (empty when every link is fine)."""
    return [link for link in links if not _LICHESS_URL.match(link)]


TransitionProblem = Literal["unknown_state", "same_state", "upheld_is_final"]


def transition_problem(current: str, new: str) -> TransitionProblem | None:
    """Rule 7.2 (VII.B): why a report cannot move from `current` to `new`, or None if it can.

    An upheld report has led to a disqualification; undoing it is a reversal of the
    disqualification, not a change of the report's state.
    """
    if new not in STATES:
        return "unknown_state"
    if current == new:
        return "same_state"
    if current == UPHELD:
        return "upheld_is_final"
    return None


# --- rule VII.C: a Lichess mark during the championship ----------------------------------------

MarkRefusal = Literal["no_player", "already_disqualified"]


def new_account_mark(
    *, tos_violation: bool, closed: bool, already_marked: bool, disqualified: bool
) -> bool:
    """Rule 7.3 (VII.C): an account Lichess marked for a Terms of Service violation (or
    closed, which is how Lichess often ends such an account) during the championship is
    shown to the TD, once per player, unless the player is already disqualified."""
    return (tos_violation or closed) and not already_marked and not disqualified


def mark_refusal(*, exists: bool, disqualified: bool) -> MarkRefusal | None:
    """Rule 7.3 (VII.C): the TD's one-click disqualification needs a player still in."""
    if not exists:
        return "no_player"
    return "already_disqualified" if disqualified else None


def mark_leave_reason(*, engine: bool) -> str:
    """Rule 7.3 (VII.C), rule 8.1.2 (VIII.A.2): the mark disqualifies either way; only an
    engine mark (not a booster mark) adjudicates the finished Qualification matches. The
    reason as :mod:`bot.rules.withdrawals` reads it."""
    return ENGINE if engine else BOOSTER


def close_names(typed: str, names: Iterable[str], limit: int = 3) -> list[str]:
    """Rule 7.1 (VII.A): participants whose name looks like what was typed, best first (for a
    clear refusal)."""
    by_lower = {name.lower(): name for name in names}
    lowered = typed.strip().lower()
    found = difflib.get_close_matches(lowered, list(by_lower), n=limit, cutoff=0.6)
    starts = [key for key in by_lower if lowered and key.startswith(lowered) and key not in found]
    return [by_lower[key] for key in (found + starts)[:limit]]


# --- the public-accusation heuristic (rule VII.A) -------------------------------------------

# Word stems: a word counts when it starts with one of these ("cheater", "engines", ...).
KEYWORDS = (
    "cheat",
    "engine",
    "stockfish",
    "boost",
    "sandbag",
    "computer",
    "fairplay",
    "tosviolation",
)
# Exact words only (too short or too common to match as stems).
EXACT_KEYWORDS = frozenset({"sf", "sf14", "sf15", "fishy", "cheats", "banned", "marked"})
# How many words apart a keyword and a name may be.
NEAR = 8

_TOKEN = re.compile(r"<@!?\d+>|[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Accusation:
    """Rule 7.1 (VII.A): a message that names participants close to cheating words."""

    names: tuple[str, ...]  # participants named, as given in `aliases` values
    keywords: tuple[str, ...]  # the words that triggered it


def _tokens(text: str) -> list[str]:
    return [t.lower().replace("<@!", "<@") for t in _TOKEN.findall(text)]


def _is_keyword(token: str) -> bool:
    return token in EXACT_KEYWORDS or any(token.startswith(stem) for stem in KEYWORDS)


def has_keyword(text: str) -> bool:
    """Rule 7.1 (VII.A): a cheap first pass: does the text contain any cheating word at all?"""
    return any(_is_keyword(token) for token in _tokens(text))


def find_accusation(
    text: str, aliases: Mapping[str, str], *, near: int = NEAR
) -> Accusation | None:
    """Rule 7.1 (VII.A): participants named within `near` words of a cheating word, or None.

    `aliases` maps what may appear in a message (a Lichess name, a `<@discord id>`
    mention; any case) to the participant's display name.
    """
    tokens = _tokens(text)
    lowered = {alias.lower().replace("<@!", "<@"): name for alias, name in aliases.items()}
    keyword_at = [i for i, token in enumerate(tokens) if _is_keyword(token)]
    if not keyword_at:
        return None
    names: list[str] = []
    keywords: list[str] = []
    for index, token in enumerate(tokens):
        name = lowered.get(token)
        if name is None:
            continue
        close = [k for k in keyword_at if abs(k - index) <= near]
        if not close:
            continue
        if name not in names:
            names.append(name)
        for k in close:
            if tokens[k] not in keywords:
                keywords.append(tokens[k])
    if not names:
        return None
    return Accusation(names=tuple(names), keywords=tuple(keywords))
