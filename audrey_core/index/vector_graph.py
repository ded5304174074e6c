"""The HNSW graph: its parameters (int8 codes, cosine, connectivity), how widely it is walked and inserted into as it
grows (measured on real sentence vectors; see each function), and building one from the database's rows."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..index_settings import ADD_WIDER_FROM, CONNECTIVITY, EXPANSION_ADD, EXPANSION_MIN, EXPANSION_SEARCH
from .vector_partitions import Partition, PartitionTable
from .vector_rows import RowVectors

log = logging.getLogger(__name__)


def graph_options(dimensions: int) -> dict[str, Any]:
    """usearch ``Index`` arguments for a new graph over ``dimensions``-d vectors."""
    return {
        "ndim": dimensions,
        "metric": "cos",
        "dtype": "i8",
        "connectivity": CONNECTIVITY,
        "expansion_add": EXPANSION_ADD,
        "expansion_search": EXPANSION_SEARCH,
    }


def expansion_for(rows: int) -> int:
    """How widely to walk a graph of ``rows``: a fixed breadth finds less of the true top 10 as the graph grows
    (measured on real sentence vectors: 128 finds 99.8% at 10k, 98.7% at 100k, 96.9% at 300k, 89% at 1M; 256 finds
    99.3% at 300k; at 1M, 512 and 807 find 97.8%, 1,016 98.3%: the graph's own quality is the limit there), so it
    grows with size, from 64 (99.6% at 10k, in 70% of the time) to 1,024."""
    return int(min(1024, max(EXPANSION_MIN, EXPANSION_SEARCH * (rows / 100_000) ** 0.9)))


def neighbour_expansion(rows: int) -> int:
    """How widely a validation batch walks for each episode's few nearest claims (down to cosine 0.5): half of
    :func:`expansion_for`, at least EXPANSION_MIN. On 100k one-statement texts, of the 1,438 neighbours of cosine >=
    0.5 among the exact top 6 of 250 queries, 64 finds 1,426 and 128 finds 1,428; the batch search takes 0.45 ms a
    query instead of 0.67."""
    return max(EXPANSION_MIN, expansion_for(rows) // 2)


def expansion_add_for(rows: int) -> int:
    """How widely an insert into a graph of ``rows`` looks for its neighbours. At 1M rows (near-duplicate clusters)
    128 throughout built graphs that find 97.9-99.0% of the true top 10 (build to build); 256 above 250k rows finds
    99.7% (256 throughout: 99.9%, in 22% more time)."""
    return EXPANSION_ADD * (2 if rows >= ADD_WIDER_FROM else 1)


def insert(graph: Any, rowids: np.ndarray, vectors: np.ndarray) -> None:
    """Add rows to ``graph`` (the caller holds it: ``graph_lock``, or a graph no one else sees yet). usearch's first
    worker takes the GIL back after each row it inserts (to check for signals), so beside a busy Python thread each
    of its rows waits up to the switch interval (5 ms): with 16 workers the graph kept up faster, but validation
    slowed (4,700 against 5,900 turns/s), so as many workers as cores."""
    graph.expansion_add = expansion_add_for(len(graph))
    graph.add(rowids.astype(np.uint64), vectors, threads=os.cpu_count() or 1)


@dataclass
class BuiltGraph:
    """A graph built from the database with what the index keeps beside it, seen by no one until installed."""

    graph: Any
    table: PartitionTable
    rows: RowVectors


def build(
    batches: Iterable[tuple[np.ndarray, list[Partition], np.ndarray]],
    graph: Any,
    dimensions: int,
    stop: Callable[[], bool] = lambda: False,
) -> BuiltGraph | None:
    """Insert every batch of (row ids, partitions, vectors) into ``graph`` (new, empty); None if ``stop()`` became
    true first (checked between batches)."""
    table, rows = PartitionTable(), RowVectors(dimensions)
    added = 0
    for rowids, partitions, vectors in batches:
        if stop():
            return None
        if len(rowids):
            insert(graph, rowids, vectors)
            keys = rowids.astype(np.int64)
            rows.put(keys, vectors)
            table.place(keys, partitions)
            added += len(rowids)
            log.info("vector index: %d rows built", added)
    return BuiltGraph(graph, table, rows)
