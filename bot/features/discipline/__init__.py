"""Discipline (rules VI.F and VIII): forfeits, disqualifications, reinstatements.

A shared package: incidents and fair play call its in-transaction functions
(`service.forfeit_match`, `disqualify`, `reinstate`); what they decide reaches the rounds as a
`PlayerForfeited` event. `ruled_draw.py` records a match ruled a draw when its negotiation
failed (`format.no_offers`, `format.no_fault`, called by negotiation), with its forfeits,
and publishes `MatchFinished`. `td.py` and `td_cog.py` are the TD's /td discipline commands.
Rules: `bot.rules.withdrawals`, `bot.rules.match_conduct`, `bot.rules.no_agreement`.
"""
