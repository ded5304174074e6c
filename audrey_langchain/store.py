"""``AudreyStore``: LangGraph's long-term memory store (``BaseStore``) on Audrey.

Each item is a memory: its namespace is an Audrey scope (a prefix matches whole labels; no character is a wildcard),
its value is the memory's metadata (so filters apply to value keys), and the text embedded is taken from the value's
indexed fields (LangGraph's ``index={"fields": [...]}``; the whole value as JSON by default). Putting a key again
replaces the item; putting ``None`` forgets it. Search ranks by Audrey's score (relevance x confidence).

TTL follows LangGraph's ``TTLConfig``: ``put(..., ttl=minutes)`` (``default_ttl`` when not given) makes the item
expire; an expired item is never returned again (get, search, list_namespaces) and a sweep deletes it
(:meth:`AudreyStore.sweep_ttl`, or every ``sweep_interval_minutes`` on a background thread); ``refresh_on_read``
(or ``refresh_ttl=`` per call) restarts the TTL of the items a get or search returns. Expired items are omitted
whatever ``omit_expired`` says: in Audrey an expiry is the caller's explicit intent, as a forget is.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Iterable, Sequence
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)
from langgraph.store.base.embed import ensure_embeddings, get_text_at_path, tokenize_path

from audrey_core import Audrey, Memory
from audrey_core.conversation import item_from_metadata, message_id

from .adapters import LangChainEmbedder


class AudreyStore(BaseStore):
    """``AudreyStore()`` (in memory, the default local embedder), ``AudreyStore(audrey=brain)``, or
    ``AudreyStore(index={"dims": 384, "embed": embeddings, "fields": ["text"]}, path="store.db")``.

    ``default_source`` is the Audrey source of items whose value names none (``value["source"]`` may be one of
    Audrey's five sources, and ``salience`` / ``tags`` set those fields too). Filter values must be JSON scalars or
    operator dicts (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``, ``$in``, ``$nin``). ``ttl`` is a
    LangGraph ``TTLConfig`` (see the module).
    """

    supports_ttl = True

    def __init__(
        self,
        *,
        audrey: Audrey | None = None,
        index: IndexConfig | None = None,
        path: str = ":memory:",
        default_source: str = "inference",
        ttl: TTLConfig | None = None,
        **audrey_options: Any,
    ) -> None:
        if audrey is not None and audrey_options:
            raise ValueError("pass either audrey= or options to build one (path=, agent=, ...), not both")
        self._owns_audrey = audrey is None
        if audrey is None:
            embedder = None
            if index is not None and index.get("embed") is not None:
                embedder = LangChainEmbedder(ensure_embeddings(index["embed"]), dimensions=index.get("dims"))
            audrey = Audrey(path=path, embedder=embedder, **audrey_options)
        elif index is not None and index.get("dims") not in (None, audrey.embedder.dimensions):
            raise ValueError(
                f"index dims {index['dims']} differ from the Audrey embedder's {audrey.embedder.dimensions}"
            )
        self.audrey = audrey
        self.ttl_config = _checked_ttl(ttl)
        self._sweeper: concurrent.futures.Future[None] | None = None
        self.default_source = default_source
        fields = (index or {}).get("fields") or ["$"]
        self._fields = [(path_, tokenize_path(path_)) for path_ in fields]
        if self.ttl_config and self.ttl_config.get("sweep_interval_minutes"):
            self.start_ttl_sweeper()

    def close(self) -> None:
        """Stop the TTL sweeper; close the Audrey this store built (a shared one stays open)."""
        self.stop_ttl_sweeper()
        if self._owns_audrey:
            self.audrey.close()

    # -- TTL ----------------------------------------------------------------------------------------------------

    def sweep_ttl(self) -> int:
        """Delete the expired items (and every other expired memory of this Audrey); return how many."""
        return len(self.audrey.sweep_expired())

    async def asweep_ttl(self) -> int:
        return len(await self.audrey.asweep_expired())

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> concurrent.futures.Future[None]:
        """Sweep every ``sweep_interval_minutes`` (the TTL config's, else 5) on a background thread until
        :meth:`stop_ttl_sweeper` or :meth:`close`. The future completes when the sweeper stops; without a TTL
        config it is complete at once (as LangGraph's stores do)."""
        if not self.ttl_config:
            done: concurrent.futures.Future[None] = concurrent.futures.Future()
            done.set_result(None)
            return done
        if self._sweeper is not None and not self._sweeper.done():
            return self._sweeper
        minutes = sweep_interval_minutes or self.ttl_config.get("sweep_interval_minutes") or 5
        self.audrey.start_expiry_sweeper(float(minutes) * 60)
        self._sweeper = concurrent.futures.Future()
        return self._sweeper

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper (a sweep under way finishes); False if it was still running after ``timeout`` s."""
        if self._sweeper is None:
            return True
        stopped = self.audrey.stop_expiry_sweeper(60.0 if timeout is None else timeout)
        self._sweeper.set_result(None)
        self._sweeper = None
        return stopped

    # -- the BaseStore contract ---------------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run operations in order; consecutive puts are written together (one embedding call)."""
        results: list[Result] = []
        pending: list[PutOp] = []
        for op in ops:
            if isinstance(op, PutOp):
                pending.append(op)
                results.append(None)
                continue
            self._apply_puts(pending)
            pending = []
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise ValueError(f"unknown store operation: {type(op).__name__}")
        self._apply_puts(pending)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` off the event loop."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- operations ---------------------------------------------------------------------------------------------

    def _memory_id(self, namespace: tuple[str, ...], key: str) -> str:
        return message_id("I", self.audrey.agent, *namespace, "\x1f", key)

    def _get(self, op: GetOp) -> Item | None:
        memory = self.audrey.get(self._memory_id(op.namespace, op.key))
        if memory is None or memory.agent != self.audrey.agent:
            return None
        if op.refresh_ttl and memory.ttl_seconds is not None:
            self.audrey.refresh_expiry([memory.id])
        return _item(memory)

    def _apply_puts(self, puts: Sequence[PutOp]) -> None:
        latest: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in puts:  # within one batch the last put of a key wins
            latest[(tuple(op.namespace), op.key)] = op
        forget = [self._memory_id(ns, key) for (ns, key), op in latest.items() if op.value is None]
        items = [self._encode_item(op) for op in latest.values() if op.value is not None]
        if forget:
            self.audrey.forget(forget)
        if items:
            self.audrey.encode_batch(items, replace=True)

    def _encode_item(self, op: PutOp) -> dict[str, Any]:
        if not isinstance(op.key, str) or not op.key:
            raise ValueError(f"store keys must be non-empty strings, got {op.key!r}")
        value = dict(op.value or {})
        item = item_from_metadata(self._text(value, op.index), value, self._memory_id(tuple(op.namespace), op.key))
        item.setdefault("source", self.default_source)
        item.update(scope=tuple(op.namespace), key=op.key)
        if op.ttl is not None:  # minutes (BaseStore.put applies the config's default_ttl)
            item["ttl"] = float(op.ttl) * 60
        return item

    def _text(self, value: dict[str, Any], index: Any) -> str:
        fields = self._fields if index is None or index is False else [(p, tokenize_path(p)) for p in index]
        texts = [] if index is False else [t for _, path in fields for t in get_text_at_path(value, path)]
        texts = [t for t in texts if isinstance(t, str) and t.strip()]
        # An item with nothing to index is still stored (and found by filters) under its JSON text.
        return "\n".join(texts) if texts else json.dumps(value, sort_keys=True, default=str) or "{}"

    def _search(self, op: SearchOp) -> list[SearchItem]:
        options: dict[str, Any] = {"scoped": True, "filter": _filter(op.filter)}
        if op.namespace_prefix:
            options["scope_prefix"] = tuple(op.namespace_prefix)
        if op.query:
            results = self.audrey.recall(op.query, limit=op.offset + op.limit, **options)
            found = self.audrey.get_many([r.id for r in results])
            items = [(m, r.score) for m, r in zip(found, results) if m is not None][op.offset :]
        else:
            items = [(m, None) for m in self.audrey.list_memories(limit=op.limit, offset=op.offset, **options)]
        if op.refresh_ttl:
            self.audrey.refresh_expiry([m.id for m, _ in items if m.ttl_seconds is not None])
        return [_item(m, score) for m, score in items]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces = [ns for ns in self.audrey.scopes() if ns]
        if op.match_conditions:
            namespaces = [ns for ns in namespaces if all(_matches(c, ns) for c in op.match_conditions)]
        if op.max_depth is not None:
            namespaces = sorted({ns[: op.max_depth] for ns in namespaces})
        return namespaces[op.offset : op.offset + op.limit]


def _checked_ttl(ttl: Any) -> TTLConfig | None:
    """LangGraph's TTL config, its minutes positive numbers."""
    if ttl is None:
        return None
    if not isinstance(ttl, dict):
        raise ValueError(f"ttl must be a TTLConfig dict, got {ttl!r}")
    unknown = set(ttl) - {"default_ttl", "refresh_on_read", "sweep_interval_minutes", "omit_expired"}
    if unknown:
        raise ValueError(f"unknown TTLConfig keys {sorted(unknown)}")
    for key in ("default_ttl", "sweep_interval_minutes"):
        value = ttl.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0):
            raise ValueError(f"TTLConfig {key} must be a positive number of minutes, got {value!r}")
    return ttl  # type: ignore[return-value]


def _item(memory: Memory, score: float | bool | None = False) -> Item:
    stamp = memory.created_at  # each put replaces the memory, so it is both created and updated then
    common = {"value": dict(memory.metadata), "key": memory.key or "", "namespace": memory.scope}
    if score is False:
        return Item(**common, created_at=stamp, updated_at=stamp)
    return SearchItem(**common, created_at=stamp, updated_at=stamp, score=score)


def _matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """LangGraph's namespace match: whole labels compared exactly; a label that is exactly "*" matches any one."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part))


def _filter(spec: dict[str, Any] | None) -> dict[str, Any] | None:
    if not spec:
        return None
    for key, value in spec.items():
        if isinstance(value, (list, tuple)) or (isinstance(value, dict) and not all(k.startswith("$") for k in value)):
            raise ValueError(
                f"filter on {key!r}: AudreyStore filters compare JSON scalars (or use $eq, $ne, $gt, $gte, $lt, "
                "$lte, $in, $nin); nested objects and lists are not supported"
            )
    return spec
