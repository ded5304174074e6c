"""``AudreyStore``: LangGraph's long-term memory store (``BaseStore``) on Audrey.

Each item is a memory: its namespace is an Audrey scope (a prefix matches whole labels; no character is a wildcard),
its value is the memory's metadata (so filters apply to value keys), and the text embedded is taken from the value's
indexed fields (LangGraph's ``index={"fields": [...]}``; the whole value as JSON by default). Putting a key again
replaces the item; putting ``None`` forgets it. Search ranks by Audrey's score (relevance x confidence).
"""

from __future__ import annotations

import asyncio
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
    operator dicts (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``, ``$in``, ``$nin``).
    """

    supports_ttl = False

    def __init__(
        self,
        *,
        audrey: Audrey | None = None,
        index: IndexConfig | None = None,
        path: str = ":memory:",
        default_source: str = "inference",
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
        self.default_source = default_source
        fields = (index or {}).get("fields") or ["$"]
        self._fields = [(path_, tokenize_path(path_)) for path_ in fields]

    def close(self) -> None:
        """Close the Audrey this store built (a shared one stays open)."""
        if self._owns_audrey:
            self.audrey.close()

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
        return _item(memory) if memory is not None and memory.agent == self.audrey.agent else None

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
            return [_item(m, r.score) for m, r in zip(found, results) if m is not None][op.offset :]
        memories = self.audrey.list_memories(limit=op.limit, offset=op.offset, **options)
        return [_item(m, None) for m in memories]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces = [ns for ns in self.audrey.scopes() if ns]
        if op.match_conditions:
            namespaces = [ns for ns in namespaces if all(_matches(c, ns) for c in op.match_conditions)]
        if op.max_depth is not None:
            namespaces = sorted({ns[: op.max_depth] for ns in namespaces})
        return namespaces[op.offset : op.offset + op.limit]


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
