"""Who may do what: every slash command and every kind of button, run through the real
command tree by the TD, the two players of a match (A = Alice, B = Bob), another player
(Carol, in the other match) and an outsider (registered nowhere), with the expected outcome
of each cell.

One world for the module (a Swiss round: Alice v Bob, Carol v Dave; Alice has offered Bob a
time, offer #1; Bob has reported Carol, report #1). The buttons run first, then the commands,
top to bottom and each row left to right, so a row sees what the rows above it did (Bob takes
the offer with its button; the TD moves match #2, then records its score). A cell is `ok`
(answered, not refused) or the refusal the user must read (see REASONS); every refused cell
also leaves the database as it was. The rows are checked against the command tree and the
button kinds, so a new command or button without a row fails here."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from acwc_sim.harness import InteractionRecord
from cogs.common import IdButton
from tests.cogs.fuzz_world import (
    PLAYERS,
    STRANGER,
    TD,
    World,
    add_offer_and_report,
    assert_clear_private_answer,
    assert_refusal_changed_nothing,
    database_rows,
    open_world,
)
from tests.cogs.test_fuzz_components import message_with

ALICE, BOB, CAROL = (PLAYERS[i][0] for i in range(3))
COLUMNS = {"TD": TD, "A": ALICE, "B": BOB, "other": CAROL, "outsider": STRANGER}

# The refusal each code stands for: a part of the text the user reads.
REASONS = {
    "td-only": "Only the tournament director can use this command.",
    "td-decides": "Only the tournament director can decide on registrations.",
    "td-reports": "Only the tournament director can handle cheat reports.",
    "td-starts": "Only the tournament director can start the qualification.",
    "td-cancels": "Only the tournament director can cancel this preview.",
    "td-ties": "Only the tournament director can break this tie.",
    "td-rps": "Only the tournament director records the rock-paper-scissors winner.",
    "no-rps": "No Armageddon is waiting for a rock-paper-scissors winner",
    "not-player": "You are not a player in the championship.",
    "for-players": "Only players of the championship can submit games.",
    "td-no-play": "the TD cannot register",
    "swiss-on": "so registration is over: a player who enters now could never be paired",
    "no-reopen": "registration cannot reopen",
    "td-closes": "Only the tournament director can close registration.",
    "td-drops": "Only the tournament director can drop pending registrations.",
    "not-entered": "You have not registered, so there is nothing to withdraw.",
    "own-offer": "You made this offer yourself",
    "bobs-offer": "Only Bob can accept this offer.",
    "no-offer": "Your opponent has no open offer to accept.",
    "agreed": "Your match time is already agreed",
    "not-started": "Your match has not started yet",
    "no-time-yet": "no agreed time",
    "no-chooser": "Nobody chooses the time of this match",
    "not-yours": "This button belongs to another player.",
    "no-check": "This verification no longer exists.",
    "no-incident": "This report no longer exists.",  # a button: no row id shown (issue 32)
    "no-incident-td": "There is no incident 1: pick",  # echoes the value the TD typed
    "no-reg": "There is no registration 1.",
    "no-player": "There is no player called 'nobody'.",
    "no-game": "No recorded game abcdEFGH.",
    "no-tie": "There is no tie waiting for your decision.",
    "started": "The qualification has already started.",
    "round-open": "still has",
    "same-state": "The report is already investigating.",
    "has-time": "already has an agreed time",
    "not-dq": "is not disqualified.",
    "no-withdraw": "You have no active registration to withdraw.",
    "not-playing": "You have no match under way",
    "too-early": "a no-show can only be reported after that",
    "already-dq": "is already disqualified.",
}

# Buttons, by custom id; `form` = the button opens a form.
# Ids: offer #1 and report #1 exist; no incident, registration or ownership check does;
# withdraw names Alice; the mark buttons name player #1 (the pre-seeded champion).
# custom id             | TD          | A           | B           | other       | outsider
BUTTONS = """
acwc:offer:accept:1     | not-player  | own-offer   | ok          | bobs-offer  | not-player
acwc:reg:verify:1       | no-check    | no-check    | no-check    | no-check    | no-check
acwc:reg:withdraw:9201  | not-yours   | no-withdraw | not-yours   | not-yours   | not-yours
acwc:reg:approve:1      | no-reg      | td-decides  | td-decides  | td-decides  | td-decides
acwc:reg:reject:1       | form        | td-decides  | td-decides  | td-decides  | td-decides
acwc:swiss:publish:9101 | started     | td-starts   | td-starts   | td-starts   | td-starts
acwc:swiss:cancel:9101  | ok          | td-cancels  | td-cancels  | td-cancels  | td-cancels
acwc:swiss:close:9101   | started     | td-closes   | td-closes   | td-closes   | td-closes
acwc:swiss:drop:9101    | started     | td-drops    | td-drops    | td-drops    | td-drops
acwc:tie:1              | no-tie      | td-ties     | td-ties     | td-ties     | td-ties
acwc:armageddon:1       | form        | form        | form        | form        | form
acwc:armageddon-rps:1   | no-rps      | td-rps      | td-rps      | td-rps      | td-rps
acwc:inc:absent:1       | no-incident | no-incident | no-incident | no-incident | no-incident
acwc:inc:arrived:1      | no-incident | no-incident | no-incident | no-incident | no-incident
acwc:inc:claim:1        | no-incident | no-incident | no-incident | no-incident | no-incident
acwc:inc:resched:1      | no-incident | no-incident | no-incident | no-incident | no-incident
acwc:fp:investigating:1 | ok          | td-reports  | td-reports  | td-reports  | td-reports
acwc:fp:open:1          | ok          | td-reports  | td-reports  | td-reports  | td-reports
acwc:fp:dismissed:1     | form        | td-reports  | td-reports  | td-reports  | td-reports
acwc:fp:upheld:1        | form        | td-reports  | td-reports  | td-reports  | td-reports
acwc:fp:engine:1        | ok          | td-reports  | td-reports  | td-reports  | td-reports
acwc:fp:booster:1       | already-dq  | td-reports  | td-reports  | td-reports  | td-reports
"""

# Commands (their options are in OPTIONS).
# command                  | TD          | A           | B           | other       | outsider
COMMANDS = """
help                       | ok          | ok          | ok          | ok          | ok
status                     | ok          | ok          | ok          | ok          | ok
standings                  | ok          | ok          | ok          | ok          | ok
pairings                   | ok          | ok          | ok          | ok          | ok
report                     | form        | form        | form        | form        | form
register                   | td-no-play  | swiss-on    | swiss-on    | swiss-on    | swiss-on
withdraw                   | not-entered | not-entered | not-entered | not-entered | not-entered
match                      | not-player  | ok          | ok          | ok          | not-player
schedule                   | not-player  | ok          | ok          | ok          | not-player
accept                     | not-player  | no-offer    | no-offer    | no-offer    | not-player
offer                      | not-player  | agreed      | agreed      | ok          | not-player
choose                     | not-player  | agreed      | agreed      | no-chooser  | not-player
reschedule                 | not-player  | ok          | ok          | no-time-yet | not-player
game                       | for-players | not-started | not-started | not-playing | for-players
noshow                     | not-player  | too-early   | too-early   | no-time-yet | not-player
break                      | not-player  | not-started | not-started | not-started | not-player
left                       | not-player  | not-started | not-started | not-started | not-player
timezone                   | not-player  | ok          | ok          | ok          | not-player
notify                     | not-player  | ok          | ok          | ok          | not-player
td registration list       | ok          | td-only     | td-only     | td-only     | td-only
td registration show       | no-reg      | td-only     | td-only     | td-only     | td-only
td registration approve    | no-reg      | td-only     | td-only     | td-only     | td-only
td registration reject     | no-reg      | td-only     | td-only     | td-only     | td-only
td registration open       | no-reopen   | td-only     | td-only     | td-only     | td-only
td registration close      | ok          | td-only     | td-only     | td-only     | td-only
td round start             | started     | td-only     | td-only     | td-only     | td-only
td round publish           | round-open  | td-only     | td-only     | td-only     | td-only
td negotiation assign-time | ok          | td-only     | td-only     | td-only     | td-only
td negotiation fault       | has-time    | td-only     | td-only     | td-only     | td-only
td round set-score         | ok          | td-only     | td-only     | td-only     | td-only
td results void-game       | no-game     | td-only     | td-only     | td-only     | td-only
td armageddon rps          | no-rps      | td-only     | td-only     | td-only     | td-only
td incident overrule       | no-incident-td | td-only     | td-only     | td-only     | td-only
td fairplay reports        | ok          | td-only     | td-only     | td-only     | td-only
td fairplay report-state   | ok          | td-only     | td-only     | td-only     | td-only
td console audit           | ok          | td-only     | td-only     | td-only     | td-only
td discipline disqualify   | no-player   | td-only     | td-only     | td-only     | td-only
td discipline reinstate    | not-dq      | td-only     | td-only     | td-only     | td-only
td setup                   | ok          | td-only     | td-only     | td-only     | td-only
"""

OPTIONS: dict[str, dict[str, Any]] = {
    "choose": {"time": "sat 18:00"},
    "game": {"url": "https://lichess.org/abcdEFGH"},
    "offer": {"times": "thu 18:00"},
    "register": {"lichess_username": "Alice"},
    "reschedule": {"time": "fri 18:00"},
    "timezone": {"zone": "Europe/Berlin"},
    "notify": {"reminders": "off"},
    "td negotiation assign-time": {"match": 2, "time": "fri 20:00"},
    "td negotiation fault": {"match": 1, "player": "nobody"},
    "td round set-score": {"match": 2, "score_a": 5.5, "score_b": 4.5},
    "td results void-game": {"game": "abcdEFGH", "reason": "test"},
    "td armageddon rps": {"winner": "alice"},
    "td incident overrule": {"incident": 1, "reason": "test"},
    "td registration show": {"registration": 1},
    "td registration approve": {"registration": 1},
    "td registration reject": {"registration": 1, "comment": "no"},
    "td fairplay report-state": {"report": 1, "state": "investigating"},
    "td discipline disqualify": {"player": "nobody", "reason": "test"},
    "td discipline reinstate": {"player": "alice"},
}


def table(text: str) -> dict[str, dict[str, str]]:
    """`name | cell | cell ...` lines as {name: {column: cell}}, in the table's order."""
    rows: dict[str, dict[str, str]] = {}
    for line in text.strip().splitlines():
        name, *cells = (part.strip() for part in line.split("|"))
        assert len(cells) == len(COLUMNS), line
        assert all(cell in ("ok", "form") or cell in REASONS for cell in cells), line
        assert name not in rows, f"two rows for {name}"
        rows[name] = dict(zip(COLUMNS, cells, strict=True))
    return rows


