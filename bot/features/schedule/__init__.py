"""A player's own schedule: /schedule lists their upcoming and past matches and attaches an
iCalendar file of their agreed match times.

`types.py` (what the use case returns), `service.py` (one short read of every match of the
player), `ics.py` (the calendar, built with the `icalendar` package: one event per agreed
match, a stable UID per match and a SEQUENCE that grows with every change of its time),
`text.py` (the reply), `cog.py` (/schedule). Rules: none; it only reads what negotiation
and the results recorded (an agreed time, its `match_time_set` audit rows, the games).
"""
