"""A player's own schedule: /schedule lists their upcoming and past matches and attaches an
iCalendar file of their agreed match times; the calendar feeds serve the same events on the
web, for the whole championship and for each player (issue 33).

`types.py` (what the use case returns), `reads.py` (the queries both share), `service.py`
(one short read of every match of the player), `ics.py` (the one calendar builder, with the
`icalendar` package: one event per agreed match, a stable UID per match and a SEQUENCE that
grows with every change), `text.py` (the reply), `cog.py` (/schedule), `feed_read.py` (the
feeds' matches and their versions, from the audit log), `feed_text.py` (the feeds' words),
`feeds.py` (the routes the wiring gives the web feature). Rules: none; it only reads what
negotiation and the results recorded (an agreed time, its `match_time_set` audit rows, the
games, the results).
"""
