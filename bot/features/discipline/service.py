"""Forfeits, disqualifications and reinstatements (rules VI.F and VIII), inside the caller's
transaction.

Other services call these three functions; each changes the stored results the way rule VIII
says, records why in the audit log, queues the announcements and the TD's note, and lets the
rounds service close a round whose last open match just got decided.

How the results are stored after a disqualification:

* Swiss (VIII.A.1): the player is no longer paired (pairing skips ``disqualified_at``); an
  unfinished match becomes FORFEITED with ``forfeit_winner_id`` = the opponent, points 1/0.
* Swiss with an engine mark (VIII.A.2): every finished Swiss match of theirs gets points
  0 for them and 1 for the opponent (a bye of theirs 0); the game scores are kept.
* Candidates (VIII.B): every match of theirs becomes FORFEITED with ``forfeit_winner_id``
  None and no points: **a FORFEITED match without a winner is disregarded** and the
  Candidates standings must skip it.
* Final (VIII.C): discipline publishes `PlayerLeft`; the rounds service
  (`_on_player_left`) puts the Candidates runner-up in the place of the one who left and
  starts the Final again between the two.

Every changed match is snapshotted in the ``player_disqualified`` audit entry (``undo``), so
``reinstate`` can put back what is still safe to put back and lists the rest for the TD.
A forfeit counts towards rule VI.F when the match is FORFEITED with a winner other than the
player; a match forfeited *because of* a disqualification is marked ``by_disqualification`` in
its audit entry and does not count (the player is out already).
"""

from __future__ import annotations

from bot.features.discipline.common import count_forfeits
from bot.features.discipline.disqualification import disqualify, reinstate, withdraw
from bot.features.discipline.forfeits import forfeit_match

__all__ = ["count_forfeits", "disqualify", "forfeit_match", "reinstate", "withdraw"]
