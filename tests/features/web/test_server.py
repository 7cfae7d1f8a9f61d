"""The web server's frame: every answer carries the security headers (no framing, a strict
Content-Security-Policy), public answers may be cached briefly, the stylesheet is served."""

from __future__ import annotations

from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.config import Config
from bot.features.web.deps import WebDeps
from bot.features.web.routes import app_for
from bot.web_page import render


async def test_every_answer_has_the_security_headers(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> None:
    app = app_for(WebDeps(sessions, config, clock, read_only=True))
    async with TestClient(TestServer(app)) as client:
        css = await client.get("/static/site.css")
        assert css.status == 200 and "body" in await css.text()
        missing = await client.get("/no-such-page")
        assert missing.status == 404
        for answer in (css, missing):
            assert answer.headers["X-Frame-Options"] == "DENY"
            assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"]
            assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert css.headers["Cache-Control"].startswith("public, max-age=")


def test_the_layout_escapes_what_it_is_given() -> None:
    html = render("message.html", title="<b>x</b>", site="ACWC", message="<script>", link="")
    assert "<script>" not in html.split("</head>")[1] and "&lt;script&gt;" in html
    assert "<title>&lt;b&gt;x&lt;/b&gt; · ACWC</title>" in html
