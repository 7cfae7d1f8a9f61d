"""Match-day incidents (rule VI): no-shows, breaks, players who left, the TD's overrule.

`core.py` (shared context and Lichess checks), `noshow.py`, `breaks.py`, `td.py`, combined
in `service.py`; `types.py`, `text.py`, `cog.py` (/noshow, /break, /left and their
buttons), `td_cog.py` (/td incident).
"""
