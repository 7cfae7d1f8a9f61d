"""Registration (rule II): ownership proof, entry checks, the seeding rating (III.E.3)
and the TD's decision.

`core.py`, `signup.py` (players), `td.py` (TD), combined in `service.py` (with the timer
of the configured close); `field_post.py` (the field made public when registration closes);
`player_check.py` (shared with `acwc check-player`), `types.py`, `text.py`, `cog.py`
(/register, /status, /withdraw), `td_cog.py` (/td registration). Rules: `bot.rules.eligibility`,
`bot.rules.seeding`.
"""
