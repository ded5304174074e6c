"""The ``audrey`` command.

``--db`` (or AUDREY_DB) is an SQLite file or a ``postgresql://`` URL. Exit codes: 0 done; 1 failed (the message
says why); 2 bad usage or input; 3 no database at the path; 4 not found (a memory or consolidation run); 5 refused (an
import or migration into a database that is not empty, a model or dimension mismatch, a run already rolled back).
Errors go to stderr in one line that says what to do; messages never show a URL's password.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from ..audrey import Audrey
from ..config import MEMORY_TYPES, SOURCES, AudreyConfig, ValidationConfig
from ..errors import AudreyError, EmbeddingMismatchError, InvalidInputError, NotFoundError, StorageError
from ..models import to_plain
from ..providers.embedding import embedder_for
from ..rules.inputs import check_text
from ..storage import Storage, open_storage
from ..storage.postgres.connection import is_postgres_url
from .maintenance import backfill, export_snapshot, import_snapshot, read_snapshot_header, reembed
from .stores import (
    copy_store,
    count_records,
    display_name,
    embedding_of,
    location,
    not_a_database,
    opened,
    read_info,
    same_store,
)

DEFAULT_DB = "./audrey-data/audrey.db"
EXIT_FAILED, EXIT_USAGE, EXIT_NO_DATABASE, EXIT_NOT_FOUND, EXIT_REFUSED = 1, 2, 3, 4, 5
CLI_CONFIG = AudreyConfig(validation=ValidationConfig(background=False))


class CliError(Exception):
    """A failure to report in one line with an exit code."""

    def __init__(self, message: str, code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.code = code


def exit_code(error: AudreyError) -> int:
    if isinstance(error, NotFoundError):
        return EXIT_NOT_FOUND
    if isinstance(error, InvalidInputError):
        return EXIT_USAGE
    if isinstance(error, EmbeddingMismatchError):
        return EXIT_REFUSED
    return EXIT_FAILED


def make_embedder(spec: str) -> Any:
    """``local`` (all-MiniLM-L6-v2), ``deterministic`` (the test hash embedder), ``openai:MODEL``, or a model name."""
    if spec == "local":
        return embedder_for("all-MiniLM-L6-v2")
    if spec == "deterministic":
        return embedder_for("deterministic-hash")
    if spec.startswith("openai:"):
        from ..providers.embedding import OpenAIEmbedder

        return OpenAIEmbedder(spec.removeprefix("openai:"))
    return embedder_for(spec)


class Settings:
    """Options shared by every subcommand."""

    def __init__(self, db: str, agent: str, as_json: bool, embedder: str | None) -> None:
        self.db = location(db)  # an SQLite file's Path, or a PostgreSQL URL
        self.name = display_name(db)  # for messages: a URL without its password
        self.agent = agent
        self.as_json = as_json
        self.embedder_spec = embedder

    def info(self, must_exist: bool = True) -> dict[str, str] | None:
        info = read_info(self.db)
        if info is None and not_a_database(self.db):  # every command says so, the creating ones too
            raise CliError(
                f"{self.name} is not a database; point --db / AUDREY_DB at an Audrey store or a new file",
                EXIT_NO_DATABASE,
            )
        if info is None and must_exist:
            raise CliError(
                f"no Audrey database at {self.name}; create one with `audrey encode`, or point --db / AUDREY_DB at it",
                EXIT_NO_DATABASE,
            )
        return info

    def embedder(self, info: dict[str, str] | None) -> Any:
        if self.embedder_spec:
            return make_embedder(self.embedder_spec)
        if info is None:
            return make_embedder("local")
        return embedder_for(info["embedding_model"], int(info["embedding_dimensions"]))

    @contextmanager
    def audrey(
        self, create: bool = False, scope: Sequence[str] | None = None, config: AudreyConfig = CLI_CONFIG
    ) -> Iterator[Audrey]:
        info = self.info(must_exist=not create)
        with Audrey(self.db, agent=self.agent, embedder=self.embedder(info), config=config, scope=scope) as brain:
            yield brain

    @contextmanager
    def storage(self) -> Iterator[Storage]:
        with opened(self.db, self.info()) as storage:
            yield storage

    def emit(self, data: Any, human: Callable[[], str]) -> None:
        click.echo(json.dumps(to_plain(data), ensure_ascii=False) if self.as_json else human())


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain aligned text table."""
    cells = [[str(c) for c in headers]] + [[_cell(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    text = str(value)
    return text if len(text) <= 70 else text[:67] + "..."


@contextmanager
def progress_bar(label: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr (hidden when stderr is not a terminal or the total is unknown)."""
    if not total or not sys.stderr.isatty():
        yield lambda n: None
        return
    with click.progressbar(length=total, label=label, file=sys.stderr) as bar:
        yield bar.update


def _json_flag(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        ctx.find_object(Settings).as_json = True


json_option = click.option(
    "--json", "as_json_here", is_flag=True, expose_value=False, callback=_json_flag, help="Print JSON for scripts."
)


# -- the command group ----------------------------------------------------------------------------------------------


class AudreyGroup(click.Group):
    """Turns Audrey's errors into one line on stderr and a meaningful exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CliError as exc:
            code, message = exc.code, str(exc)
        except StorageError as exc:
            refusal = ("already holds memories", "already uses", "in progress", "incomplete")
            code, message = (EXIT_REFUSED if any(r in str(exc) for r in refusal) else EXIT_FAILED), str(exc)
        except AudreyError as exc:
            code, message = exit_code(exc), str(exc)
        except OSError as exc:  # a file the command was pointed at: a missing folder, no permission, a full disk
            code, message = EXIT_FAILED, f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc)
        click.echo(f"error: {message}", err=True)
        ctx.exit(code)


@click.group(cls=AudreyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    envvar="AUDREY_DB",
    default=DEFAULT_DB,
    show_default=True,
    help="SQLite file or postgresql:// URL (or AUDREY_DB).",
)
@click.option("--agent", envvar="AUDREY_AGENT", default="default", show_default=True, help="Whose memories.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts instead of tables.")
@click.option("--embedder", default=None, help="local | deterministic | openai:MODEL (default: the store's own).")
@click.pass_context
def cli(ctx: click.Context, db: str, agent: str, as_json: bool, embedder: str | None) -> None:
    """Audrey: a memory for LLM agents. Exit codes: 0 ok, 1 failed, 2 usage, 3 no database, 4 not found,
    5 refused."""
    if not agent.strip():
        raise InvalidInputError("--agent must name an agent")
    ctx.obj = Settings(db, check_text("--agent", agent), as_json, embedder)


@cli.command()
@json_option
@click.argument("text", required=False)
@click.option("--source", type=click.Choice(SOURCES), default="direct-observation", show_default=True)
@click.option("--tag", "tags", multiple=True, help="Repeat for several tags.")
@click.option("--salience", type=float, default=0.5, show_default=True)
@click.pass_obj
def encode(s: Settings, text: str | None, source: str, tags: tuple[str, ...], salience: float) -> None:
    """Store TEXT (or standard input) as an episode; creates the database if needed."""
    content = text if text is not None else sys.stdin.read()
    with s.audrey(create=True) as brain:
        memory_id = brain.encode(content.strip("\n"), source=source, salience=salience, tags=list(tags) or None)
    s.emit({"id": memory_id}, lambda: memory_id)


@cli.command()
@json_option
@click.argument("query")
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--min-confidence", type=click.FloatRange(0, 1), default=0.0, show_default=True)
@click.option("--type", "types", multiple=True, type=click.Choice(MEMORY_TYPES), help="Repeat for several types.")
@click.pass_obj
def recall(s: Settings, query: str, limit: int, min_confidence: float, types: tuple[str, ...]) -> None:
    """Memories relevant to QUERY, best first."""
    with s.audrey() as brain:
        hits = brain.recall(query, limit=limit, min_confidence=min_confidence, types=list(types) or None)
    rows = [(h.score, h.confidence, h.memory_type, h.source, h.state, h.id, h.content) for h in hits]
    s.emit(hits, lambda: table(["score", "conf", "type", "source", "state", "id", "content"], rows))


@cli.command()
@json_option
@click.pass_obj
def consolidate(s: Settings) -> None:
    """Run the sleep cycle: cluster unconsolidated episodes into principles."""
    with s.audrey() as brain:
        shown = {"done": 0}
        with progress_bar("consolidating", None) as advance:

            def report(done: int, total: int) -> None:
                advance(done - shown["done"])
                shown["done"] = done

            run = brain.consolidate(progress=report)
    s.emit(
        run,
        lambda: (
            f"run {run.id}: {run.status}, {len(run.input_episode_ids)} episodes considered, "
            f"{len(run.plan)} clusters, {len(run.output_memory_ids)} new principles"
        ),
    )


@cli.command()
@json_option
@click.pass_obj
def decay(s: Settings) -> None:
    """Put memories whose retention fell below the threshold to sleep (dormant)."""
    with s.audrey() as brain:
        report = brain.decay()
    s.emit(report, lambda: f"examined {report.examined}, {report.newly_dormant} newly dormant")


@cli.command()
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
    s.emit(run, lambda: f"run {run.id} rolled back ({len(run.output_memory_ids)} principles now rolled_back)")


@cli.command()
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
        lines = [(m.id, m.state, m.valid_from, m.valid_until or "", m.source, m.content) for m in chain]
        s.emit(chain, lambda: table(["memory", "state", "valid from", "valid until", "source", "content"], lines))
        return
    with s.audrey() as brain:
        runs = brain.consolidation_history()
    rows = [(r.id, r.status, r.started_at, len(r.input_episode_ids), len(r.output_memory_ids)) for r in runs]
    s.emit(runs, lambda: table(["run", "status", "started", "episodes", "outputs"], rows) if runs else "no runs yet")


@cli.command()
@json_option
@click.pass_obj
def status(s: Settings) -> None:
    """Counts by type and state, contradictions, embedding model, vector coverage."""
    with s.storage() as storage:
        from ..stages.introspect import introspect

        stats = introspect(storage, s.agent)
        with_vectors, without = storage.vector_coverage(s.agent)
        pending = storage.reembed_target()
    data = {
        **asdict(stats),
        "vectors": {"with": with_vectors, "without": without},
        "reembed_in_progress": pending[0] if pending else None,
        "database": s.name,
    }

    def human() -> str:
        rows = [
            (t, stats.counts[t], *[stats.states[t][st] for st in ("active", "disputed", "superseded", "dormant")])
            for t in MEMORY_TYPES
        ]
        lines = [
            f"database {s.name} (agent {s.agent})",
            f"embedding model {stats.embedding_model} ({stats.embedding_dimensions} dimensions)",
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
    if "documents" not in index:
        return f"{index['kind']} search: {index['engine']} ({index.get('note', '')})"
    return (
        f"{index['kind']} index ({index['engine']}): {index['documents']} documents, last change applied "
        f"{index['applied']}, lag {index['lag']}, {index['bytes'] / 1e6:.1f} MB in {index['folder']}"
        + (f", model {index['model']}" if index.get("model") else "")
        + (", mapped from its snapshot" if index.get("mapped") else "")
    )


@cli.command()
@json_option
@click.pass_obj
def reindex(s: Settings) -> None:
    """Rebuild the derived search indexes beside the database from the database itself."""
    with s.storage() as storage:
        indexes = storage.rebuild_search_indexes()
    s.emit({"indexes": indexes}, lambda: "\n".join(index_line(i) for i in indexes) or "no derived indexes here")


@cli.command("export")
@json_option
@click.option("--no-vectors", is_flag=True, help="Leave vectors out (smaller; `audrey backfill` rebuilds them).")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True), default="-")
@click.pass_obj
def export_cmd(s: Settings, file: str, no_vectors: bool) -> None:
    """Write a JSON Lines snapshot of every table (to FILE, default standard output)."""
    with s.storage() as storage, click.open_file(file, "w", encoding="utf-8") as out:
        count = export_snapshot(storage, out, vectors=not no_vectors)
    if file != "-":
        s.emit({"records": count, "file": file}, lambda: f"exported {count} records to {file}")


@cli.command("import")
@json_option
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.pass_obj
def import_cmd(s: Settings, file: str) -> None:
    """Restore a snapshot into an empty (or new) database."""
    with click.open_file(file, "r", encoding="utf-8") as source:
        lines = iter(source)
        header = read_snapshot_header(lines)
        info = s.info(must_exist=False)
        if info is not None and (info["embedding_model"], int(info["embedding_dimensions"])) != (
            header["embedding_model"],
            int(header["embedding_dimensions"]),
        ):
            raise CliError(
                f"{s.name} uses {info['embedding_model']}; the snapshot was made with "
                f"{header['embedding_model']}: import into a new database",
                EXIT_REFUSED,
            )
        created = not is_postgres_url(s.db) and not Path(s.db).exists()
        storage = open_storage(
            s.db, model_name=header["embedding_model"], dimensions=int(header["embedding_dimensions"])
        )
        try:
            if not storage.is_empty():
                raise CliError(f"{s.name} already holds memories; import only into an empty database", EXIT_REFUSED)
            with progress_bar("importing", None) as advance:
                count = import_snapshot(storage, lines, advance, header)
        except BaseException:
            storage.close()
            if created:  # a failed import into a new file leaves no file behind
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{s.db}{suffix}").unlink(missing_ok=True)
            raise
        storage.close()
    s.emit({"records": count}, lambda: f"imported {count} records into {s.name}")


@cli.command("reembed")
@json_option
@click.option("--to", "target", required=True, help="local | deterministic | openai:MODEL | a model name.")
@click.option("--batch-size", type=click.IntRange(min=1), default=256, show_default=True)
@click.pass_obj
def reembed_cmd(s: Settings, target: str, batch_size: int) -> None:
    """Re-embed every memory with another model; switches only when complete; run again to resume."""
    embedder = make_embedder(target)
    with s.storage() as storage:
        storage.begin_reembed(embedder.model_name, embedder.dimensions)
        done, total = storage.reembed_progress()
        with progress_bar("re-embedding", total - done) as advance:
            written = reembed(storage, embedder, batch_size, advance)
    s.emit(
        {"written": written, "model": embedder.model_name, "dimensions": embedder.dimensions},
        lambda: f"re-embedded {written} vectors; the store now uses {embedder.model_name}",
    )


@cli.command("backfill")
@json_option
@click.option("--batch-size", type=click.IntRange(min=1), default=256, show_default=True)
@click.pass_obj
def backfill_cmd(s: Settings, batch_size: int) -> None:
    """Embed memories that have no vector (e.g. after importing a snapshot without vectors)."""
    info = s.info()
    with s.storage() as storage:
        _, missing = storage.vector_coverage()
        with progress_bar("backfilling", missing) as advance:
            done = backfill(storage, s.embedder(info), batch_size, advance)
    s.emit({"embedded": done}, lambda: f"embedded {done} memories")


@cli.command("migrate-store")
@json_option
@click.option("--from", "source", required=True, help="The store to copy: an SQLite file or a postgresql:// URL.")
@click.option("--to", "target", required=True, help="An empty or new store: an SQLite file or a postgresql:// URL.")
@click.pass_obj
def migrate_store_cmd(s: Settings, source: str, target: str) -> None:
    """Copy a whole store (memories, records, audit log, vectors) into an empty one, e.g. SQLite -> PostgreSQL."""
    source_name, target_name = display_name(source), display_name(target)
    if same_store(source, target):
        raise CliError(f"--from and --to both name {source_name}; copy into another store", EXIT_USAGE)
    info = read_info(source)
    if info is None:
        raise CliError(f"no Audrey database at {source_name}; point --from at the store to copy", EXIT_NO_DATABASE)
    target_info = read_info(target)
    if target_info is not None and "reembed_model" in target_info:
        raise CliError(
            f"{target_name} has a re-embed to {target_info['reembed_model']} in progress; migrate into a new database",
            EXIT_REFUSED,
        )
    if target_info is not None and embedding_of(target_info) != embedding_of(info):
        raise CliError(
            f"{target_name} uses {target_info['embedding_model']}; {source_name} uses {info['embedding_model']}: "
            "migrate into a new database",
            EXIT_REFUSED,
        )
    with opened(source, info) as origin, opened(target, info) as destination:
        if not destination.is_empty():
            raise CliError(f"{target_name} already holds memories; migrate only into an empty database", EXIT_REFUSED)
        pending, vector_error = origin.reembed_target(), origin.vector_search_error()
        with progress_bar("copying", count_records(origin) if sys.stderr.isatty() else None) as advance:
            tally = copy_store(origin, destination, advance)
        without = destination.vector_coverage()[1]
    if without:
        reason = f" ({source_name} was read without vector search: {vector_error})" if vector_error else ""
        click.echo(
            f"note: {without} memories have no vector{reason}; run `audrey --db {target_name} backfill`", err=True
        )
    if pending is not None:
        click.echo(
            f"note: the re-embed to {pending[0]} in progress in {source_name} was not copied; run "
            f"`audrey --db {target_name} reembed --to {pending[0]}` to redo it",
            err=True,
        )
    data = {**asdict(tally), "without_vectors": without, "from": source_name, "to": target_name}
    s.emit(
        data,
        lambda: (
            f"copied {tally.records} records ({tally.memories} memories, {tally.vectors} vectors) "
            f"from {source_name} to {target_name}"
        ),
    )


@cli.command()
@json_option
@click.option("--llm-model", default=None, help="An OpenAI-compatible model for the demo (default: none, offline).")
@click.option("--llm-base-url", default=None, help="A compatible server's URL.")
def demo(llm_model: str | None, llm_base_url: str | None) -> None:
    """Tell the Stripe rate-limit story (offline by default)."""
    from .demo import main as run_demo

    args = [
        *(["--llm-model", llm_model] if llm_model else []),
        *(["--llm-base-url", llm_base_url] if llm_base_url else []),
    ]
    code = run_demo(args)
    if code:
        raise CliError("the demo did not complete", EXIT_FAILED)


@cli.command("mcp")
@click.option("--http", "address", default=None, metavar="HOST:PORT", help="Streamable HTTP at /mcp, not stdio.")
@click.option("--scope", default=None, metavar="PATH", help="Serve only this scope and below, e.g. user/alice.")
@click.option("--token", envvar="AUDREY_MCP_TOKEN", default=None, help="Bearer token (required off localhost).")
@click.pass_obj
def mcp_cmd(s: Settings, address: str | None, scope: str | None, token: str | None) -> None:
    """Serve this memory to MCP clients (Claude Desktop, Cursor, agents) over stdio or HTTP."""
    from .mcp_server import check_http, require_mcp, serve

    require_mcp()
    http = None
    if address is not None:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise CliError(f"--http takes HOST:PORT such as 127.0.0.1:8765, got {address!r}", EXIT_USAGE)
        http = (host.strip("[]"), int(port))
        check_http(http[0], token)
    labels = tuple(scope.strip("/").split("/")) if scope else None
    with s.audrey(create=True, scope=labels, config=AudreyConfig()) as brain:  # a server validates in the background
        serve(brain, http, token)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``audrey`` console script."""
    if sys.stderr.isatty():  # a person is watching: say why the first embedding takes seconds
        notice = logging.StreamHandler(sys.stderr)
        notice.setFormatter(logging.Formatter("%(message)s..."))
        logging.getLogger("audrey_core.providers.embedding").addHandler(notice)
        logging.getLogger("audrey_core.providers.embedding").setLevel(logging.INFO)
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="audrey")
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["cli", "main"]
