"""Match-time negotiation (rule V): offers, acceptance, reschedules, the TD's rulings and
the deadlines.

`agreement.py` (/accept and the one agreed time), `common.py` (what the other use cases
share: `TimeChecks`, the typed times read and checked, and plain functions), `offers.py`
(players), `zones.py` (a player's own time zone), `notify.py` (reminder DMs), `td.py` (TD),
`deadlines.py` (due actions): each a plain class given what it holds (`Agreements`,
`TimeChecks`) by `bot.wiring`; what other features import is re-exported in `service.py`;
`types.py`, `text.py` (the players' wording), `td_text.py` (the TD's), `cog.py` (/match, /offer,
/accept, /reschedule, /choose, /timezone, /notify), `td_cog.py` (/td negotiation).
Rules: `bot.rules.negotiation`, `bot.rules.timeinput`, `bot.rules.week` (the format's week),
`bot.rules.no_agreement` (what no offers or no fault gives).
"""
