"""The server's setup from Discord: `/td setup` picks the channels and the TD role."""
