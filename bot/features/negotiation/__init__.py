"""Match-time negotiation (rule V): offers, acceptance, reschedules, the TD's rulings and
the deadlines.

`agreement.py` (the one agreed time), `offers.py` (players), `zones.py` (a player's own
time zone), `td.py` (TD), `deadlines.py` (due actions), combined in `service.py`; `types.py`,
`text.py`, `cog.py` (/match, /offer, /accept, /reschedule, /choose, /timezone), `td_cog.py`
(/td negotiation). Rules:
`bot.rules.negotiation`, `bot.rules.timeinput`.
"""
