"""Every page of a served site, reached as a reader would: from `/`, following each same-site
link (anchors, `<link rel=alternate>` twins, calendar feeds), plus each page's JSON twin, the
championship's calendar feed and each player's, linked or not. Plain HTTP with the standard
library: nothing here needs a browser."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections import deque
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

#: A JSON twin is the page's path + ".json" or the page with `?format=json`: whichever the
#: site uses answers, and the other is a 404 page, crawled like any other (`twins_of`).
#: A site of a small championship has a few hundred pages; more means a link loop.
MAX_PAGES = 3000


@dataclass(frozen=True)
class Fetched:
    url: str
    status: int
    content_type: str
    body: str
    text: str  # what a person reads: an HTML page's text, a JSON twin's strings, a feed
    links: tuple[str, ...]


class _Reader(HTMLParser):
    """An HTML page's visible text and the addresses it links to."""

    SILENT = frozenset({"script", "style", "head", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.links: list[str] = []
        self._silent = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in ("a", "link") and values.get("href"):
            self.links.append(str(values["href"]))
        if tag in self.SILENT:
            self._silent += 1
        for name in ("title", "alt", "aria-label"):
            if values.get(name) and tag not in ("link",):
                self.text.append(str(values[name]))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SILENT and self._silent:
            self._silent -= 1

    def handle_data(self, data: str) -> None:
        if not self._silent:
            self.text.append(data)


def strings_of(value: Any) -> list[str]:
    """Every string in a JSON document, keys included: what another tool would show."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in [str(key), *strings_of(item)]]
    if isinstance(value, list):
        return [s for item in value for s in strings_of(item)]
    return []


def fetch(url: str) -> Fetched:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            status, headers, raw = answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        status, headers, raw = error.code, error.headers, error.read()
    kind = headers.get("Content-Type", "")
    body = raw.decode("utf-8", errors="replace")
    links: list[str] = []
    if "html" in kind:
        reader = _Reader()
        reader.feed(body)
        text, links = " ".join(reader.text), reader.links
    elif "json" in kind:
        text = " ".join(strings_of(json.loads(body)))
    else:
        text = body
    return Fetched(url, status, kind, body, " ".join(text.split()), tuple(links))


def twins_of(url: str) -> list[str]:
    """The two addresses a page's JSON twin may have."""
    parts = urlsplit(url)
    path = parts.path if parts.path not in ("", "/") else "/index"
    joiner = "&" if parts.query else "?"
    return [
        parts._replace(path=path.rstrip("/") + ".json").geturl(),
        url + joiner + "format=json",
    ]


@dataclass
class Crawl:
    """What the crawl reached from `root`."""

    root: str
    pages: dict[str, Fetched] = field(default_factory=dict)

    def same_site(self, url: str) -> bool:
        return urlsplit(url).netloc == urlsplit(self.root).netloc

    def run(self) -> Crawl:
        queue: deque[str] = deque([self.root + "/", self.root + "/calendar.ics"])
        seen = set(queue)
        while queue:
            url = queue.popleft()
            fetched = fetch(url)
            self.pages[url] = fetched
            assert len(self.pages) <= MAX_PAGES, f"more than {MAX_PAGES} pages: a link loop?"
            found = [urldefrag(urljoin(url, link))[0] for link in fetched.links]
            if fetched.status == 200 and "html" in fetched.content_type and "format=" not in url:
                found += twins_of(url)
                if urlsplit(url).path.startswith("/players/"):  # the player's feed, linked or not
                    found.append(url.rstrip("/") + "/calendar.ics")
            for link in found:
                if self.same_site(link) and link not in seen:
                    seen.add(link)
                    queue.append(link)
        return self

    def answered(self) -> dict[str, Fetched]:
        return {url: page for url, page in self.pages.items() if page.status == 200}
