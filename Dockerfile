# Slim image that runs the bot as a non-root user; the SQLite database lives in /data.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATABASE_URL=sqlite+aiosqlite:////data/acwc.sqlite3

RUN useradd --create-home --uid 10001 acwc && mkdir /data && chown acwc:acwc /data

WORKDIR /app
COPY pyproject.toml README.md constraints.txt ./
COPY bot ./bot
COPY cogs ./cogs
COPY db ./db
COPY migrations ./migrations
# The bot only: the simulator (sim/, a distribution of its own) stays out of the image;
# `acwc simulate` here says how to add it.
RUN pip install -c constraints.txt .

USER acwc
VOLUME ["/data"]
# The public site (`web.enabled`, `web.port`; `web.host: 0.0.0.0` in the container), behind
# a reverse proxy with TLS: docs/TD-GUIDE.md, "The public site".
EXPOSE 8080
# DISCORD_TOKEN (and optionally LICHESS_TOKEN) come from `docker run -e ...`.
# Mount a config file and pass `--config /config.yaml run` to change the edition.
ENTRYPOINT ["acwc"]
CMD ["run"]
