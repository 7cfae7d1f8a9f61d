"""Fair play (rule VII): private cheat reports, the TD's handling of them, the periodic
Lichess account check and the watch for public accusations.

`service.py` (use cases), `types.py`, `text.py`, `cog.py` (/report, the TD's buttons),
`td_cog.py` (/td fairplay). Rules: `bot.rules.fairplay`.
"""
