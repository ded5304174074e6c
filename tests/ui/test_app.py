"""`audrey ui` without a browser: who may reach it (Host, token, Origin, CSRF), the writes, paging, the command's
arguments, and the pure parts (form checks, the score's parts, confidence over time, timeline buckets)."""

from __future__ import annotations

import itertools
import re
import socket
from contextlib import closing
from datetime import datetime, timedelta, timezone

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from audrey_core import Audrey, ClosedError, InvalidInputError
from audrey_core.admin.cli import cli
from audrey_core.testing import DeterministicEmbedder
from audrey_core.ui.app import build_app
from audrey_core.ui.forms import search_from
from audrey_core.ui.views import confidence_curve, timeline_buckets

from ..conftest import SYNC


@pytest.fixture
def brain(tmp_path, clock):
    with Audrey(tmp_path / "ui.db", agent="ui", embedder=DeterministicEmbedder(), clock=clock, config=SYNC) as made:
        yield made


def client(brain, **options) -> TestClient:
    host = options.get("host", "127.0.0.1")
    return TestClient(build_app(brain, **options), base_url=f"http://{host}:8787", follow_redirects=False)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def test_listing_pages_through_a_large_store(brain):
    ids = brain.encode_batch([f"note number {i}" for i in range(60)])
    web = client(brain)
    first = web.get("/").text
    assert ids[-1] in first and ids[-25] in first and ids[-26] not in first and 'rel="next"' in first
    third = web.get("/?offset=50").text
    assert ids[9] in third and ids[0] in third and 'rel="next"' not in third and 'rel="prev"' in third


def test_the_status_page_shows_the_models_similarity_baseline_once_measured(brain):
    web = client(brain)
    assert "similarity baseline" not in web.get("/status").text  # measured at the first consolidation
    brain.consolidate()
    measured = brain.introspect().similarity_baseline
    assert measured is not None
    assert f"<th>similarity baseline</th><td>{measured:.2f} (" in web.get("/status").text


