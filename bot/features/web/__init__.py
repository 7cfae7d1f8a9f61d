"""The championship on the web (issue 33): public pages with JSON twins, calendar feeds and
"Log in with Lichess" for registration, served by aiohttp inside `acwc run` (`web.enabled`)
or alone and read-only by `acwc site`. Nothing private is served: no cheat report, no
unrevealed bid, no DM, no TD-only note, no Discord id, no token."""
