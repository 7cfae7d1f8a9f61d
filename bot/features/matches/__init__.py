"""What every match-day feature shares: the match with its round and players
(`context.py`), where it stands (`types.py`, `text.py`: scores, game links, the scoreboard),
the round's pairings post that shows every match (`round_post.py`) and the game in
progress the game stream announced (`live_games.py`). No commands.
"""