def test_off_localhost_the_token_is_required_then_kept_in_a_cookie(brain):
    with pytest.raises(InvalidInputError, match="needs a token"):
        build_app(brain, host="0.0.0.0")
    web = client(brain, host="0.0.0.0", token="s3cret")
    assert web.get("/").status_code == 401
    assert web.get("/?token=wrong").status_code == 401
    entered = web.get("/status?token=s3cret")
    assert entered.status_code == 303 and entered.headers["location"].endswith("/status")
    assert web.get("/status").status_code == 200  # the session cookie lets it in now
    assert "s3cret" not in web.cookies.get("audrey_ui_session")  # signed with the token, never the token
    stranger = client(brain, host="0.0.0.0", token="s3cret")
    stranger.cookies.set("audrey_ui_session", "s3cret")  # the old cookie held the token itself
    assert stranger.get("/status").status_code == 401
    bearer = client(brain, host="0.0.0.0", token="s3cret")
    assert bearer.get("/status", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    assert bearer.get("/status", headers={"Authorization": "bearer s3cret"}).status_code == 200  # any case
    assert (
        client(brain, host="0.0.0.0", token="s3cret").get("/status", headers={"Authorization": "s3cret"}).status_code
        == 401
    )
    assert web.get("/?token=sécret").status_code == 401  # a token outside ASCII is a wrong token, not a 500
    unicode = client(brain, host="0.0.0.0", token="sécret")
    assert unicode.get("/status?token=sécret").status_code == 303


def test_another_host_name_is_refused_on_localhost(brain):
    rebound = TestClient(build_app(brain), base_url="http://attacker.example:8787")
    response = rebound.get("/")
    assert response.status_code == 400 and "Invalid host header" in response.text
    assert TestClient(build_app(brain), base_url="http://localhost:8787").get("/").status_code == 200


def test_pages_carry_a_content_security_policy_without_scripts(brain):
    headers = client(brain).get("/").headers
    assert "default-src 'none'" in headers["content-security-policy"]
    assert "script-src" not in headers["content-security-policy"]  # none allowed: default-src 'none'


def test_supersede_and_forget_through_the_page(brain):
    old = brain.encode("the office is on floor 3", source="told-by-user")
    web = client(brain, allow_writes=True)
    form = web.get(f"/memory/{old}/supersede")
    assert form.status_code == 200 and "What holds now" in form.text
    token = csrf_of(form.text)
    bad = web.post(f"/memory/{old}/supersede", data={"csrf": token, "content": "x", "source": "rumour"})
    assert bad.status_code == 400 and "unknown source" in bad.text
    empty = web.post(f"/memory/{old}/supersede", data={"csrf": token, "content": "  ", "source": "told-by-user"})
    assert empty.status_code == 400 and "nothing to remember" in empty.text
    done = web.post(f"/memory/{old}/supersede", data={"csrf": token, "content": "the office moved to floor 5"})
    new = done.headers["location"].rsplit("/", 1)[1]
    assert done.status_code == 303 and brain.get(old).superseded_by == new
    chain = web.get(f"/memory/{new}").text
    assert "the office is on floor 3" in chain and "the office moved to floor 5" in chain
    assert web.post(f"/memory/{new}/forget", data={"csrf": token}).status_code == 303
    assert brain.get(new) is None and web.get(f"/memory/{new}").status_code == 404


def test_settling_a_dispute_through_the_page(brain):
    tuesday = brain.encode("The deploy window is on Tuesday", source="told-by-user")
    brain.encode("The deploy window is not on Tuesday", source="inference")
    brain.wait_for_idle()
    (dispute,) = brain.contradictions()
    web = client(brain, allow_writes=True)
    page = web.get("/disputes?state=all").text
    assert f"/disputes/{dispute.id}/settle?winner={tuesday}" in page
    assert web.get(f"/disputes/{dispute.id}/settle?winner=someone").status_code == 400
    confirm = web.get(f"/disputes/{dispute.id}/settle?winner={tuesday}")
    assert "Keep: The deploy window is on Tuesday" in confirm.text
    data = {"csrf": csrf_of(confirm.text), "winner": tuesday, "reason": "the calendar says so"}
    assert web.post(f"/disputes/{dispute.id}/settle", data=data).status_code == 303
    (settled,) = brain.contradictions()
    assert settled.state == "resolved" and settled.resolution.settled.reason == "the calendar says so"


def test_numbers_on_a_memory_page_are_rounded_for_reading(brain):
    memory_id = brain.encode("The backup runs nightly", salience=0.1 + 0.2)  # 0.30000000000000004
    page = client(brain).get(f"/memory/{memory_id}").text
    assert "0.30 · " in page and "0.30000000000000004" not in page


def test_a_result_shows_how_its_confidence_adds_up_its_scope_and_readable_dispute_reasons(brain):
    brain.encode("the API allows 80 requests per second", source="told-by-user", scope=("team", "core"))
    brain.encode("the API allows 200 requests per second", source="tool-result", scope=("team", "core"))
    page = client(brain).get("/", params={"q": "API requests per second"}).text
    assert "0.30 × source 0.90 + 0.35 × evidence" in page and "0.15 × retrieval 0.00" in page
    assert "scope team/core" in page and "scope team/core" in client(brain).get("/").text  # the list too
    disputes = client(brain).get("/disputes").text
    assert "80 vs 200 (req/s)" in disputes and "['" not in disputes
    brain.consolidate()
    assert "1 run, newest first" in client(brain).get("/runs").text


def test_the_command_checks_its_address_and_token(tmp_path):
    db = tmp_path / "cli.db"
    runner = CliRunner()
    runner.invoke(cli, ["--db", str(db), "--embedder", "deterministic", "encode", "x"])
    bad = runner.invoke(cli, ["--db", str(db), "ui", "--http", "nowhere"])
    assert bad.exit_code == 2 and "HOST:PORT" in bad.output
    open_to_all = runner.invoke(cli, ["--db", str(db), "ui", "--http", "0.0.0.0:8787"], env={"AUDREY_UI_TOKEN": ""})
    assert open_to_all.exit_code == 2 and "needs a token" in open_to_all.output
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        busy = runner.invoke(cli, ["--db", str(db), "ui", "--http", f"127.0.0.1:{port}"])
    assert busy.exit_code == 1 and f"127.0.0.1:{port} is in use" in busy.output and "--http" in busy.output
    assert "audrey ui for" not in busy.output  # nothing said it was served


def test_form_checks():
    assert search_from({"q": " rate limit ", "tags": "a, b,", "scope": "/user/alice/"}).recall_options() == {
        "tags": ["a", "b"],
        "scope_prefix": ("user", "alice"),
        "include_dormant": True,
    }
    assert search_from({"show": "all"}).recall_options()["states"][0] == "active"
    span = search_from({"from": "2026-01-01", "to": "2026-01-31"}).recall_options()["time_range"]
    assert span[0] == datetime(2026, 1, 1, tzinfo=timezone.utc) and span[1].day == 31 and span[1].hour == 23
    for params, message in [
        ({"from": "2026-02-01", "to": "2026-01-01"}, "after 'to'"),
        ({"limit": "0"}, "between 1 and 100"),
        ({"min_confidence": "2"}, "between 0.0 and 1.0"),
        ({"mode": "fuzzy"}, "unknown mode"),
        ({"show": "some"}, "unknown show"),
        ({"q": "x" * 3000}, "too long"),
    ]:
        with pytest.raises(InvalidInputError, match=message):
            search_from(params)


def test_confidence_curve_decays_without_use_and_steps_at_a_reinforcement(brain, clock):
    memory = brain.get(brain.encode("a fact", source="told-by-user"))
    points, projected, marks = confidence_curve(memory, clock() + timedelta(days=90), brain.config.confidence)
    values = [v for _, v in points]
    assert values[0] > values[-1] and all(a >= b - 1e-9 for a, b in itertools.pairwise(values))
    assert projected[-1][1] <= values[-1] and marks == [(memory.created_at, "stored")]


def test_timeline_buckets_by_day_week_and_month():
    rows = [("2026-01-01", "episodic", "active", 2), ("2026-01-01", "semantic", "dormant", 1)]
    unit, buckets = timeline_buckets([*rows, ("2026-01-03", "episodic", "active", 4)], "type")
    assert unit == "day"
    assert buckets == [("2026-01-01", {"episodic": 2, "semantic": 1}), ("2026-01-03", {"episodic": 4})]
    unit, buckets = timeline_buckets([*rows, ("2026-05-01", "episodic", "dormant", 1)], "state")
    assert unit == "week" and buckets[0] == ("2025-12-29", {"active": 2, "dormant": 1})
    unit, _ = timeline_buckets([*rows, ("2028-01-01", "episodic", "active", 1)], "state")
    assert unit == "month"


def test_an_empty_agent_is_told_which_agents_the_store_holds(tmp_path):
    path = tmp_path / "shared.db"
    with Audrey(path, agent="payments-agent", embedder=DeterministicEmbedder(), config=SYNC) as other:
        other.encode_batch(["one", "two"])
    with Audrey(path, agent="default", embedder=DeterministicEmbedder(), config=SYNC) as empty:
        page = client(empty).get("/").text
        assert "<b>payments-agent</b> (2)" in page and "audrey --agent payments-agent ui" in page
    with Audrey(path, agent="default", scope=("user", "x"), embedder=DeterministicEmbedder(), config=SYNC) as scoped:
        assert "payments-agent" not in client(scoped).get("/").text  # a confined page names no other tenant


def test_every_page_answers_on_both_backends(store_location):
    with Audrey(store_location, agent="ui", embedder=DeterministicEmbedder(), config=SYNC) as brain:
        for source in ("direct-observation", "tool-result", "told-by-user"):
            brain.encode("the nightly export job takes forty minutes", source=source)
        brain.encode("The deploy window is on Tuesday", source="told-by-user")
        brain.encode("The deploy window is not on Tuesday", source="inference")
        run = brain.consolidate()
        principle, episode = run.output_memory_ids[0], run.input_episode_ids[0]
        web = client(brain)
        pages = ["/", "/?q=export+job", "/disputes?state=all", "/runs", f"/runs/{run.id}", "/timeline", "/status"]
        for path in [*pages, f"/memory/{principle}", f"/memory/{episode}"]:
            response = web.get(path)
            assert response.status_code == 200, (path, response.text[:500])
        assert "the nightly export job takes forty minutes" in web.get(f"/memory/{principle}").text
        assert principle in web.get(f"/memory/{episode}").text  # the principle it is evidence for
        assert "The deploy window is not on Tuesday" in web.get("/disputes?state=all").text


def test_mark_labels_on_a_plot_never_overlap():
    import re as regex

    from audrey_core.ui.plots import CHAR_WIDTH, line_plot

    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    points = [(start, 0.5), (start + timedelta(days=30), 0.4)]
    marks = [(start + timedelta(hours=h), "reinforced") for h in (1, 2, 3, 4, 5)] + [(start + timedelta(days=20), "x")]
    svg = line_plot(points, marks=marks, title="confidence")
    labels = [
        (float(x), float(y), len(text))
        for x, y, text in regex.findall(r'<text x="([\d.]+)" y="([\d.-]+)" class="mark-label">([^<]*)</text>', svg)
    ]
    assert len(labels) >= 3 and svg.count("<title>reinforced</title>") == 5  # every mark keeps its label as a tooltip
    for (x1, y1, n1), (x2, y2, _) in itertools.combinations(sorted(labels), 2):
        assert y1 != y2 or x2 >= x1 + n1 * CHAR_WIDTH  # same row: the later one starts after the earlier one ends


def test_namespaces_and_their_keys(brain, tmp_path):
    brain.encode("Ada is vegetarian", scope=("users", "ada"), key="diet")
    brain.encode("Ada lives in Porto", scope=("users", "ada"), key="home")
    brain.encode("Bo drinks coffee", scope=("users", "bo"), key="drink")
    brain.encode("unscoped note")
    web = client(brain)
    listing = web.get("/namespaces").text
    assert "users/ada" in listing and "users/bo" in listing and "unscoped note" not in listing
    ada = web.get("/namespaces", params={"ns": "users/ada"}).text
    assert re.search(r"<td>diet</td><td><a href=\"/memory/\w+\">Ada is vegetarian</a>", ada)
    assert "<td>home</td>" in ada and "Bo drinks coffee" not in ada
    assert "Nothing in this namespace" in web.get("/namespaces", params={"ns": "users/cy"}).text
    with Audrey(tmp_path / "ui.db", agent="ui", scope=("users", "bo"), embedder=DeterministicEmbedder()) as confined:
        page = client(confined)
        assert "users/ada" not in page.get("/namespaces").text
        assert page.get("/namespaces", params={"ns": "users/ada"}).status_code == 400  # another tenant's namespace


def test_the_agent_picker_opens_another_agent_of_the_store_and_only_when_the_page_is_not_confined(tmp_path):
    path = tmp_path / "agents.db"
    with Audrey(path, agent="ops", embedder=DeterministicEmbedder(), config=SYNC) as ops:
        ops.encode("The deploy key is in the vault")
    opened: list[Audrey] = []

    def open_agent(agent):
        opened.append(Audrey(path, agent=agent, embedder=DeterministicEmbedder(), config=SYNC))
        return opened[-1]

    with Audrey(path, embedder=DeterministicEmbedder(), config=SYNC) as default:
        default.encode("Ada prefers tea")
        app = build_app(default, open_agent=open_agent)
        with TestClient(app, base_url="http://127.0.0.1:8787", follow_redirects=False) as web:
            home = web.get("/").text
            assert '<option value="ops" >ops</option>' in home and "Ada prefers tea" in home
            assert web.get("/agent", params={"name": "nobody"}).status_code == 400
            switched = web.get("/agent", params={"name": "ops"})
            assert switched.status_code == 303 and switched.cookies.get("audrey_ui_agent") == "ops"
            ops_home = web.get("/").text
            assert "The deploy key is in the vault" in ops_home and "Ada prefers tea" not in ops_home
            assert '<option value="ops" selected>ops</option>' in ops_home
            web.get("/agent", params={"name": "ops"})
            assert len(opened) == 1  # opened once, kept while the app runs
        with Audrey(tmp_path / "agents.db", agent="new", embedder=DeterministicEmbedder(), config=SYNC) as empty:
            fresh = TestClient(build_app(empty, open_agent=open_agent), base_url="http://127.0.0.1:8787")
            assert '<option value="new" selected>new</option>' in fresh.get("/").text  # back to it stays possible
        with pytest.raises(ClosedError):  # closed with the app
            opened[0].agents()
        confined = client(default)  # no open_agent: one agent, no picker, no way to another
        assert 'action="/agent"' not in confined.get("/").text and confined.get("/agent?name=ops").status_code == 404


def _rows(path) -> dict[str, list[str]]:
    """Every ordinary table's rows (the vector tables need an extension this reader lacks: their rows are derived)."""
    import sqlite3

    with closing(sqlite3.connect(path)) as con:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        found = {}
        for name in names:
            try:
                found[name] = sorted(map(repr, con.execute(f'SELECT * FROM "{name}"').fetchall()))
            except sqlite3.OperationalError:
                continue
    return found


def test_the_read_only_page_writes_nothing_not_even_validation_others_left_behind(tmp_path):
    import subprocess
    import sys
    import urllib.request

    from audrey_core.admin.cli_ui import READ_ONLY

    from .conftest import ui_server

    path = tmp_path / "left.db"
    script = f"""
from audrey_core import Audrey
from audrey_core.stages.background import Background
from audrey_core.testing import DeterministicEmbedder
Background.encoded = lambda self, ids: None  # a process that died before validating what it stored
with Audrey({str(path)!r}, embedder=DeterministicEmbedder()) as brain:
    brain.encode("The deploy window is on Tuesday", source="told-by-user")
    brain.encode("The deploy window is on Thursday", source="tool-result")
    brain._context.storage.release_validation(brain._context.instance)  # as its exit hook does: for the next open
"""
    subprocess.run([sys.executable, "-c", script], check=True)
    before = _rows(path)
    with ui_server(path, agent="default") as url:
        with Audrey(path, embedder=DeterministicEmbedder(), config=READ_ONLY) as look:  # as the page opens it
            ids = [m.id for m in look.list_memories(limit=10)]
        for page in ["/", "/?q=deploy", "/disputes", "/runs", "/timeline", "/status", "/namespaces"] + [
            f"/memory/{i}" for i in ids
        ]:
            assert urllib.request.urlopen(url + page, timeout=30).status == 200, page
    assert _rows(path) == before  # browsing changed nothing
    with Audrey(path, embedder=DeterministicEmbedder(), config=SYNC):
        pass  # a writer's open takes over the waiting validation
    assert _rows(path) != before


def test_the_store_is_never_called_on_the_event_loop(brain, monkeypatch):
    import asyncio
    import functools

    def off_the_loop(method):
        @functools.wraps(method)
        def checked(*args, **kwargs):
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return method(*args, **kwargs)
            raise AssertionError(f"{method.__name__} called on the event loop")

        return checked

    for name in dir(Audrey):
        method = getattr(Audrey, name)
        if not name.startswith("_") and callable(method) and not asyncio.iscoroutinefunction(method):
            monkeypatch.setattr(Audrey, name, off_the_loop(method))
    memory_id = brain.encode("The deploy window is on Tuesday")
    web = client(brain, allow_writes=True)
    for path in [
        "/",
        "/?q=deploy",
        f"/memory/{memory_id}",
        "/disputes",
        "/runs",
        "/timeline",
        "/status",
        "/namespaces",
    ]:
        assert web.get(path).status_code == 200, path
    assert web.get("/memory/no-such-memory").status_code == 404  # an error page renders off the loop too
    confirm = web.get(f"/memory/{memory_id}/forget")
    assert confirm.status_code == 200
    assert web.post(f"/memory/{memory_id}/forget", data={"csrf": csrf_of(confirm.text)}).status_code == 303
