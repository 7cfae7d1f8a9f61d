"""Wording of discipline that players and the TD read: forfeits (rule VI.F), what a
withdrawal or a disqualification means for each match (rule VIII), reinstatements, and the
refusals of the TD's commands."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

WITHDREW, DISQUALIFIED = "withdrew", "was disqualified"


def opponent_left(left: str, how: str, place: str, kind: str) -> str:
    """To an opponent of the player who left: what happened to their match (`place`:
    "Swiss round 3, board 10"), and why."""
    if kind == "unfinished":
        return (
            f"🏳️ {left} {how}: you win your match against them ({place}) by forfeit "
            "(rule VIII.A.1). It counts in the standings at once; nothing to play."
        )
    if kind == "engine":
        return (
            f"⚖️ {left} {how} for an engine mark: your match against them ({place}) is "
            "scored as a win for you (rule VIII.A.2)."
        )
    return (
        f"🚪 {left} {how}: your match against them ({place}) is disregarded, and the table "
        "is recomputed without them (rule VIII.B)."
    )


def walkovers(changes: Sequence[tuple[str, str, str]]) -> str:
    """What a withdrawal or disqualification did to each match, for everyone: `(opponent,
    place, kind)` as `opponent_left`'s kinds. Empty when no match changed."""
    said = []
    for opponent, place, kind in changes:
        if kind == "unfinished":
            said.append(f"**{opponent}** wins their match ({place}) by forfeit (rule VIII.A.1)")
        elif kind == "engine":
            said.append(f"**{opponent}**'s match ({place}) is scored as their win (VIII.A.2)")
        else:
            said.append(f"the match with **{opponent}** ({place}) is disregarded (VIII.B)")
    return (" " + "; ".join(said) + ".") if said else ""


def forfeit_reason(how: str) -> str:
    """The audit log's reason for an unfinished match given to the opponent."""
    return f"opponent {how} (rule VIII.A.1)"


def forfeit_decided(place: str, winner: str, loser: str, reason: str) -> str:
    """A forfeit, told once to both players: `winner` and `loser` are mentions; `place`
    names the match as people do ("Swiss round 3, board 2"), never by its row id."""
    return f"{place}: {winner} wins by forfeit against {loser} ({reason})."


# --- refusals ----------------------------------------------------------------------------------


def no_player_id(player_id: int) -> str:
    """A player row that vanished under a command (no name to tell): its id is never shown."""
    return "That player is no longer in the championship's records."


def no_player_called(name: str) -> str:
    """Quotes at most 40 characters of what was typed: a refusal must fit in one message."""
    shown = name if len(name) <= 40 else name[:40] + "…"
    return f"There is no player called {shown!r}."


def no_such_match(match_id: int) -> str:
    """Echoes the match value the TD typed instead of picking it from the list."""
    return f"There is no match {match_id} with two players: pick the match from the list."


def not_in_match(player: str | None, match: str) -> str:
    """`match`: its place and players (`match_label`); `player` None: no such player."""
    return f"{player or 'The winner given'} does not play {match}."


def match_decided(match: str) -> str:
    return f"{match} already has a result."


def already_disqualified(name: str) -> str:
    return f"{name} is already disqualified."


def no_longer_in(name: str) -> str:
    return f"{name} is no longer in the championship."


def not_disqualified(name: str) -> str:
    return f"{name} is not disqualified."


def reason_needed() -> str:
    return "Give a reason: it goes into the audit log."


def other_account_needed() -> str:
    return "Name the other account of the same person in `also`."


def two_accounts_reason(reason: str) -> str:
    return f"{reason} (two accounts of one person, rule II.C.4)"


# --- forfeits (rule VI.F) ----------------------------------------------------------------------


def forfeits_reason(forfeits: int) -> str:
    """The audit log's reason for a disqualification by forfeits."""
    return f"rule VI.F: {forfeits} forfeited matches"


