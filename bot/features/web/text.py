"""Every word the public pages show that is not the championship's own data (names come
from the config and the format)."""

from __future__ import annotations

from datetime import datetime

#: Each Swiss tiebreak of the format's chain (bot.rules.tiebreaks_swiss.SwissTiebreak):
#: its column head and its line in the legend (rule III.E.5; later editions' rules pages).
SWISS_TIEBREAKS: dict[str, tuple[str, str]] = {
    "wins_against_tied": ("WvT", "matches won against the players on the same points"),
    "median_buchholz": (
        "MBH",
        "Median-Buchholz: the opponents' points without the best and the worst",
    ),
    "cumulative": ("Cum", "cumulative: the running score after each round, summed"),
    "kashdan": ("Kash", "Kashdan: 4 per match won, 2 per match tied, 1 per match lost"),
    "sonneborn_berger": (
        "SB",
        "Sonneborn-Berger: the points of the opponents beaten, half of those tied with",
    ),
    "seed": ("Seed", "the seed in the Qualification (1 is best): parts every tie left"),
}
POINTS = ("Pts", "points: 1 per match won, ½ per match tied")
ROBIN_COLUMNS = (
    ("MP", "match points: 1 per match won, ½ per match tied"),
    ("GP", "game points: the games' points over all the pool's matches"),
    ("M", "matches counted (a match a withdrawn player left unplayed is not)"),
)
RANK = ("No", "the place in this table")
WITHDRAWN = "left the championship"
NOT_FOUND = "Not found"
NOT_FOUND_TEXT = "There is no such page in this championship."

STATE_WORDS = {
    "negotiating": "time not agreed yet",
    "scheduled": "time agreed",
    "in_progress": "being played",
    "finished": "finished",
    "forfeited": "forfeited",
    "bye": "bye",
    "cancelled": "cancelled",
    "planned": "not started",
    "running": "under way",
    "not_started": "not started",
    "published": "under way",
    "pending": "not published yet",
}

RULE_WORDS = {
    "registered": "registered",
    "top": "top {place} of {source}",
    "places": "place {place} of {source}",
    "pool_places": "place {place} of {pool}",
    "winners": "won in {source}",
    "losers": "lost in {source}",
    "pre_seeded": "pre-seeded",
}


def utc(when: datetime | None) -> str:
    """A time as every page writes it (the script shows it in the reader's own zone)."""
    return "" if when is None else f"{when:%a %d %b %Y, %H:%M} UTC"


def state(word: str) -> str:
    return STATE_WORDS.get(word, word.replace("_", " "))


def score(value: float) -> str:
    """1, 2½, ½: a half point as the tables write it."""
    whole, half = int(value), value % 1 == 0.5
    if not half:
        return f"{value:g}"
    return f"{whole}½" if whole else "½"


def entry_rule(rule: str, source: str, place: int | None, pool: str | None) -> str:
    return RULE_WORDS.get(rule, rule).format(place=place, source=source, pool=pool or source)


def home_title(name: str) -> str:
    return name


def stage_title(name: str) -> str:
    return name


def round_title(stage: str, number: int) -> str:
    return f"{stage} · round {number}"


def round_head(number: int, total: int | None) -> str:
    return f"Round {number}" + (f" of {total}" if total else "")


def player_title(name: str) -> str:
    return name


def field_title() -> str:
    return "The field"


def field_hidden() -> str:
    return "The field is made public when registration closes."


def champion_title() -> str:
    return "The champion"


def no_champion_yet() -> str:
    return "The title is not decided yet."


def champion_line(name: str, tournament: str) -> str:
    return f"{name} is the {tournament} champion."


def registration_open(closes: datetime) -> str:
    return f"Registration is open until {utc(closes)}."


def registration_not_open(opens: datetime) -> str:
    return f"Registration opens {utc(opens)}."


def waiting_for_round_one() -> str:
    return "Registration is closed; round 1 is published soon."


def next_stage(name: str, after: list[str]) -> str:
    if not after:
        return f"Next: {name}."
    return f"Next: {name}, once {' and '.join(after)} {'is' if len(after) == 1 else 'are'} over."


def round_ends(row: str, number: int, deadline: datetime) -> str:
    return f"{row} round {number} ends {utc(deadline)}."


def bye() -> str:
    return "bye"


def seat_pre_seeded(role: str | None) -> str:
    return {"champion": "the previous champion", "runner_up": "the previous runner-up"}.get(
        role or "", "pre-seeded"
    )


def game_result(white_points: float) -> str:
    return {1.0: "1–0", 0.0: "0–1"}.get(white_points, "½–½")
