"""AudreyStore's TTL with LangGraph's TTLConfig semantics, on both backends: the cases of LangGraph's own store TTL
tests (basic expiry and sweep, refresh on read, the sweeper thread, a per-item ttl, overriding the default, search,
async), plus what Audrey adds: an expired item is gone from every read before any sweep. LangGraph ships those
tests inside its repository, not in an installable package, so they are restated here against AudreyStore with a
manual clock (no sleeping)."""

from __future__ import annotations

import asyncio
import time

import pytest

from audrey_core import Audrey
from audrey_langchain import AudreyStore

from ..conftest import SYNC


@pytest.fixture
def make_store(store_location, embedder, clock):
    made = []

    def make(ttl=None, **options):
        brain = Audrey(path=store_location, agent="ttl", embedder=embedder, clock=clock, config=SYNC)
        store = AudreyStore(audrey=brain, ttl=ttl, **options)
        made.append((store, brain))
        return store

    yield make
    for store, brain in made:
        store.close()
        brain.close()


def rows(store):
    return store.audrey.introspect().counts["episodic"]  # stored rows, expired or not


def test_basic_expiry_then_sweep(make_store, clock):
    store = make_store({"default_ttl": 1 / 60})  # one second
    store.put(("test",), "item1", {"value": "test"})
    assert store.get(("test",), "item1").value == {"value": "test"}
    clock.advance(seconds=2)
    assert store.get(("test",), "item1") is None  # gone before any sweep
    assert rows(store) == 1
    assert store.sweep_ttl() == 1 and rows(store) == 0


def test_refresh_on_read_keeps_an_item_that_is_read(make_store, clock):
    store = make_store({"default_ttl": 1 / 60, "refresh_on_read": True})
    store.put(("test",), "item1", {"value": "test"})
    clock.advance(seconds=0.5)
    assert store.sweep_ttl() == 0
    assert store.get(("test",), "item1", refresh_ttl=True) is not None
    clock.advance(seconds=0.75)  # 1.25 s after the put, 0.75 s after the read
    assert store.sweep_ttl() == 0 and store.get(("test",), "item1") is not None  # this read refreshes too
    assert [i.key for i in store.search(("test",))] == ["item1"]  # and so does a search
    clock.advance(seconds=1.5)
    assert store.sweep_ttl() == 1 and store.get(("test",), "item1") is None


def test_refresh_can_be_turned_off_per_read_and_by_default(make_store, clock):
    store = make_store({"default_ttl": 1 / 60, "refresh_on_read": False})
    store.put(("test",), "item1", {"value": "test"})
    clock.advance(seconds=0.75)
    assert store.get(("test",), "item1") is not None  # no refresh: the config says so
    assert store.search(("test",), refresh_ttl=False)[0].key == "item1"
    clock.advance(seconds=0.5)
    assert store.get(("test",), "item1") is None
    refreshed = make_store({"default_ttl": 1 / 60, "refresh_on_read": False})
    refreshed.put(("other",), "item2", {"value": "x"})
    clock.advance(seconds=0.75)
    assert refreshed.get(("other",), "item2", refresh_ttl=True) is not None  # asked for per read
    clock.advance(seconds=0.5)
    assert refreshed.get(("other",), "item2") is not None


def test_sweeper_thread_deletes_expired_items(make_store, clock):
    store = make_store({"default_ttl": 1 / 60, "sweep_interval_minutes": 0.1 / 60})  # sweeps every 0.1 s
    store.put(("test",), "item1", {"value": "test"})
    future = store.start_ttl_sweeper()  # started at construction already: the same future
    assert future is store.start_ttl_sweeper() and not future.done()
    clock.advance(seconds=2)
    deadline = time.monotonic() + 10
    while rows(store) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert rows(store) == 0
    assert store.stop_ttl_sweeper() and future.done()


