"""What Audrey does off the caller's path: validating each new episode (on a worker thread, or inline when
``ValidationConfig.background`` is off) and consolidating on a schedule (``ConsolidationConfig``)."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from ..claims.validate import validate_episodes
from ..errors import ClosedError
from ..models import Memory
from ..threads import stopping
from ..timeutil import system_clock, to_iso
from .context import StageContext
from .expiry import sweep
from .recall_results import record_retrieval
from .scheduler import Schedule
from .worker import BatchWorker

log = logging.getLogger(__name__)
CLAIM_EXPIRES_S = 600.0  # an episode claimed this long ago by an instance that never validated it is taken over
RESUME_BATCH = 10_000  # episodes left unvalidated taken per query at open
# While an index is rebuilt in the background every search is a database scan: the worker waits for the build
# instead (up to this long), leaving the cores to the build and the caller's writes. Scanning meanwhile cost a
# writer encoding flat out a fifth of its memories (in 30 s: 97-103k encoded; waiting, 129-132k; 122-132k at 64bd1d1).
WAIT_FOR_BUILD_S = 600.0


class Background:
    """The instance's background work. ``consolidate`` is the instance's own (it takes the instance's locks)."""

    def __init__(self, ctx: StageContext, consolidate: Callable[[], object]) -> None:
        self.ctx = ctx
        self.closed = False
        self._consolidate = consolidate
        validation, schedule = ctx.config.validation, ctx.config.consolidation
        self.validator: BatchWorker[tuple[str, float]] | None = None  # (episode id, when claimed: monotonic)
        if validation.background:
            self.validator = BatchWorker(
                "audrey-validation", self._validate, batch_size=validation.batch_size, on_exit=self._release
            )
        # (principles a recall handed over, when): reinforced here, not on the caller's thread
        self.retriever: BatchWorker[tuple[Sequence[Memory], datetime]] | None = None
        if validation.background:
            self.retriever = BatchWorker("audrey-retrieval", self._record_retrievals)
        self.scheduler: Schedule | None = None
        if schedule.interval_seconds is not None or schedule.episode_trigger is not None:
            self.scheduler = Schedule(self._on_schedule, schedule.interval_seconds, schedule.episode_trigger)
        self.sweeper: Schedule | None = None
        if ctx.config.expiry.sweep_interval_seconds is not None:
            self.start_sweeper(ctx.config.expiry.sweep_interval_seconds)
        if validation.resume:
            self._resume()

    def _resume(self) -> None:
        """Validate what earlier instances of this tenant left waiting (they exited first, or died)."""
        while True:
            now = system_clock()
            stale = to_iso(now - timedelta(seconds=CLAIM_EXPIRES_S))
            ids = self.ctx.storage.claim_unvalidated(
                self.ctx.tenant, self.ctx.instance, to_iso(now), stale, RESUME_BATCH
            )
            if ids:
                log.info("validating %d episodes left unvalidated by an earlier process", len(ids))
                self._submit(ids)
            if len(ids) < RESUME_BATCH:
                return

    def _validate(self, items: Sequence[tuple[str, float]]) -> None:
        """Validate the episodes this instance still holds the claim of, then let them go. A claim taken less than
        half the expiry ago is still ours (others take only expired ones); older ones are claimed again first (a
        write, which a batch of fresh encodes does without)."""
        fresh_from = time.monotonic() - CLAIM_EXPIRES_S / 2
        mine = {memory_id for memory_id, claimed in items if claimed >= fresh_from}
        older = [memory_id for memory_id, claimed in items if claimed < fresh_from]
        if older:
            now = system_clock()
            stale = to_iso(now - timedelta(seconds=CLAIM_EXPIRES_S))
            mine.update(self.ctx.storage.claim_validation(older, self.ctx.instance, to_iso(now), stale))
        ids = [memory_id for memory_id, _ in items if memory_id in mine]
        if self.validator is not None and not self.closed:  # on the worker: it can wait (at close, it cannot)
            self.ctx.storage.wait_for_indexes(lambda: self.closed or stopping(), WAIT_FOR_BUILD_S)
        validate_episodes(self.ctx, ids)
        self.ctx.storage.finish_validation(ids)

    def _release(self) -> None:
        """At interpreter exit, with episodes still queued: the next open validates them."""
        with contextlib.suppress(ClosedError):  # closed by another thread meanwhile: nothing left to release
            self.ctx.storage.release_validation(self.ctx.instance)

    def _submit(self, ids: Sequence[str]) -> None:
        """Episodes this instance has just claimed (by encoding them, or at open): validate them."""
        claimed = time.monotonic()
        items = [(memory_id, claimed) for memory_id in ids]
        if self.validator is not None:
            self.validator.submit(items)
        else:
            self._validate(items)

    def encoded(self, ids: Sequence[str]) -> None:
        """New episodes: validate them (queued, or now) and count them towards the next scheduled consolidation."""
        self._submit(ids)
        if self.scheduler is not None:
            self.scheduler.note_episodes(len(ids))

    def retrieved(self, memories: Sequence[Memory], now: datetime) -> None:
        """Principles a recall handed over at ``now``: reinforced by the retrieval worker (or here, without one)."""
        if self.retriever is None:
            record_retrieval(self.ctx, memories, now)
            return
        with contextlib.suppress(RuntimeError):  # closed meanwhile (a stream read after close): nothing recorded
            self.retriever.submit([(memories, now)])

    def _record_retrievals(self, items: Sequence[tuple[Sequence[Memory], datetime]]) -> None:
        for memories, now in items:
            record_retrieval(self.ctx, memories, now)

    def wait_for_idle(self, timeout: float | None = None) -> bool:
        """Block until every encoded episode is validated and every retrieval recorded; False if ``timeout``
        (seconds) ran out first."""
        until = None if timeout is None else time.monotonic() + timeout
        for worker in (self.validator, self.retriever):
            left = None if until is None else max(0.0, until - time.monotonic())
            if worker is not None and not worker.wait_for_idle(left):
                return False
        return True

    def start_sweeper(self, interval: float) -> None:
        """Sweep expired memories every ``interval`` seconds (a sweeper already running is replaced)."""
        self.stop_sweeper()
        self.sweeper = Schedule(self._sweep, interval, name="audrey-expiry-sweep")

    def stop_sweeper(self, timeout: float = 60.0) -> bool:
        """Stop sweeping on a schedule; False if a sweep under way was still running after ``timeout`` seconds."""
        sweeper, self.sweeper = self.sweeper, None
        return sweeper.close(timeout) if sweeper is not None else True

    def _sweep(self) -> None:
        if self.closed:
            return
        try:
            sweep(self.ctx)
        except Exception as exc:
            self.ctx.emit("error", {"event": "expiry sweep", "error": exc})
            raise

    def close(self) -> None:
        """Stop the schedules (a run in progress finishes), then finish queued validation."""
        self.closed = True
        self.stop_sweeper()
        if self.scheduler is not None:
            self.scheduler.close()
        if self.validator is not None:
            self.validator.close()
        if self.retriever is not None:
            self.retriever.close()

    def _on_schedule(self) -> None:
        if self.closed:
            return
        try:
            self._consolidate()
        except Exception as exc:
            self.ctx.emit("error", {"event": "consolidation", "error": exc})
            raise
