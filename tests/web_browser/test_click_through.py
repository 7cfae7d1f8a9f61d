"""Issue 33's pages in a real headless Chromium, at a phone's width (390) and a desktop's
(1280): a reader goes from the home page to a stage, to a player, to one of their matches,
clicking links by their text; each page shows what the database holds, and at the phone's
width nothing but a table's own scroll box is wider than the screen. The screenshots of the
way are saved for docs/WEB.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.web_browser.site import Championship, ServedSite

pytestmark = pytest.mark.slow

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
#: The screenshots docs/WEB.md shows (a few, to keep the repository small).
SHOWN = {"home-phone", "stage-phone", "player-desktop", "match-phone", "final-desktop"}


def width_of(page: Page) -> str:
    return "phone" if (page.viewport_size or {}).get("width", 0) < 600 else "desktop"


def points(value: float) -> str:
    """A score as the pages write it: 5½, 6, ½."""
    whole, half = int(value), value % 1 == 0.5
    return ("" if whole == 0 and half else str(whole)) + ("½" if half else "")


def look(page: Page, name: str) -> None:
    """The page as a reader sees it: no horizontal overflow of the page at a phone's width
    (a wide table scrolls inside its own box), and its screenshot saved if the docs show
    it."""
    expect(page.locator("h1")).to_be_visible()
    overflow = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]"
    )
    assert max(overflow[:2]) <= overflow[2], f"{name} is wider than the screen: {overflow}"
    shot = f"{name}-{width_of(page)}"
    if shot in SHOWN:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{shot}.png"))


def test_home_stage_player_match(page: Page, site: ServedSite, championship: Championship) -> None:
    ((stage_key, stage_name),) = championship.rows(
        "SELECT key, name FROM stages WHERE kind = 'swiss'"
    )
    ((winner,),) = championship.rows(  # the Swiss stage's first player, as the table ranks
        "SELECT value FROM settings WHERE key = ?", f"stage_outcome:{stage_key}"
    )
    first_id = re.search(r'"ranking": \["([^"]+)"', winner)
    assert first_id is not None
    ((name, player_id),) = championship.rows(
        "SELECT lichess_username, id FROM players WHERE lichess_id = ?", first_id.group(1)
    )
    ((champion,),) = championship.rows(
        "SELECT lichess_username FROM players WHERE lower(lichess_username) = lower(?)",
        championship.result["champion"],
    )

    page.goto(site.url + "/")
    expect(page.locator("main")).to_contain_text(f"{champion} is the champion")
    look(page, "home")

    page.get_by_role("link", name=stage_name, exact=True).first.click()
    expect(page.locator("h1")).to_contain_text(stage_name)
    swiss_players = championship.rows(
        "SELECT DISTINCT lichess_username FROM players p JOIN matches m "
        "ON p.id IN (m.player_a_id, m.player_b_id) JOIN rounds r ON r.id = m.round_id "
        "JOIN stages s ON s.id = r.stage_id WHERE s.kind = 'swiss'"
    )
    standings = page.locator("table.standings")
    for (someone,) in swiss_players:
        expect(standings).to_contain_text(someone)
    expect(standings.locator("tbody tr").first).to_contain_text(name)
    look(page, "stage")

    standings.get_by_role("link", name=name, exact=True).first.click()
    expect(page.locator("h1")).to_contain_text(name)
    ((rating,),) = championship.rows(
        "SELECT seeding_rating FROM registrations WHERE player_id = ?", player_id
    )
    facts = page.locator("dl.facts")
    expect(facts).to_contain_text("Seeding rating")
    expect(facts).to_contain_text(f"{rating:g}")
    played = championship.rows(
        "SELECT count(*) FROM matches WHERE ? IN (player_a_id, player_b_id)", player_id
    )[0][0]
    rows = page.locator("main table tbody tr")
    expect(rows).to_have_count(played)
    expected = championship.rows(
        "SELECT o.lichess_username, CASE WHEN m.player_a_id = ? THEN m.score_a ELSE m.score_b "
        "END, CASE WHEN m.player_a_id = ? THEN m.score_b ELSE m.score_a END FROM matches m "
        "JOIN players o ON o.id = CASE WHEN m.player_a_id = ? THEN m.player_b_id "
        "ELSE m.player_a_id END WHERE ? IN (m.player_a_id, m.player_b_id)",
        *[player_id] * 4,
    )
    shown = [
        (row.locator("td").nth(1).inner_text(), row.locator("td").nth(2).inner_text())
        for row in rows.all()
    ]  # each row reads from the player's side: their own score first
    assert sorted(shown) == sorted((o, f"{points(m)}–{points(t)}") for o, m, t in expected)
    look(page, "player")

    page.get_by_role("link", name=re.compile(r"round 1, board \d+$")).first.click()
    ((board, opponent, score_a, score_b, a_id, games),) = championship.rows(
        "SELECT m.board, o.lichess_username, m.score_a, m.score_b, m.player_a_id, "
        "(SELECT count(*) FROM games g WHERE g.match_id = m.id) FROM matches m "
        "JOIN rounds r ON r.id = m.round_id JOIN stages s ON s.id = r.stage_id "
        "JOIN players o ON o.id = CASE WHEN m.player_a_id = ? THEN m.player_b_id "
        "ELSE m.player_a_id END "
        "WHERE s.kind = 'swiss' AND r.number = 1 AND ? IN (m.player_a_id, m.player_b_id)",
        player_id,
        player_id,
    )
    expect(page.locator("h1")).to_contain_text(f"round 1, board {board}")
    score = page.locator("p.score")
    expect(score).to_contain_text(name)
    expect(score).to_contain_text(opponent)
    mine, theirs = (score_a, score_b) if a_id == player_id else (score_b, score_a)
    expect(score).to_contain_text(re.compile(rf"{mine:g}\D+{theirs:g}|{theirs:g}\D+{mine:g}"))
    game_links = page.locator("main table a[href*='lichess']")
    if games:
        expect(game_links.first).to_be_visible()
    assert page.locator("main table tbody tr").count() == games
    look(page, "match")


def test_the_final_shows_every_game_to_the_armageddon(
    page: Page, site: ServedSite, championship: Championship
) -> None:
    """The Final that went to the Armageddon: its stage page shows all its games, the last
    one the Armageddon, and the champion."""
    ((final_name, games),) = championship.rows(
        "SELECT s.name, count(g.id) FROM stages s JOIN rounds r ON r.stage_id = s.id "
        "JOIN matches m ON m.round_id = r.id JOIN games g ON g.match_id = m.id "
        "WHERE s.kind = 'final' GROUP BY s.name"
    )
    page.goto(site.url + "/")
    page.get_by_role("link", name=final_name, exact=True).first.click()
    expect(page.locator("h1")).to_contain_text(final_name)
    expect(page.locator("main table tbody tr")).to_have_count(games)
    expect(page.locator("main")).to_contain_text(championship.result["champion"])
    look(page, "final")
