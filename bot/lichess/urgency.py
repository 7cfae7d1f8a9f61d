"""Lichess calls a person is waiting for: they never wait out a 429 pause.

After a 429 the client sends nothing for a full minute (docs/ARCHITECTURE.md, "Lichess").
A periodic job can wait that out; a player who typed a command cannot: Discord gives an
interaction 3 s and the player sees "thinking…". So every interaction runs with
`person_waiting` set (cogs: the command tree's check and the buttons' `guarded`), and the
client, instead of sleeping, raises `LichessBusy` with the seconds left; the reply says
when to try again.
"""

from __future__ import annotations

from contextvars import ContextVar

#: True while the running task answers a person (an interaction): a context variable, so it
#: follows the command's task and nothing else.
PERSON_WAITING: ContextVar[bool] = ContextVar("acwc_lichess_person_waiting", default=False)


def person_waiting() -> None:
    """Mark the running task (one interaction's) as answering a person."""
    PERSON_WAITING.set(True)
