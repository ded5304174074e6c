"""Episodes waiting for validation: claimed by the instance that encoded them, taken over by another only once free
or expired, never validated by two; and what an instance left is validated by the next open of its tenant."""

from __future__ import annotations

import dataclasses

from audrey_core import Audrey
from audrey_core.rules.arguments import request_from_item
from audrey_core.rules.ownership import Tenant
from audrey_core.stages.encode import encode

from ..conftest import SYNC

EARLY, NOW, LATER = "2026-01-01T00:00:00.000000Z", "2026-01-01T00:05:00.000000Z", "2026-01-01T01:00:00.000000Z"
NEVER = "2027-01-01T00:00:00.000000Z"  # as an expiry: every claim has expired


def queue(brain: Audrey, contents: dict[str, str], by: str) -> None:
    """Episodes stored as encode stores them (without validating them), claimed by ``by`` at EARLY."""
    requests = [request_from_item({"content": text, "id": key}, i) for i, (key, text) in enumerate(contents.items())]
    encode(dataclasses.replace(brain._context, instance=by), requests)
    with brain._storage.transaction() as db:
        db.execute("UPDATE validation_queue SET claimed_at = ? WHERE claimed_by = ?", [EARLY, by])


def test_a_claim_is_taken_over_only_once_free_or_expired_and_never_by_two(db_path, embedder):
    with Audrey(db_path, agent="a", embedder=embedder, config=SYNC) as brain:
        storage = brain._storage
        queue(brain, {"e1": "note one", "e2": "note two", "e3": "note three"}, by="A")
        # B opens while A's claims are fresh (expiry before EARLY): it takes none
        assert storage.claim_unvalidated(Tenant("a"), "B", NOW, "2025-12-31T00:00:00.000000Z", 10) == []
        assert storage.claim_validation(["e1", "e2"], "B", NOW, "2025-12-31T00:00:00.000000Z") == []
        # A released them (it exited): B takes them, oldest first; another agent's open takes nothing
        storage.release_validation("A")
        assert storage.claim_unvalidated(Tenant("other"), "C", NOW, EARLY, 10) == []
        assert storage.claim_unvalidated(Tenant("a"), "B", NOW, EARLY, 10) == ["e1", "e2", "e3"]
        assert storage.claim_validation(["e1", "e3"], "A", NOW, EARLY) == []  # B's now, and fresh
        assert storage.claim_validation(["e3", "e1"], "B", NOW, EARLY) == ["e3", "e1"]
        # B died holding them: once expired, C takes them, and B can no longer
        assert storage.claim_unvalidated(Tenant("a"), "C", LATER, LATER, 10) == ["e1", "e2", "e3"]
        assert storage.claim_validation(["e2"], "B", LATER, EARLY) == []
        storage.finish_validation(["e1", "e2"])
        assert storage.claim_unvalidated(Tenant("a"), "D", LATER, NEVER, 10) == ["e3"]
        brain.forget(["e3"])  # a forgotten episode waits no more
        assert storage.claim_unvalidated(Tenant("a"), "E", LATER, NEVER, 10) == []


def test_an_open_validates_what_an_earlier_instance_left(db_path, embedder):
    with Audrey(db_path, agent="a", embedder=embedder, config=SYNC) as first:
        first.encode("The build server is called orion", id="old")
        queue(first, {"left": "The build server is called orion"}, by="gone")  # never validated: it exited
        first._storage.release_validation("gone")
        assert first.get("old").evidence_count == 1
    with Audrey(db_path, agent="a", embedder=embedder, config=SYNC) as again:
        assert again.get("old").evidence_count == 2  # "left" restated it: validated at open
        assert again._storage.claim_unvalidated(Tenant("a"), "x", LATER, NEVER, 10) == []
