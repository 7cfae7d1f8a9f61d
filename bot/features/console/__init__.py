"""The TD's console: the audit log in Discord, /help, and the championship's export and
standings in the terminal.

`service.py` (/td console audit: the audit log filtered by player or match), `snapshot.py`
(every table read in one session), `standings.py` (the table of each stage from a
snapshot), `export.py` (`acwc export`: JSON or CSV), `types.py`, `text.py` (the replies,
/help's rule of each command, the terminal tables), `cog.py` (/help), `td_cog.py`
(/td console). Rules: `bot.rules.swiss`, `bot.rules.candidates` (the tables of rules
III.E.5 and III.F.3).
"""
