"""Discipline (rules VI.F and VIII): forfeits, disqualifications, reinstatements.

A shared package: incidents and fair play call its in-transaction functions
(`service.forfeit_match`, `disqualify`, `reinstate`); what they decide reaches the rounds as a
`PlayerForfeited` event. `td.py` and `td_cog.py` are the TD's /td discipline commands.
Rules: `bot.rules.withdrawals`.
"""