def forfeits_public(forfeits: int) -> str:
    """Why, as the announcement and the player read it."""
    return f"forfeited {forfeits} matches (rule VI.F)"


def forfeit_counted_td(decided: str, loser: str, forfeits: int, limit: int) -> str:
    """To the TD: a forfeit that did not disqualify, and how far the loser is from it."""
    return (
        f"{decided} {loser} now has {forfeits} forfeit(s); "
        f"{limit} disqualify (rule VI.F). Reverse with /td round set-score if needed."
    )


# --- disqualification, withdrawal, reinstatement (rule VIII) -------------------------------------

ENGINE_PUBLIC = "a Lichess engine mark (rules VII.C, VIII.A.2)"
PLAIN_PUBLIC = "rule VIII"
ADJUDICATED_WHY = (
    "engine mark of a player: finished match given to the opponent (rule VIII.A.2); "
    "game scores kept"
)
DISREGARDED_WHY = "a player left the Candidates: all their matches are disregarded (rule VIII.B)"


def _matches(places: Iterable[str]) -> str:
    return "; ".join(places) or "none"


def _notes(notes: Sequence[str]) -> str:
    return "".join(f"\n• {n}" for n in notes)


def disqualified_public(name: str, tournament: str, why: str) -> str:
    return f"⛔ **{name}** is disqualified from the {tournament}: {why}."


def disqualified_dm(tournament: str, why: str) -> str:
    return (
        f"You have been disqualified from the {tournament}: {why}. "
        "Contact the tournament director if you think this is a mistake."
    )


def disqualified_td(name: str, reason: str, changed: Iterable[str], notes: Sequence[str]) -> str:
    """`reason` is the TD's (or the bot's), already quoted; `changed` the matches by place
    (never a row id: issue 32)."""
    return (
        f"⛔ {name} is disqualified. Reason: {reason}. "
        f"Matches changed: {_matches(changed)}."
        + _notes(notes)
        + f"\nReverse with `/td discipline reinstate player:{name}`."
    )


def withdrawn_public(name: str, tournament: str, changes: str = "") -> str:
    """`changes`: `walkovers`, the walkover it caused and who wins it."""
    return f"🚪 **{name}** has withdrawn from the {tournament} (rule VIII).{changes}"


def withdrawn_td(name: str, changed: Iterable[str], notes: Sequence[str]) -> str:
    return f"🚪 {name} withdrew. Matches changed: {_matches(changed)}." + _notes(notes)


def swiss_finished_not_adjudicated() -> str:
    return (
        "The qualification is finished: its results were NOT adjudicated (rule VIII.A.2); "
        "correct them by hand if needed."
    )


def candidates_finished_kept() -> str:
    return "The Candidates are finished: their results were left as they are."


def final_replaced() -> str:
    return (
        "Final: the place of the one who left is filled as the withdrawals rules say "
        "(2019, rule VIII.C: the Candidates runner-up, the Final starting again; from 2020: "
        "the players below move up); the rounds' note says who."
    )


def reinstated_public(name: str) -> str:
    return f"✅ The tournament director has reversed the disqualification of **{name}**."


def reinstated_dm(tournament: str) -> str:
    return f"The tournament director reversed your disqualification from the {tournament}."


def reinstated_td(name: str, restored: Sequence[str], not_restored: Sequence[str]) -> str:
    extra = (
        " Not restored (their round is closed; fix with /td round set-score if needed): "
        f"{_matches(not_restored)}."
        if not_restored
        else ""
    )
    return (
        f"{name} is reinstated. Restored matches: {_matches(restored)}.{extra} "
        "They are paired again from the next round on."
    )


# --- the TD's commands ---------------------------------------------------------------------------


def reinstate_reply(name: str) -> str:
    return f"{name} is reinstated; the announcement and your summary are on their way."


def disqualify_reply(names: str, *, two: bool) -> str:
    verb = "are" if two else "is"
    return f"{names} {verb} disqualified; rule VIII has been applied to their results."
