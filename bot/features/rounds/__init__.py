"""The rounds (rule IV) and the Swiss (rule III.E): start, pair and publish rounds, close
them, the standings, the round deadlines.

`progress.py` (the round life cycle), `service.py` (use cases, deadlines, event answers),
`publisher.py` (the pairings post and threads in Discord), `types.py`, `text.py`, `cog.py`
(/standings), `td_cog.py` (/td round). Rules: `bot.rules.swiss`, `bot.rules.swiss_table`.
"""