def test_no_ttl_config_means_no_sweeper_and_no_expiry(make_store, clock):
    store = make_store()
    assert store.start_ttl_sweeper().done()
    store.put(("test",), "item1", {"value": "forever"})
    clock.advance(days=3650)
    assert store.get(("test",), "item1") is not None and store.sweep_ttl() == 0


def test_custom_ttl_per_item(make_store, clock):
    store = make_store()
    store.put(("test",), "item1", {"value": "short"}, ttl=1 / 60)
    store.put(("test",), "item2", {"value": "long"}, ttl=3 / 60)
    clock.advance(seconds=2)
    store.sweep_ttl()
    assert store.get(("test",), "item1") is None and store.get(("test",), "item2") is not None
    clock.advance(seconds=4)
    store.sweep_ttl()
    assert store.get(("test",), "item2") is None


def test_item_ttl_overrides_the_default(make_store, clock):
    store = make_store({"default_ttl": 5 / 60})
    store.put(("test",), "item1", {"value": "override"}, ttl=1 / 60)
    store.put(("test",), "item2", {"value": "default"})
    store.put(("test",), "item3", {"value": "permanent"}, ttl=None)
    clock.advance(seconds=2)
    store.sweep_ttl()
    assert store.get(("test",), "item1") is None
    # refresh_on_read defaults to True in LangGraph: these reads would restart item2's five minutes
    assert store.get(("test",), "item2", refresh_ttl=False) is not None
    assert store.get(("test",), "item3") is not None
    clock.advance(seconds=4)
    store.sweep_ttl()
    assert store.get(("test",), "item2") is None and store.get(("test",), "item3") is not None


def test_search_filters_queries_namespaces_and_paging_leave_expired_items_out(make_store, clock):
    store = make_store({"default_ttl": 1 / 60})
    store.put(("test",), "item1", {"value": "apple"})
    store.put(("test",), "item2", {"value": "banana"})
    store.put(("kept",), "item3", {"value": "apple"}, ttl=None)
    assert [r.key for r in store.search(("test",), filter={"value": "apple"})] == ["item1"]
    clock.advance(seconds=2)
    assert store.search(("test",), filter={"value": "apple"}) == []
    assert [r.key for r in store.search((), query="apple")] == ["item3"]
    assert store.list_namespaces() == [("kept",)]
    for key in "abc":
        store.put(("page",), key, {"value": key}, ttl=60)
        clock.advance(seconds=1)
    store.put(("page",), "gone", {"value": "x"}, ttl=1 / 60)
    clock.advance(seconds=2)  # listed newest first, the expired item would lead the first page
    assert [i.key for i in store.search(("page",), limit=2)] == ["c", "b"]
    assert [i.key for i in store.search(("page",), limit=2, offset=2)] == ["a"]


def test_async_ttl(make_store, clock):
    store = make_store({"default_ttl": 1 / 60})

    async def scenario():
        await store.aput(("test",), "item1", {"value": "test"})
        assert (await store.aget(("test",), "item1")).value == {"value": "test"}
        clock.advance(seconds=2)
        assert await store.aget(("test",), "item1") is None
        return await store.asweep_ttl()

    assert asyncio.run(scenario()) == 1


@pytest.mark.parametrize(
    "config, message",
    [
        ({"default_ttl": 0}, "positive number of minutes"),
        ({"sweep_interval_minutes": -1}, "positive number of minutes"),
        ({"default_tll": 5}, "unknown TTLConfig keys"),
        ("5 minutes", "TTLConfig dict"),
    ],
)
def test_a_bad_ttl_config_is_refused(make_store, config, message):
    with pytest.raises(ValueError, match=message):
        make_store(config)


def test_a_bad_ttl_on_put_is_refused(make_store):
    store = make_store()
    with pytest.raises(Exception, match="more than 0"):
        store.put(("test",), "item1", {"value": "x"}, ttl=-1)
    assert store.get(("test",), "item1") is None
