"""`audrey ui` in a real browser, on the demo's store: search, open a memory, follow its evidence, see a dispute,
roll back a run with writes allowed, and see writes refused without; bad input and another tenant's memory get a
4xx page. The search page's screenshot in README is made here (``AUDREY_UPDATE_SCREENSHOT=1``)."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from audrey_core import Audrey

from .conftest import AGENT, ui_server

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "images" / "ui-search.png"


@pytest.fixture
def store(stripe_store, tmp_path) -> Path:
    """A copy of the demo's store for one test (a rollback changes it)."""
    copy = tmp_path / "audrey.db"
    with sqlite3.connect(stripe_store) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    return copy


def test_search_open_a_memory_and_follow_its_evidence(store, page, tmp_path):
    with ui_server(store) as url:
        page.goto(url + "/")
        page.get_by_label("query").fill("Stripe API rate limit")
        page.get_by_role("button", name="Search").click()
        page.wait_for_url(re.compile(r"q=Stripe"))
        results = page.locator("li.result")
        assert results.count() >= 3
        first = results.first
        assert "×" in first.locator(".score").inner_text()  # the score as relevance x confidence
        parts = r"= [\d.]+ × source [\d.]+ \+ [\d.]+ × evidence [\d.]+ \+ [\d.]+ × recency [\d.]+ \+ [\d.]+ × retrieval"
        assert re.search(parts, first.inner_text())  # how the confidence adds up
        assert "dormant" in first.locator(".meta").inner_text()  # the story ends a year later: faded, kept
        page.screenshot(path=str(tmp_path / "search.png"), full_page=False)
        if os.environ.get("AUDREY_UPDATE_SCREENSHOT"):
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(tmp_path / "search.png", SCREENSHOT)

        content = first.locator(".content a").inner_text()
        first.locator(".content a").click()
        assert page.locator("h1").inner_text() == content
        assert page.locator("svg.plot").count() == 1  # confidence over time
        assert page.get_by_role("heading", name="Disputes").is_visible()

        page.get_by_role("link", name="Consolidation").click()
        page.locator("table.runs a").first.click()
        principle = page.locator("ul.outputs a").first
        principle_text = principle.inner_text()
        principle.click()
        assert page.get_by_role("heading", name="Its evidence episodes").is_visible()
        evidence = page.locator("ul.evidence a")
        assert evidence.count() == 2
        episode_text = evidence.first.inner_text()
        evidence.first.click()
        assert page.locator("h1").inner_text().startswith(episode_text.rstrip(".…"))
        cited = page.locator("ul.evidence a")  # the episode's page links back to the principle it supports
        assert cited.count() == 1 and cited.first.inner_text() == principle_text


def test_disputes_show_both_sides_with_dates_and_sources(store, page):
    with ui_server(store) as url:
        page.goto(url + "/disputes")
        disputes = page.locator("article.dispute")
        assert disputes.count() == 1  # the agent's guess against what it was told, still open
        sides = disputes.first.locator(".side")
        assert sides.count() == 2
        text = disputes.first.inner_text()
        assert "probably 200 requests per second" in text and "80 requests per second" in text
        assert "inference" in text and "told-by-user" in text and re.search(r"observed \d{4}-\d\d-\d\d", text)
        page.goto(url + "/disputes?state=context_dependent")
        assert "In test mode" in page.locator("main").inner_text()


def test_rollback_with_writes_allowed(store, page):
    with ui_server(store, "--allow-writes") as url:
        page.goto(url + "/runs")
        page.locator("table.runs a").first.click()
        run_url = page.url
        page.get_by_role("link", name="Roll back…").click()
        assert "Roll back run" in page.locator("h1").inner_text()
        page.get_by_role("button", name="Confirm").click()
        page.wait_for_url(run_url)
        assert "rolled_back" in page.locator("main .meta").first.inner_text()
        assert page.get_by_role("link", name="Roll back…").count() == 0
    with Audrey(store, agent=AGENT) as brain:
        assert brain.consolidation_history()[-1].status == "rolled_back"


