"""Issue 33's "Log in with Lichess" in a real headless Chromium at a phone's width: a Discord
user's /register link is opened, the browser follows the site's redirect to the fake
Lichess's /oauth, which answers at once as its consent is set and sends the browser back to
the site's callback. The page says what happened; the database holds what the profile code
would have recorded (a registration awaiting the TD, the TD's decision asked in the
outbox, the player's DM); the token was revoked at Lichess. The same link again is the
"used already" page and changes nothing; a denied consent is its own page and changes
nothing. The screenshots are saved for docs/WEB.md."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, FloatRect, Page, expect

from bot.features.registration import login_text
from bot.features.registration.types import RegistrationSummary
from db.models import OutboxKind, RegistrationState
from tests.conftest import TD_ID, add_player
from tests.web_browser.conftest import PHONE
from tests.web_browser.login_site import LoginSite

pytestmark = pytest.mark.slow

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
ALICE, BOB = 101, 102


@pytest.fixture
def login_site(tmp_path: Path) -> Iterator[LoginSite]:
    running = LoginSite(tmp_path)
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    """A new tab at a phone's width: the link is opened from Discord on a phone."""
    context = browser.new_context(
        viewport={"width": PHONE["width"], "height": PHONE["height"]}, device_scale_factor=1
    )
    tab = context.new_page()
    tab.set_default_timeout(10_000)
    yield tab
    context.close()


def shot(page: Page, name: str) -> None:
    """The page's screenshot for docs/WEB.md, the whole width and as tall as its content."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tall = page.evaluate("() => document.querySelector('footer').getBoundingClientRect().bottom")
    width, height = PHONE["width"], min(PHONE["height"], float(tall) + 16)
    clip: FloatRect = {"x": 0, "y": 0, "width": width, "height": height}
    page.screenshot(path=str(SCREENSHOTS / f"login-{name}.png"), clip=clip)


def open_link(page: Page, link: str) -> int:
    """Open `link` as a click from Discord does, following every redirect; the status of
    the page the browser lands on."""
    answer = page.goto(link)
    assert answer is not None
    return answer.status


def test_the_whole_login_in_a_browser(phone: Page, login_site: LoginSite) -> None:
    fake = login_site.fake
    add_player(fake, "Alice", rating=1900)
    fake.oauth_login("Alice")  # logged in at Lichess; the prompt approves at once
    link = login_site.link_for(ALICE, "alice")
    assert link.startswith(f"{login_site.url}/login/start?t=")
    assert login_site.rows().registrations == []

    # The click: the site, Lichess's /oauth, and back to the site's callback.
    status = open_link(phone, link)
    assert status == 200
    assert phone.url.startswith(f"{login_site.url}/login/callback?")
    assert len(fake.oauth_tokens_issued) == 1  # the browser went through Lichess's /oauth
    expect(phone.locator("h1")).to_have_text(login_text.REGISTERED_TITLE)
    summary = login_site.run(lambda: login_site.service.status(discord_id=ALICE))
    assert isinstance(summary, RegistrationSummary)
    message = phone.locator("p.message")
    expect(message).to_have_text(login_text.registered_page(summary))
    expect(message).to_contain_text("Alice")
    expect(message).to_contain_text("TD")
    shot(phone, "registered-phone")

    # Recorded as the profile code records it: awaiting the TD, the TD asked, Alice told.
    assert summary.state is RegistrationState.PENDING and summary.lichess_username == "Alice"
    assert summary.discord_id == ALICE and summary.seeding_rating == 1900
    after = login_site.rows()
    assert [r.state for r in after.registrations] == [RegistrationState.PENDING]
    to_td = [m for m in after.outbox if m.target_id == TD_ID]
    assert [m.view and m.view["kind"] for m in to_td] == ["registration_decision"]
    to_alice = [m for m in after.outbox if m.target_id == ALICE]
    assert [m.kind for m in to_alice] == [OutboxKind.DM]
    assert "**Alice** is verified" in to_alice[0].content
    assert [k.outcome for k in after.links] == ["registered"]
    # The token was read with once and revoked at once.
    assert fake.oauth_tokens_revoked == fake.oauth_tokens_issued
    assert fake.oauth_tokens_issued[0] not in fake.tokens

    # The same link again: "used already", and nothing changes (Lichess is not asked).
    status = open_link(phone, link)
    assert status == 410
    assert phone.url == link
    expect(phone.locator("h1")).to_have_text(login_text.USED.title)
    expect(phone.locator("p.message")).to_have_text(login_text.USED.message)
    shot(phone, "used-phone")
    assert login_site.rows().key() == after.key()
    assert len(fake.oauth_tokens_issued) == 1


def test_a_denied_consent_in_a_browser(phone: Page, login_site: LoginSite) -> None:
    fake = login_site.fake
    add_player(fake, "Bob")
    fake.oauth_login("Bob", consent="deny")
    link = login_site.link_for(BOB, "Bob")
    before = login_site.rows()

    status = open_link(phone, link)
    assert status == 200
    assert phone.url.startswith(f"{login_site.url}/login/callback?")
    assert "error=access_denied" in phone.url
    expect(phone.locator("h1")).to_have_text(login_text.DENIED.title)
    expect(phone.locator("p.message")).to_have_text(login_text.DENIED.message)
    expect(phone.locator("p.message")).to_contain_text("nothing was changed")
    shot(phone, "denied-phone")

    after = login_site.rows()
    assert after.registrations == [] and after.outbox == before.outbox == []
    assert [k.outcome for k in after.links] == ["denied"]
    assert fake.oauth_tokens_issued == []
    assert login_site.run(lambda: login_site.service.status(discord_id=BOB)) is None
