"""Store maintenance as stage functions: backfill missing vectors, re-embed with another model, export / import
JSON Lines snapshots. They work on any :class:`~audrey_core.storage.Maintenance` (every backend) and an embedder."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import IO, Any

from ..errors import AudreyError, InvalidInputError
from ..providers.embedding import chunk_spans, embed_texts
from ..rules.calibration import baseline_for
from ..storage import SNAPSHOT_VERSION, Maintenance, snapshot_header
from ..timeutil import system_clock

Progress = Callable[[int], None]


def backfill(storage: Maintenance, embedder: Any, batch_size: int = 256, progress: Progress | None = None) -> int:
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


def reembed(storage: Maintenance, embedder: Any, batch_size: int = 256, progress: Progress | None = None) -> int:
    """Rewrite every vector with ``embedder`` into new vectors, switching the store to it only when all are done.

    Resumable: run it again with the same embedder after an interruption. Returns how many vectors were written in
    this call."""
    storage.begin_reembed(embedder.model_name, embedder.dimensions)
    written = 0
    while True:
        rows = storage.reembed_pending(batch_size)
        if not rows:
            break
        vectors = embed_texts(embedder, [text for _, _, text in rows])
        storage.write_reembedded([(rowid, memory) for rowid, memory, _ in rows], vectors)
        written += len(rows)
        if progress is not None:
            progress(len(rows))
    storage.finish_reembed()
    baseline_for(storage, embedder, system_clock())  # the new model's, for consolidation (rules.calibration)
    return written


END_MARKER = "audrey_snapshot_end"


def export_snapshot(storage: Maintenance, out: IO[str], vectors: bool = True) -> int:
    """Write a JSON Lines snapshot (a header, one record per row and vector, then an end marker carrying the record
    count, so that a cut or damaged file is recognised on import); return the records written. Without ``vectors``
    the memories import vector-less, for :func:`backfill`."""
    out.write(json.dumps(snapshot_header(storage)) + "\n")
    count = 0
    for table, row in storage.export_records():
        if table == "vector" and not vectors:
            continue
        out.write(json.dumps({"table": table, "row": row}, ensure_ascii=False) + "\n")
        count += 1
    out.write(json.dumps({END_MARKER: {"records": count}}) + "\n")
    return count


def read_snapshot_header(lines: Iterator[str]) -> dict[str, Any]:
    """The header record of a snapshot (its first line)."""
    try:
        header = json.loads(next(lines))
    except (StopIteration, ValueError) as exc:  # ValueError: bad JSON or bytes that are not UTF-8
        raise InvalidInputError("not an Audrey snapshot: the first line must be its JSON header") from exc
    if not isinstance(header, dict) or header.get("audrey_snapshot") not in (1, SNAPSHOT_VERSION):
        raise InvalidInputError(f"not an Audrey snapshot: the header lacks audrey_snapshot: {SNAPSHOT_VERSION}")
    model, dimensions = header.get("embedding_model"), header.get("embedding_dimensions")
    if not isinstance(model, str) or isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 1:
        raise InvalidInputError("the snapshot header lacks its embedding model or dimensions")
    return header


def snapshot_records(
    lines: Iterator[str], header: dict[str, Any] | None = None
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The (table, row) records after the header. A version 2 snapshot must end with its end marker, after exactly
    the records it counts; anything else raises :class:`InvalidInputError` (inside the import's transaction, so
    nothing is kept). Version 1 snapshots had no marker and cannot be checked for completeness."""
    checked = header is None or header.get("audrey_snapshot") == SNAPSHOT_VERSION
    count, end = 0, None
    for number, line in _numbered(lines):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise InvalidInputError(f"snapshot line {number} is not JSON: the file is damaged") from exc
        if end is not None:
            raise InvalidInputError(f"snapshot line {number} follows the end marker: the file is damaged")
        if isinstance(record, dict) and END_MARKER in record:
            end = record[END_MARKER]
            if not isinstance(end, dict) or end.get("records") != count:
                raise InvalidInputError(
                    f"the snapshot's end marker counts {end!r} records but {count} were read: the file is damaged"
                )
            continue
        if not isinstance(record, dict) or not isinstance(record.get("table"), str) or "row" not in record:
            raise InvalidInputError(f"snapshot line {number} is not a {{table, row}} record")
        count += 1
        yield record["table"], record["row"]
    if checked and end is None:
        raise InvalidInputError(
            f"the snapshot ends after {count} records without its end marker: it was cut short; nothing was imported"
        )


def _numbered(lines: Iterator[str]) -> Iterator[tuple[int, str]]:
    try:
        yield from enumerate(lines, start=2)
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"the snapshot is not UTF-8 text: {exc}") from exc


def import_snapshot(
    storage: Maintenance, lines: Iterator[str], progress: Progress | None = None, header: dict[str, Any] | None = None
) -> int:
    """Restore a snapshot (``header`` already read from ``lines``) into an empty store in one transaction; return the
    records read. A truncated or damaged file raises :class:`InvalidInputError` and leaves the store as it was."""
    return storage.import_records(snapshot_records(lines, header), progress)


def _check_embedder_matches(storage: Maintenance, embedder: Any) -> None:
    if (embedder.model_name, embedder.dimensions) != (storage.model_name, storage.dimensions):
        raise AudreyError(
            f"the store uses {storage.model_name!r} ({storage.dimensions} dimensions), not {embedder.model_name!r}"
        )