def test_writes_are_refused_without_allow_writes(store, page):
    with ui_server(store) as url:
        page.goto(url + "/runs")
        page.locator("table.runs a").first.click()
        assert page.get_by_role("link", name="Roll back…").count() == 0
        refused = page.goto(page.url + "/rollback")
        assert refused.status == 403 and "--allow-writes" in page.locator("[role=alert]").inner_text()
        posted = page.request.post(page.url, form={"csrf": "guess"})
        assert posted.status == 403
    with Audrey(store, agent=AGENT) as brain:
        assert brain.consolidation_history()[-1].status == "completed"


def test_a_forged_change_is_refused_even_with_writes_allowed(store, page):
    with ui_server(store, "--allow-writes") as url:
        page.goto(url + "/runs")
        page.locator("table.runs a").first.click()
        posted = page.request.post(page.url + "/rollback", form={"csrf": "not-the-token"})
        assert posted.status == 403 and "out of date" in posted.text()
        foreign = page.request.post(page.url + "/rollback", form={}, headers={"Origin": "http://evil.example"})
        assert foreign.status == 403


@pytest.mark.parametrize(
    "path, status, message",
    [
        ("/?q=x&limit=abc", 400, "limit must be a whole number"),
        ("/?q=x&from=2026-13-01", 400, "YYYY-MM-DD"),
        ("/?type=bogus", 400, "unknown type"),
        ("/?offset=-1", 400, "offset must lie between"),
        ("/disputes?state=maybe", 400, "unknown state"),
        ("/memory/01NOSUCHMEMORY", 404, "no memory"),
        ("/runs/01NOSUCHRUN", 404, "no consolidation run"),
        ("/nowhere", 404, "Not Found"),
    ],
)
def test_bad_input_gets_a_clear_4xx_page(stripe_store, page, path, status, message):
    with ui_server(stripe_store) as url:
        response = page.goto(url + path)
        assert response.status == status
        alert = page.locator("[role=alert]").inner_text()
        assert message in alert and "Traceback" not in page.content()


def test_another_tenants_memory_is_not_reachable_by_url(store, page):
    with Audrey(store, agent="someone-else") as other:
        secret = other.encode("someone else's card ends in 4242")
    with ui_server(store) as url:
        response = page.goto(f"{url}/memory/{secret}")
        assert response.status == 404 and "4242" not in page.content()
        page.goto(url + "/?q=card+ends+in&show=all")
        assert "4242" not in page.content()


def test_browse_a_stores_namespaces_and_keys(page, tmp_path):
    from audrey_core.testing import DeterministicEmbedder

    path = tmp_path / "store.db"
    with Audrey(path, embedder=DeterministicEmbedder()) as brain:  # as AudreyStore puts items: namespace, key
        brain.encode("Ada is vegetarian", scope=("users", "ada"), key="diet")
        brain.encode("Bo drinks coffee", scope=("users", "bo"), key="drink")
    with ui_server(path, agent="default") as url:
        page.goto(url + "/")
        page.get_by_role("link", name="Namespaces").click()
        page.get_by_role("link", name="users/ada").click()
        row = page.locator("table.items tbody tr").first
        assert row.locator("td").first.inner_text() == "diet" and "Ada is vegetarian" in row.inner_text()
        row.get_by_role("link", name="Ada is vegetarian").click()
        assert page.locator("h1").inner_text() == "Ada is vegetarian"


def test_pick_another_agent_of_the_store(page, tmp_path):
    from audrey_core.testing import DeterministicEmbedder

    path = tmp_path / "agents.db"
    with Audrey(path, agent="ops", embedder=DeterministicEmbedder()) as ops:
        ops.encode("The deploy key is in the vault")
    with Audrey(path, embedder=DeterministicEmbedder()) as default:
        default.encode("Ada prefers tea")
    with ui_server(path, agent="default") as url:
        page.goto(url + "/")
        assert "Ada prefers tea" in page.locator("main").inner_text()
        page.get_by_label("agent").select_option("ops")
        page.get_by_role("button", name="Switch").click()
        page.wait_for_url(url + "/")
        assert "The deploy key is in the vault" in page.locator("main").inner_text()
        assert "Ada prefers tea" not in page.locator("main").inner_text()
    with ui_server(path, "--scope", "user/x", agent="default") as url:  # confined: no picker
        page.goto(url + "/")
        assert page.get_by_role("button", name="Switch").count() == 0
