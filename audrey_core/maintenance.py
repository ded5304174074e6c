"""Store maintenance as stage functions: backfill missing vectors, re-embed with another model, export / import
JSON Lines snapshots. They work on any :class:`~audrey_core.storage.Storage` and an embedder."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import IO, Any

from .embedding import chunk_spans, embed_texts
from .errors import AudreyError, InvalidInputError
from .storage import Storage
from .storage.sql_maintenance import snapshot_header

Progress = Callable[[int], None]


def backfill(storage: Storage, embedder: Any, batch_size: int = 256, progress: Progress | None = None) -> int:
    """Embed every memory that has no vector; return how many were embedded."""
    _check_embedder_matches(storage, embedder)
    done = 0
    while True:
        memories = storage.missing_vectors(batch_size)
        if not memories:
            return done
        spans = [chunk_spans(embedder, m.content) for m in memories]
        texts = [m.content[a:b] for m, s in zip(memories, spans) for a, b in s]
        storage.add_vectors(memories, embed_texts(embedder, texts), spans)
        done += len(memories)
        if progress is not None:
            progress(len(memories))


def reembed(storage: Storage, embedder: Any, batch_size: int = 256, progress: Progress | None = None) -> int:
    """Rewrite every vector with ``embedder`` into new vectors, switching the store to it only when all are done.

    Resumable: run it again with the same embedder after an interruption. Returns how many vectors were written in
    this call."""
    storage.begin_reembed(embedder.model_name, embedder.dimensions)
    written = 0
    while True:
        rows = storage.reembed_pending(batch_size)
        if not rows:
            break
        spans = storage.chunk_spans([rowid for rowid, _ in rows])  # a chunk is re-embedded from its own text
        texts = [memory.content[slice(*spans[rowid])] if rowid in spans else memory.content for rowid, memory in rows]
        storage.write_reembedded(rows, embed_texts(embedder, texts))
        written += len(rows)
        if progress is not None:
            progress(len(rows))
    storage.finish_reembed()
    return written


def export_snapshot(storage: Storage, out: IO[str]) -> int:
    """Write a JSON Lines snapshot (a header, then one record per row and vector); return the records written."""
    out.write(json.dumps(snapshot_header(storage)) + "\n")
    count = 0
    for table, row in storage.export_records():
        out.write(json.dumps({"table": table, "row": row}, ensure_ascii=False) + "\n")
        count += 1
    return count


def read_snapshot_header(lines: Iterator[str]) -> dict[str, Any]:
    """The header record of a snapshot (its first line)."""
    try:
        header = json.loads(next(lines))
    except (StopIteration, json.JSONDecodeError) as exc:
        raise InvalidInputError("not an Audrey snapshot: the first line must be its JSON header") from exc
    if not isinstance(header, dict) or header.get("audrey_snapshot") != 1:
        raise InvalidInputError("not an Audrey snapshot: the header lacks audrey_snapshot: 1")
    return header


def snapshot_records(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The (table, row) records after the header."""
    for number, line in enumerate(lines, start=2):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            yield record["table"], record["row"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InvalidInputError(f"snapshot line {number} is not a {{table, row}} record") from exc


def import_snapshot(storage: Storage, lines: Iterator[str], progress: Progress | None = None) -> int:
    """Restore a snapshot (header already read) into an empty store; return the records read."""
    return storage.import_records(snapshot_records(lines), progress)


def _check_embedder_matches(storage: Storage, embedder: Any) -> None:
    if (embedder.model_name, embedder.dimensions) != (storage.model_name, storage.dimensions):
        raise AudreyError(
            f"the store uses {storage.model_name!r} ({storage.dimensions} dimensions), not {embedder.model_name!r}"
        )
