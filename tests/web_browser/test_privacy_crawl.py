"""Issue 33, "private stays private": every page, JSON twin and calendar feed reachable from
the home page of a simulated championship that had a cheat report, a withdrawal and an
Armageddon shows no cheat report, DM, TD-only note, Discord id, token or database row id;
and the same run with its Armageddon bids still sealed shows no bid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.web_browser.crawl import Crawl
from tests.web_browser.private import ROW_ID, Private, private_of
from tests.web_browser.site import Championship, ServedSite, served

pytestmark = pytest.mark.slow


def config_ids(site: ServedSite) -> tuple[int, ...]:
    discord = site.config.discord
    ids = [discord.guild_id, *discord.td_user_ids, discord.td_role_id]
    ids += [discord.td_alert_channel_id, discord.announcement_channel_id]
    ids += [discord.pairings_channel_id]
    return tuple(i for i in ids if i)


def leaks(crawl: Crawl, private: Private) -> list[str]:
    found = []
    for url, page in crawl.pages.items():
        assert page.status < 500, f"{url} answered {page.status}"
        for hit in private.found_in(page.body) + private.found_in(page.text):
            found.append(f"{url}: {hit}")
        found += [f"{url}: a row id {m.group(0)!r}" for m in ROW_ID.finditer(page.text)]
    return sorted(set(found))


def test_no_page_or_feed_shows_anything_private(
    site: ServedSite, championship: Championship
) -> None:
    incidents = " | ".join(championship.result["incidents"])
    for happened in ("cheat report", "withdrew", "the Final went to the Armageddon"):
        assert happened in incidents  # the run has what the crawl looks for
    private = private_of(championship, config_ids(site))
    assert any(why == "a DM" for why in private.texts.values())
    crawl = Crawl(site.url).run()
    answered = crawl.answered()
    # the crawl reached the whole championship: every player, a JSON twin and a feed
    names = [name for (name,) in championship.rows("SELECT lichess_username FROM players")]
    shown = " ".join(page.text for page in answered.values())
    assert [name for name in names if name not in shown] == []
    assert any("json" in page.content_type for page in answered.values()), list(answered)
    assert any("calendar" in page.content_type for page in answered.values()), list(answered)
    assert leaks(crawl, private) == []


def seal_the_bids(run: Championship) -> None:
    """`run` as it was once both bids were in, before the reveal: the bids stored with no
    colour chosen, and everything from the reveal on undone (its audit entries, the
    Armageddon game, the match's and the stage's ends, the outcome settings)."""
    ((key, value),) = run.rows("SELECT key, value FROM settings WHERE key LIKE 'armageddon:%'")
    ((at,),) = run.rows("SELECT at FROM audit_log WHERE action = 'armageddon_revealed'")
    state = json.loads(value)
    del state["white"], state["revealed_at"]
    run.execute("UPDATE settings SET value = ? WHERE key = ?", json.dumps(state), key)
    run.execute("DELETE FROM settings WHERE updated_at >= ? AND key != ?", at, key)
    run.execute("DELETE FROM audit_log WHERE at >= ?", at)
    run.execute("DELETE FROM games WHERE created_at >= ?", at)
    run.execute(
        "UPDATE matches SET state = 'in_progress', finished_at = NULL, points_a = NULL, "
        "points_b = NULL, forfeit_winner_id = NULL, "
        "score_a = (SELECT coalesce(sum(result_a), 0) FROM games g "
        "           WHERE g.match_id = matches.id AND g.counted), "
        "score_b = (SELECT coalesce(sum(1 - result_a), 0) FROM games g "
        "           WHERE g.match_id = matches.id AND g.counted) "
        "WHERE finished_at >= ?",
        at,
    )
    run.execute(
        "UPDATE stages SET state = 'running', finished_at = NULL WHERE finished_at >= ?", at
    )


def test_sealed_armageddon_bids_show_nowhere(championship: Championship, tmp_path: Path) -> None:
    sealed = championship.copy(tmp_path / "sealed")
    seal_the_bids(sealed)
    with served(sealed) as site:
        private = private_of(sealed, config_ids(site))
        bids = {n for n, why in private.numbers.items() if "Armageddon bid" in why}
        assert len(bids) == 2, private.numbers
        crawl = Crawl(site.url).run()
    assert len(crawl.answered()) > 10
    assert [hit for hit in leaks(crawl, private) if "Armageddon bid" in hit] == []
