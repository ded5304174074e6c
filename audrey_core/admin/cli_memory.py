"""``audrey`` subcommands on the memory: encode, recall, consolidate, decay, sweep, rollback, history, status,
reindex."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

import click

from ..config import MEMORY_TYPES, SOURCES
from ..errors import InvalidInputError, NotFoundError
from ..rules.arguments import parse_scope_path
from ..rules.documents import UNITS, Unit, pieces
from .cli_settings import (
    EXIT_NOT_FOUND,
    EXIT_REFUSED,
    EXIT_USAGE,
    CliError,
    Settings,
    json_option,
    note_other_agents,
    other_agents,
    progress_bar,
    table,
)

DEFAULT_MAX_CHARS = 1_000_000
BULK_BATCH = 256  # pieces of a document stored (and embedded) together
PIPE_PROGRESS_SECONDS = 5.0
METADATA_EXAMPLE = """'{"team": "payments"}'"""


def _metadata(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(f"--metadata must be a JSON object such as {METADATA_EXAMPLE}: {exc}", EXIT_USAGE) from None
    if not isinstance(value, dict):
        raise CliError(f"--metadata must be a JSON object such as {METADATA_EXAMPLE}, got {text}", EXIT_USAGE)
    return value


@click.command()
@json_option
@click.argument("text", required=False)
@click.option("--file", "file", type=click.File("r", encoding="utf-8"), default=None, help="Read the text from FILE.")
@click.option("--split", type=click.Choice(UNITS), default=None, help="Store each paragraph, line or sentence apart.")
@click.option("--source", type=click.Choice(SOURCES), default="direct-observation", show_default=True)
@click.option("--tag", "tags", multiple=True, help="Repeat for several tags.")
@click.option("--scope", default=None, metavar="PATH", help="Where it goes, e.g. user/ada (default: the root).")
@click.option("--key", default=None, help="A claim key: a later memory with the same key in the scope replaces it.")
@click.option("--metadata", "metadata_json", default=None, metavar="JSON", help="A JSON object stored with it.")
@click.option("--salience", type=float, default=0.5, show_default=True)
@click.option("--ttl", type=float, default=None, help="Seconds until it expires (never recalled again, then swept).")
@click.option(
    "--max-chars",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_CHARS,
    show_default=True,
    help="Refuse a longer text as one memory (one memory is recalled whole: --split stores a document in pieces).",
)
@click.pass_obj
def encode(
    s: Settings,
    text: str | None,
    file: Any,
    split: Unit | None,
    source: str,
    tags: tuple[str, ...],
    scope: str | None,
    key: str | None,
    metadata_json: str | None,
    salience: float,
    ttl: float | None,
    max_chars: int,
) -> None:
    """Store TEXT (or --file, or standard input when TEXT is - or missing) as one episode, or with --split as one
    episode per paragraph, line or sentence, stored in batches with progress (on a terminal, or a line every few
    seconds in a pipe); creates the database if needed. A long text is embedded in chunks."""
    if file is not None and text not in (None, "-"):
        raise CliError("give the text or --file, not both", EXIT_USAGE)
    if split is not None and key is not None:
        raise CliError("--key names one fact; with --split every piece would replace the one before", EXIT_USAGE)
    where = parse_scope_path(scope, "--scope") if scope is not None else None
    fields: dict[str, Any] = {"source": source, "salience": salience, "tags": list(tags) or None, "ttl": ttl}
    fields |= {"scope": where, "metadata": _metadata(metadata_json)}
    stream = file if file is not None else (sys.stdin if text in (None, "-") else None)
    if split is not None:
        lines = stream if stream is not None else io.StringIO(text or "")
        ids = _encode_pieces(s, pieces(lines, split), fields, max_chars)
        s.emit({"ids": ids, "count": len(ids)}, lambda: f"stored {len(ids):,} memories, one per {split}")
        return
    content = (stream.read() if stream is not None else text or "").strip("\n")
    if len(content) > max_chars:
        raise CliError(
            f"the text is {len(content):,} characters, over --max-chars {max_chars:,}: one memory is recalled whole, "
            "so store a document in pieces (--split paragraph, line or sentence), or pass "
            f"--max-chars {len(content)} to store it as one",
            EXIT_USAGE,
        )
    with s.audrey(create=True, embedding_progress="embedding chunks") as brain:
        memory_id = brain.encode(content, key=key, **fields)
    s.emit({"id": memory_id}, lambda: memory_id)


def _encode_pieces(s: Settings, found: Iterable[str], fields: dict[str, Any], max_chars: int) -> list[str]:
    """Store each piece as an episode, ``BULK_BATCH`` to an ``encode_batch`` call, reporting progress."""
    ids: list[str] = []
    with s.audrey(create=True) as brain, progress_bar("stored", None, PIPE_PROGRESS_SECONDS) as advance:
        batch: list[dict[str, Any]] = []
        for piece in found:
            if len(piece) > max_chars:
                raise CliError(
                    f"piece {len(ids) + len(batch) + 1} is {len(piece):,} characters, over --max-chars {max_chars:,}: "
                    "split finer (--split line or sentence) or raise --max-chars",
                    EXIT_USAGE,
                )
            batch.append({"content": piece, **fields})
            if len(batch) == BULK_BATCH:
                ids += brain.encode_batch(batch)
                advance(len(batch))
                batch = []
        if batch:
            ids += brain.encode_batch(batch)
            advance(len(batch))
    return ids


@click.command()
@json_option
@click.argument("query")
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--min-confidence", type=click.FloatRange(0, 1), default=0.0, show_default=True)
@click.option(
    "--min-similarity",
    type=click.FloatRange(-1, 1),
    default=None,
    help="Leave out memories less similar to the query than this cosine (0.2 keeps unrelated ones out).",
)
@click.option("--type", "types", multiple=True, type=click.Choice(MEMORY_TYPES), help="Repeat for several types.")
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeat: any of them).")
@click.option("--source", "sources", multiple=True, type=click.Choice(SOURCES), help="Only this source (repeat).")
@click.option("--scope", default=None, metavar="PATH", help="Only this scope and those below it, e.g. user/ada.")
@click.option("--include-dormant", is_flag=True, help="Also memories that faded to dormant.")
@click.pass_obj
def recall(
    s: Settings,
    query: str,
    limit: int,
    min_confidence: float,
    min_similarity: float | None,
    types: tuple[str, ...],
    tags: tuple[str, ...],
    sources: tuple[str, ...],
    scope: str | None,
    include_dormant: bool,
) -> None:
    """Memories relevant to QUERY, best first (a long memory's text is cut short in the table; --json has it whole)."""
    options: dict[str, Any] = {"min_confidence": min_confidence, "min_similarity": min_similarity}
    options |= {"types": list(types) or None, "tags": list(tags) or None, "sources": list(sources) or None}
    options |= {"include_dormant": include_dormant}
    if scope is not None:
        options["scope_prefix"] = parse_scope_path(scope, "--scope")
    with s.audrey() as brain:
        hits = brain.recall(query, limit=limit, **options)
        if not hits and not s.as_json:
            note_other_agents(brain.agents(), s.agent)
    rows = [(h.score, h.confidence, h.memory_type, h.source, h.state, h.id, h.content) for h in hits]
    s.emit(hits, lambda: table(["score", "conf", "type", "source", "state", "id", "content"], rows))


@click.command()
@json_option
@click.pass_obj
def consolidate(s: Settings) -> None:
    """Run the sleep cycle: cluster unconsolidated episodes into principles."""
    with s.audrey() as brain:
        shown = {"done": 0}
        with progress_bar("consolidating clusters", None) as advance:

            def report(done: int, total: int) -> None:
                advance(done - shown["done"], total=total)
                shown["done"] = done

            run = brain.consolidate(progress=report)
    s.emit(
        run,
        lambda: (
            f"run {run.id}: {run.status}, {len(run.input_episode_ids)} episodes considered, "
            f"{len(run.plan)} clusters, {len(run.output_memory_ids)} new principles"
        ),
    )


@click.command()
@json_option
@click.pass_obj
def decay(s: Settings) -> None:
    """Put memories whose retention fell below the threshold to sleep (dormant)."""
    with s.audrey() as brain:
        report = brain.decay()
    s.emit(report, lambda: f"examined {report.examined}, {report.newly_dormant} newly dormant")


@click.command()
@json_option
@click.pass_obj
def sweep(s: Settings) -> None:
    """Delete the memories whose time to live (encode's --ttl) has run out; recall already leaves them out."""
    with s.audrey() as brain:
        swept = brain.sweep_expired()
    s.emit({"swept": swept}, lambda: f"deleted {len(swept)} expired memories")


@click.command()
@json_option
@click.argument("run_id")
@click.pass_obj
def rollback(s: Settings, run_id: str) -> None:
    """Unwind consolidation run RUN_ID."""
    with s.audrey() as brain:
        try:
            run = brain.rollback(run_id)
        except InvalidInputError as exc:
            raise CliError(str(exc), EXIT_REFUSED) from exc
        except NotFoundError as exc:
            raise CliError(
                f"no consolidation run {run_id} for agent {s.agent}; `audrey history` lists the runs", EXIT_NOT_FOUND
            ) from exc
    s.emit(run, lambda: f"run {run.id} rolled back ({len(run.output_memory_ids)} principles now rolled_back)")


@click.command()
@json_option
@click.argument("memory_id", required=False)
@click.pass_obj
def history(s: Settings, memory_id: str | None) -> None:
    """Consolidation runs, oldest first; with MEMORY_ID, that memory's chain of updates instead."""
    if memory_id is not None:
        with s.audrey() as brain:
            chain = brain.update_chain(memory_id)
        if not chain:
            raise CliError(f"no memory {memory_id} for agent {s.agent}", EXIT_NOT_FOUND)
        lines = [(m.id, m.state, m.valid_from, m.valid_until or "", m.source, _claim(m), m.content) for m in chain]
        columns = ["memory", "state", "valid from", "valid until", "source", "claim", "content"]
        s.emit(chain, lambda: table(columns, lines))
        return
    with s.audrey() as brain:
        runs = brain.consolidation_history()
    rows = [(r.id, r.status, r.started_at, len(r.input_episode_ids), len(r.output_memory_ids)) for r in runs]
    s.emit(runs, lambda: table(["run", "status", "started", "episodes", "outputs"], rows) if runs else "no runs yet")


@click.command()
@json_option
@click.pass_obj
def status(s: Settings) -> None:
    """Counts by type and state, contradictions, embedding model, vector coverage."""
    with s.storage() as storage:
        from ..stages.records import count_store as introspect

        stats = introspect(storage, s.agent)
        with_vectors, without = storage.vector_coverage(s.agent)
        pending = storage.reembed_target()
        others = other_agents(storage.agents(), s.agent)
    data = {
        **asdict(stats),
        "vectors": {"with": with_vectors, "without": without},
        "reembed_in_progress": pending[0] if pending else None,
        "database": s.name,
        "other_agents": others,  # when this agent has no memories here: whose the store holds
    }
    if others and not s.as_json:
        note_other_agents(others, s.agent)

    def human() -> str:
        rows = [
            (t, stats.counts[t], *[stats.states[t][st] for st in ("active", "disputed", "superseded", "dormant")])
            for t in MEMORY_TYPES
        ]
        lines = [
            f"database {s.name} (agent {s.agent})",
            f"embedding model {stats.embedding_model} ({stats.embedding_dimensions} dimensions)"
            + (f", unrelated sentences at cosine {stats.similarity_baseline:.2f}" if stats.similarity_baseline else ""),
            table(["type", "total", "active", "disputed", "superseded", "dormant"], rows),
            f"vectors: {with_vectors} memories with, {without} without"
            + (" (run `audrey backfill`)" if without else ""),
            f"contradictions: {_counts(stats.contradictions)}; "
            f"superseded by updates: {stats.superseded}; causal links: {stats.causal_links}",
            f"last consolidation: {stats.last_consolidation or 'never'}",
        ]
        if pending:
            lines.append(f"re-embed to {pending[0]} in progress: run `audrey reembed --to {pending[0]}` to finish")
        if stats.vector_search_error:
            lines.append(f"vector search unavailable (keyword recall only): {stats.vector_search_error}")
        lines.extend(index_line(i) for i in stats.indexes)
        return "\n".join(lines)

    s.emit(data, human)


def _counts(by_state: dict[str, int]) -> str:
    """'6 (4 open, 2 resolved)', or 'none'."""
    total = sum(by_state.values())
    return f"{total} ({', '.join(f'{n} {state}' for state, n in by_state.items() if n)})" if total else "none"


def index_line(index: dict[str, Any]) -> str:
    if "indexes" in index:  # a server's lookup indexes, together
        invalid = ", ".join(index["invalid"])
        return f"{index['kind']} indexes ({index['engine']}): {index['indexes']}, {index['bytes'] / 1e6:.1f} MB" + (
            f"; NOT VALID: {invalid} (rebuild each with REINDEX INDEX CONCURRENTLY)" if invalid else ""
        )
    if "rows" in index:  # a server's search index
        health = "valid" if index["valid"] else f"NOT VALID (rebuild with REINDEX INDEX CONCURRENTLY {index['index']})"
        return (
            f"{index['kind']} index {index['index']} ({index['engine']}): "
            + (f"about {index['rows']} rows, " if index["rows"] is not None else "rows not counted yet, ")
            + f"{index['bytes'] / 1e6:.1f} MB, {health}, statistics of {index['analysed'] or 'never'}"
            + (", graph m {m}, ef_construction {ef_construction}".format(**index["graph"]) if "graph" in index else "")
        )
    if "documents" not in index:
        return f"{index['kind']} search: {index['engine']} ({index.get('note', '')})"
    return (
        f"{index['kind']} index ({index['engine']}): {index['documents']} documents, last change applied "
        f"{index['applied']}, lag {index['lag']}, {index['bytes'] / 1e6:.1f} MB in {index['folder']}"
        + (f", model {index['model']}" if index.get("model") else "")
        + (", mapped from its snapshot" if index.get("mapped") else "")
        + (f", {index['waiting']} rows waiting to join the graph (searched exactly)" if index.get("waiting") else "")
        + (", being rebuilt in the background" if index.get("building") else "")
    )


@click.command()
@json_option
@click.pass_obj
def reindex(s: Settings) -> None:
    """Rebuild the derived search indexes beside the database from the database itself."""
    with s.storage() as storage:
        indexes = storage.rebuild_search_indexes()
    s.emit({"indexes": indexes}, lambda: "\n".join(index_line(i) for i in indexes) or "no derived indexes here")


def _claim(memory: Any) -> str:
    """A typed claim in one cell: "subject attribute = value" (empty when the memory has none)."""
    claim = getattr(memory, "claim", None)
    return "" if claim is None else f"{claim.subject} {claim.attribute} = {claim.value}".strip()
