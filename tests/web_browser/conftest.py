"""The browser tests' fixtures: Debian's Chromium (installed by .ci/chromium when missing),
driven by playwright from PyPI; a simulated championship, run once per session; its site
served read-only on a free localhost port."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.web_browser.site import TOKENS, Championship, ServedSite, served, simulated_championship

ROOT = Path(__file__).resolve().parents[2]
#: Without the background-networking flags Chromium keeps trying to reach Google's hosts,
#: and on a closed network it stalls; the tests never touch the network.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's Chromium: .ci/chromium installs it with apt-get when it is missing (as
    root), so the README's one test command works on a fresh machine."""
    found = os.environ.get("ACWC_CHROMIUM", "/usr/bin/chromium")
    if not (Path(found).exists() and shutil.which(found)):
        done = subprocess.run(
            [str(ROOT / ".ci" / "chromium")], check=True, capture_output=True, text=True
        )
        found = done.stdout.strip().splitlines()[-1]
    return found


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Browser]:
    """Headless Chromium with a fresh profile (playwright gives each launch its own). One
    per module, not per session: synchronous playwright keeps its event loop marked as
    running in the tests' thread while it is open, and any async test that ran after a
    browser test in the same worker then failed to start ("Runner.run() cannot be called
    from a running event loop"); closed at the module's end, the loop is gone again."""
    with sync_playwright() as driver:
        launched = driver.chromium.launch(
            executable_path=chromium_path, headless=True, args=CHROMIUM_FLAGS
        )
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def championship(tmp_path_factory: pytest.TempPathFactory) -> Championship:
    return simulated_championship(tmp_path_factory.mktemp("championship"))


@pytest.fixture(scope="session")
def site(championship: Championship) -> Iterator[ServedSite]:
    """The site over the championship, with tokens in the environment (which it must never
    show)."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in TOKENS.items():
            patch.setenv(name, value)
        with served(championship) as running:
            yield running


@pytest.fixture(params=[PHONE, DESKTOP], ids=["phone", "desktop"])
def page(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    """A new tab at phone or desktop width, JavaScript on, as a reader has it."""
    context = browser.new_context(viewport=request.param, device_scale_factor=1)
    tab = context.new_page()
    tab.set_default_timeout(10_000)
    yield tab
    context.close()
