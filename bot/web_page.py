"""The HTML every web page is drawn in (the public pages, the feeds' index, the Lichess
login's answers), shared by the features that serve pages: Jinja2 templates, autoescaped,
in `bot/web_templates/`, and one stylesheet and one small script in `bot/web_static/`
(the pages work without the script: it only shows times in the reader's own zone)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from aiohttp import web
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

TEMPLATES = Path(__file__).with_name("web_templates")
STATIC = Path(__file__).with_name("web_static")


@lru_cache(maxsize=1)
def environment() -> Environment:
    """One template environment: autoescaped HTML, an unknown name is an error."""
    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(("html",)),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(template: str, **values: Any) -> str:
    """A template drawn with `values` (the base layout takes `title` and `site`)."""
    return environment().get_template(template).render(**values)


def page(template: str, *, status: int = 200, cache: bool = True, **values: Any) -> web.Response:
    """An HTML answer; `cache` False for answers that must never be kept (the login's)."""
    response = web.Response(
        text=render(template, **values), status=status, content_type="text/html"
    )
    if not cache:
        response.headers["Cache-Control"] = "no-store"
    return response


def static_routes() -> list[web.AbstractRouteDef]:
    """The stylesheet and the script, under /static/."""
    return [web.static("/static", STATIC)]
