"""Expiry the caller asks for (encode's ttl= / expires_at=): gone for every read at once, deleted by a sweep with an
audit entry, refreshed on request, kept through export and import; on both backends."""

from __future__ import annotations

import io
from datetime import datetime, timedelta, timezone

import pytest

from audrey_core import Audrey, InvalidInputError
from audrey_core.admin.maintenance import export_snapshot, import_snapshot, read_snapshot_header

from .helpers import table_counts


def ids(results):
    return [r.id for r in results]


def test_a_memory_expires_between_two_recalls(brain, clock):
    short = brain.encode("Stripe's test keys rotate every Monday", ttl=60, tags=["stripe"])
    kept = brain.encode("Stripe's live keys are in the vault", tags=["stripe"])
    assert set(ids(brain.recall("Stripe keys", tags=["stripe"]))) == {short, kept}
    clock.advance(seconds=59)
    assert short in ids(brain.recall("Stripe keys", tags=["stripe"]))
    clock.advance(seconds=1)  # the expiry is the first moment it is gone
    for mode in ("hybrid", "vector", "keyword"):
        assert ids(brain.recall("Stripe keys", tags=["stripe"], mode=mode)) == [kept]
    assert brain.get(short) is None and brain.get_many([short, kept])[0] is None
    assert [m.id for m in brain.list_memories()] == [kept]
    assert [m.id for m in brain.iter_memories()] == [kept]
    assert table_counts(brain)["episodes"] == 2  # hidden, not yet deleted


def test_sweep_deletes_expired_memories_and_audits_them(brain, clock):
    gone = brain.encode("a one-time code 4411", ttl=timedelta(minutes=5))
    fixed = brain.encode("the promo ends at midnight", expires_at=clock() + timedelta(hours=1))
    kept = brain.encode("the user's name is Ada")
    seen = []
    brain.on("forget", seen.append)
    assert brain.sweep_expired() == []
    clock.advance(minutes=5)
    assert brain.sweep_expired() == [gone]
    assert seen == [{"memory_ids": [gone], "expired": True}]
    entry = brain.audit_log()[-1]
    assert entry["action"] == "expire" and entry["details"]["ids"] == [gone]
    clock.advance(hours=1)
    assert brain.sweep_expired() == [fixed]
    assert table_counts(brain)["episodes"] == 1 and table_counts(brain)["memory_vectors"] == 1
    assert [m.id for m in brain.list_memories()] == [kept]


def test_refresh_restarts_a_ttl_but_not_a_fixed_expiry_nor_an_expired_one(brain, clock):
    rolling = brain.encode("the session token is abc", ttl=60)
    fixed = brain.encode("the sale ends today", expires_at=clock() + timedelta(seconds=60))
    lapsed = brain.encode("a code that lapses", ttl=10)
    clock.advance(seconds=30)
    assert brain.refresh_expiry([rolling, fixed, lapsed, "no-such-id"]) == [rolling]  # lapsed at 10 s
    assert brain.get(rolling).expires_at == clock() + timedelta(seconds=60)
    clock.advance(seconds=45)  # 75 s after encoding: only the refreshed ttl still holds
    assert brain.get(rolling) is not None and brain.get(fixed) is None and brain.get(lapsed) is None
    before = brain._storage.get_memories([lapsed])[lapsed].expires_at
    assert brain.refresh_expiry([lapsed]) == []  # expired stays expired
    assert brain._storage.get_memories([lapsed])[lapsed].expires_at == before


def test_expired_memories_leave_scopes_and_forget_all_removes_them_too(brain, clock):
    brain.encode("temporary note", scope=("user", "bo"), ttl=1)
    brain.encode("lasting note", scope=("user", "al"))
    assert brain.scopes() == [("user", "al"), ("user", "bo")]
    clock.advance(seconds=1)
    assert brain.scopes() == [("user", "al")]
    brain.forget_all(scope_prefix=("user",))
    assert table_counts(brain)["episodes"] == 0


