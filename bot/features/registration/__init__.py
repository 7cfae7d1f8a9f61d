"""Registration (rule II): ownership proof, entry checks, the seeding rating (III.E.3)
and the TD's decision.

`core.py` (`Registrations`, the window and the registrations read; `EntryChecks`, the
Lichess checks and one account per player), `signup.py` (`SignUp`, players), `td.py`
(`Decisions`, TD), each a plain class given what it holds by `bot.wiring`
(`build_registration`); `service.py` (`RegistrationService`, `bot.svc.registration`: holds
them, hands each command to its own, and runs the timer of the configured close);
`field_post.py` (the field made public when registration closes); `player_check.py` (shared
with `acwc check-player`), `types.py`, `text.py`, `cog.py` (/register, /status, /withdraw),
`td_cog.py` (/td registration); "Log in with Lichess" (issue 33): `login.py` (the web
routes), `login_links.py` (the single-use links), `login_oauth.py` (Lichess's OAuth),
`login_limit.py` (the rate limit), `login_text.py`. Rules: `bot.rules.eligibility`,
`bot.rules.seeding`.
"""
