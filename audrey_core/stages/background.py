"""What Audrey does off the caller's path: validating each new episode (on a worker thread, or inline when
``ValidationConfig.background`` is off) and consolidating on a schedule (``ConsolidationConfig``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .context import StageContext
from .scheduler import ConsolidationScheduler
from .validate import validate_episodes
from .worker import BatchWorker


class Background:
    """The instance's background work. ``consolidate`` is the instance's own (it takes the instance's locks)."""

    def __init__(self, ctx: StageContext, consolidate: Callable[[], object]) -> None:
        self.ctx = ctx
        self.closed = False
        self._consolidate = consolidate
        validation, schedule = ctx.config.validation, ctx.config.consolidation
        self.validator: BatchWorker[str] | None = None
        if validation.background:
            work = lambda ids: validate_episodes(ctx, ids)  # noqa: E731
            self.validator = BatchWorker("audrey-validation", work, batch_size=validation.batch_size)
        self.scheduler: ConsolidationScheduler | None = None
        if schedule.interval_seconds is not None or schedule.episode_trigger is not None:
            self.scheduler = ConsolidationScheduler(
                self._on_schedule, schedule.interval_seconds, schedule.episode_trigger
            )

    def encoded(self, ids: Sequence[str]) -> None:
        """New episodes: validate them (queued, or now) and count them towards the next scheduled consolidation."""
        if self.validator is not None:
            self.validator.submit(ids)
        else:
            validate_episodes(self.ctx, ids)
        if self.scheduler is not None:
            self.scheduler.note_episodes(len(ids))

    def wait_for_idle(self, timeout: float | None = None) -> bool:
        """Block until every encoded episode is validated; False if ``timeout`` (seconds) ran out first."""
        return self.validator.wait_for_idle(timeout) if self.validator is not None else True

    def close(self) -> None:
        """Stop the schedule (a run in progress finishes), then finish queued validation."""
        self.closed = True
        if self.scheduler is not None:
            self.scheduler.close()
        if self.validator is not None:
            self.validator.close()

    def _on_schedule(self) -> None:
        if self.closed:
            return
        try:
            self._consolidate()
        except Exception as exc:
            self.ctx.emit("error", {"event": "consolidation", "error": exc})
            raise
