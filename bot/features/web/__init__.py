"""The championship on the web (issue 33): public pages with JSON twins, calendar feeds and
"Log in with Lichess" for registration, served by aiohttp inside `acwc run` (`web.enabled`)
or alone and read-only by `acwc site`. Nothing private is served: no cheat report, no
unrevealed bid, no DM, no TD-only note, no Discord id, no token.

`deps.py` (what the wiring gives), `server.py` (the application, its headers, `WebServer`),
`routes.py` (every part of the site), `public.py` (the public read: the console's read model
filled with only what may be shown, one read per database state), `model.py` (the read
indexed and named, readable keys for the URLs), `views.py` (each page as one plain value,
which is also its JSON twin), `bracket.py` (the bracket of the match stages from the
format), `pages.py` (the routes and handlers: HTML or JSON, ETag), `site_command.py`
(`acwc site`), `text.py` (the words). Rules: `bot.rules.tiebreaks` and
`bot.rules.candidates` through the console's standings.
"""
