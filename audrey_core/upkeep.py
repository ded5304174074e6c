"""What an Audrey instance does to its memory besides learning from it: forgetting, expiry, and settling a dispute
by hand. A part of :class:`~audrey_core.audrey.Audrey` (which adds the lifecycle, encode, recall and the sleep cycle),
kept apart so that each file reads as one purpose."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .aio import twin
from .config import STATES, ExpiryConfig
from .models import Contradiction
from .reading import MemoryReading
from .rules.recall_options import ListingFilters
from .stages import expiry as expiry_stage
from .stages import records
from .stages import settle as settle_stage
from .stages.background import Background

if TYPE_CHECKING:
    from typing_extensions import Unpack


class MemoryUpkeep(MemoryReading):
    """Forgetting, expiry and settling disputes within the instance's tenant."""

    _background: Background

    def settle_contradiction(self, contradiction_id: str, winner: str | None, reason: str = "") -> Contradiction:
        """Decide a contradiction by hand: ``winner`` (one of its two claims) stays active and the other becomes
        disputed; ``winner=None`` says both hold. Both claims are kept; the decision is audited and recorded in the
        contradiction's ``resolution.settled``."""
        self._check_open()
        return settle_stage.settle(self._context, contradiction_id, winner, reason)

    def sweep_expired(self) -> list[str]:
        """Delete this instance's memories whose ``ttl`` / ``expires_at`` has passed (reads hide them already); an
        audit entry records each page deleted. Returns their ids."""
        self._check_open()
        return expiry_stage.sweep(self._context)

    def start_expiry_sweeper(self, interval_seconds: float) -> None:
        """Sweep expired memories every ``interval_seconds`` on a background thread until :meth:`close` or
        :meth:`stop_expiry_sweeper` (``ExpiryConfig.sweep_interval_seconds`` starts one at open)."""
        self._check_open()
        ExpiryConfig(sweep_interval_seconds=interval_seconds)  # the same check as the configuration's
        self._background.start_sweeper(float(interval_seconds))

    def stop_expiry_sweeper(self, timeout: float = 60.0) -> bool:
        """Stop the scheduled sweeps (a sweep under way finishes); False if it still ran after ``timeout`` s."""
        return self._background.stop_sweeper(timeout)

    def refresh_expiry(self, ids: Sequence[str]) -> list[str]:
        """Restart the ``ttl`` of this instance's live memories among ``ids`` (LangGraph's refresh on read); return
        the ids refreshed. Expired memories, and those with a fixed ``expires_at``, are left as they are."""
        self._check_open()
        return expiry_stage.refresh(self._context, ids)

    def rebuild_indexes(self) -> list[dict[str, Any]]:
        """Rebuild the derived search indexes beside the store from the database itself (``audrey reindex``): after
        copying the file elsewhere, or when an index file was lost. Returns each index's status."""
        self._check_open()
        return self._storage.rebuild_search_indexes()

    def forget_all(self, types: Sequence[str] | None = None, **filters: Unpack[ListingFilters]) -> list[str]:
        """Forget every memory of this instance matching :meth:`recall`'s filters, in every state unless ``states``
        says otherwise (e.g. ``forget_all(scope=("user", "alice"))``); return their ids. Expired memories the
        filters cannot see any more are swept first."""
        self.sweep_expired()
        filters.setdefault("states", list(STATES))
        ids = [memory.id for memory in self.iter_memories(types, **filters)]
        return [forgotten for start in range(0, len(ids), 1000) for forgotten in self.forget(ids[start : start + 1000])]

    def forget(self, ids: Sequence[str]) -> list[str]:
        """Delete memories for good (explicit forgetting, unlike decay); return the ids that existed.

        Only this instance's memories are deleted (its agent's, at or below its scope): another tenant's id is
        treated as missing. An audit entry records what was forgotten."""
        self._check_open()
        return records.forget(self._context, ids)

    asettle_contradiction = twin(settle_contradiction)
    asweep_expired = twin(sweep_expired)
    arefresh_expiry = twin(refresh_expiry)
    aforget = twin(forget)
    aforget_all = twin(forget_all)
    astart_expiry_sweeper = twin(start_expiry_sweeper)
    arebuild_indexes = twin(rebuild_indexes)
    astop_expiry_sweeper = twin(stop_expiry_sweeper)
