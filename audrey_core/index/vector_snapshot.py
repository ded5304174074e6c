"""A vector index snapshot on disk: the graph, the float32 rows, each row's partition code, the partitions and the
rows not in the graph yet (waiting for an insert; their vectors are among the rows), all under one generation name.
The folder's state file names the current generation and is written last (atomically), so a reader sees a whole
snapshot or the one before it."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .folder import IndexFolder
from .vector_partitions import Partition
from .vector_rows import RowVectors

log = logging.getLogger(__name__)
FORMAT = 3  # bump when the snapshot layout or the graph's parameters change: older snapshots are rebuilt
# 3 may hold rows waiting for an insert: code that reads only 2 would take them for rows in the graph and never find
# them, so it rebuilds instead; a 2 is read as holding none.
READABLE = (2, 3)


@dataclass
class Snapshot:
    graph: Any  # mapped read-only from its file
    rows: RowVectors
    row_codes: np.ndarray  # vector row id -> partition code, -1 when absent
    partitions: list[Partition]
    applied: int  # the last logged change it holds
    waiting: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # held rows not in the graph
    files: list[Path] = field(default_factory=list)  # what it was read from: the graph's file, the rows' file


def read_snapshot(
    folder: IndexFolder, identity: dict[str, Any], dimensions: int, restore: Callable[..., Any]
) -> Snapshot | None:
    """The snapshot the state file names, if it is ours to use (this format, this store, this model)."""
    state = folder.read_state()
    if folder.path is None or state.get("format") not in READABLE or state.get("identity") != identity:
        return None
    generation = folder.path / str(state.get("generation"))
    try:
        graph = restore(str(generation.with_suffix(".usearch")), view=True)
        with np.load(generation.with_suffix(".npz")) as parts:
            row_codes, norms = parts["row_codes"], parts["norms"]
            waiting = parts["waiting"] if "waiting" in parts else np.zeros(0, dtype=np.int64)  # older: none
        rows = RowVectors.mapped(generation.with_suffix(".f32.npy"), norms, dimensions)
        partitions = [tuple(p) for p in json.loads(generation.with_suffix(".json").read_text())]
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        log.warning("vector index snapshot %s cannot be loaded (%s); rebuilding it", generation, exc)
        return None
    if graph is None or graph.ndim != dimensions:
        return None
    files = [generation.with_suffix(".usearch"), generation.with_suffix(".f32.npy")]  # the graph, its rows
    applied = int(state["applied"])
    return Snapshot(graph, rows, row_codes.astype(np.int32), partitions, applied, waiting.astype(np.int64), files)


def new_generation(folder: IndexFolder) -> Path:
    """The path stem of the next snapshot (the caller holds the folder's writer lock)."""
    assert folder.path is not None
    return folder.path / folder.next_generation()


def finish_snapshot(folder: IndexFolder, identity: dict[str, Any], generation: Path, snapshot: Snapshot) -> None:
    """Write everything but the graph (saved as ``generation``.usearch already), name the generation in the state
    file, then delete older generations (the caller holds the folder's writer lock)."""
    assert folder.path is not None
    held = np.flatnonzero(snapshot.row_codes >= 0)
    norms = snapshot.rows.save(generation.with_suffix(".f32.npy"), int(held[-1]) + 1 if len(held) else 0)
    np.savez(generation.with_suffix(".npz"), row_codes=snapshot.row_codes, norms=norms, waiting=snapshot.waiting)
    generation.with_suffix(".json").write_text(json.dumps(snapshot.partitions))
    folder.write_state(
        {"format": FORMAT, "identity": identity, "generation": generation.name, "applied": snapshot.applied}
    )
    for old in folder.path.glob("g*.*"):
        if old.name.split(".")[0] != generation.name:
            try:
                old.unlink(missing_ok=True)  # another process may map it: on Linux its pages stay theirs
            except OSError:  # mapped, on a system that refuses to unlink it: a later save deletes it
                log.info("vector index snapshot %s is in use; left for later", old)