def test_an_expired_episode_is_neither_judged_against_nor_consolidated(brain, clock):
    old = brain.encode("The API rate limit is 100 requests per second", ttl=60)
    clock.advance(seconds=61)
    new = brain.encode("The API rate limit is 200 requests per second")
    brain.wait_for_idle()
    assert brain.get(new).state == "active" and brain.contradictions() == []
    assert brain._storage.get_memories([old])[old].superseded_by is None


def test_bad_expiry_arguments_say_what_to_pass(brain, clock):
    for kwargs, message in [
        ({"ttl": 0}, "more than 0"),
        ({"ttl": -5}, "more than 0"),
        ({"ttl": "1h"}, "seconds or a timedelta"),
        ({"ttl": float("nan")}, "seconds or a timedelta"),
        ({"ttl": True}, "seconds or a timedelta"),
        ({"expires_at": datetime(2026, 1, 2)}, "timezone-aware"),
        ({"expires_at": "tomorrow"}, "timezone-aware"),
        ({"ttl": 5, "expires_at": clock() + timedelta(days=1)}, "not both"),
    ]:
        with pytest.raises(InvalidInputError, match=message):
            brain.encode("x", **kwargs)
    with pytest.raises(InvalidInputError, match=r"item 0: .*more than 0"):
        brain.encode_batch([{"content": "x", "ttl": 0}])
    with pytest.raises(InvalidInputError):
        brain.refresh_expiry("not-a-list")


def test_batch_items_take_a_ttl_and_an_expiry_already_past_hides_at_once(brain, clock):
    first, second = brain.encode_batch(
        [{"content": "batch item one", "ttl": 30}, {"content": "batch item two", "expires_at": clock()}]
    )
    assert brain.get(first).ttl_seconds == 30.0 and brain.get(second) is None


def test_export_and_import_keep_expiry(brain, clock, tmp_path, embedder):
    rolling = brain.encode("keeps a rolling ttl", ttl=3600)
    lasting = brain.encode("has no expiry")
    out = io.StringIO()
    export_snapshot(brain._storage, out)
    target = tmp_path / "restored.db"
    with Audrey(path=target, agent=brain.agent, embedder=embedder, clock=clock) as copy:
        lines = iter(out.getvalue().splitlines())
        import_snapshot(copy._storage, lines, header=read_snapshot_header(lines))
        restored = copy.get(rolling)
        assert restored.ttl_seconds == 3600.0
        assert restored.expires_at == brain.get(rolling).expires_at
        assert copy.get(lasting).expires_at is None
        clock.advance(hours=1)
        assert copy.get(rolling) is None and copy.sweep_expired() == [rolling]


def test_expires_at_is_stored_in_utc(brain, clock):
    local = timezone(timedelta(hours=2))
    memory_id = brain.encode("meeting notes", expires_at=datetime(2026, 1, 1, 3, 0, tzinfo=local))
    assert brain.get(memory_id).expires_at == datetime(2026, 1, 1, 1, 0, tzinfo=timezone.utc)
    clock.advance(hours=1)
    assert brain.get(memory_id) is None


@pytest.mark.sqlite_only
def test_a_store_made_before_expiry_opens_and_learns_it(tmp_path, embedder, clock):
    from .index_helpers import BEFORE_EXPIRY, downgrade

    path = tmp_path / "old.db"
    with Audrey(path, embedder=embedder, clock=clock) as brain:
        old = brain.encode("written before expiry existed")
    downgrade(path, BEFORE_EXPIRY)
    with Audrey(path, embedder=embedder, clock=clock) as brain:
        assert brain.get(old).expires_at is None
        fresh = brain.encode("expires in a minute", ttl=60)
        clock.advance(minutes=1)
        assert brain.get(fresh) is None and brain.sweep_expired() == [fresh]