def outcome(record: InteractionRecord) -> str:
    """What the cell shows: ok, form, or the code of the refusal the user read."""
    if record.refusal is None:
        opened = record.responses and record.responses[0].kind == "modal"
        return "form" if opened else "ok"
    found = [code for code, text in REASONS.items() if text in record.refusal]
    return found[0] if len(found) == 1 else f"refused: {record.refusal}"


@dataclass
class Results:
    """Every cell of both tables ({row: {column: outcome}}) and the tree's command names."""

    cells: dict[str, dict[str, str]]
    commands: list[str]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Results]:
    """Run every cell once, on one world."""
    for world in open_world(tmp_path_factory):
        add_offer_and_report(world)
        seen: dict[str, dict[str, str]] = {}
        for name in table(BUTTONS):
            seen[name] = {
                column: run_cell(world, name, user, press=True) for column, user in COLUMNS.items()
            }
        for name in table(COMMANDS):
            seen[name] = {
                column: run_cell(world, name, user, press=False) for column, user in COLUMNS.items()
            }
        yield Results(seen, [command.qualified_name for command in world.commands])


def run_cell(world: World, name: str, user: int, *, press: bool) -> str:
    before = database_rows(world.db)
    if press:
        record = world.run(world.h.press(name, user=user, message=message_with(name)))
    else:
        record = world.run(world.h.slash(name, user=user, options=OPTIONS.get(name, {})))
    what = f"{name} by {user}"
    assert_clear_private_answer(record, what)
    if record.refusal is not None:
        assert_refusal_changed_nothing(record, before, database_rows(world.db), what)
    return outcome(record)


def test_every_command_and_button_kind_has_a_row(results: Results) -> None:
    assert sorted(table(COMMANDS)) == sorted(results.commands)
    kinds = {name.rsplit(":", 1)[0] for name in table(BUTTONS)}
    assert kinds == {kind.prefix for kind in IdButton.kinds}


@pytest.mark.parametrize("name", list(table(BUTTONS)))
def test_button(results: Results, name: str) -> None:
    assert results.cells[name] == table(BUTTONS)[name]


@pytest.mark.parametrize("name", list(table(COMMANDS)))
def test_command(results: Results, name: str) -> None:
    assert results.cells[name] == table(COMMANDS)[name]
