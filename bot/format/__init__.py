"""The championship format as data (`model.py`), the presets shipped with the bot
(`presets.py`, the YAML files in `preset_files/`), the old per-stage settings as a view of the
format (`legacy.py`), a new edition's configuration written from a preset (`edition.py`) and
the Swiss stage the engine runs (`swiss.py`).

Configuration layer: like `bot.config`, it may import `bot.rules` (for the catalogues' keys)
but no feature, database or Discord code.
"""
