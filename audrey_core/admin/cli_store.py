"""``audrey`` subcommands on the store as a whole: export, import, reembed, backfill, migrate-store."""

from __future__ import annotations

import shutil
import sys
from dataclasses import asdict
from pathlib import Path

import click

from ..storage import (
    copy_store,
    count_records,
    display_name,
    embedding_of,
    is_postgres_url,
    open_storage,
    opened,
    read_info,
    same_store,
)
from .cli_settings import (
    EXIT_NO_DATABASE,
    EXIT_REFUSED,
    EXIT_USAGE,
    CliError,
    Settings,
    json_option,
    make_embedder,
    progress_bar,
)
from .maintenance import backfill, export_snapshot, import_snapshot, read_snapshot_header, reembed


@click.command("export")
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


@click.command("import")
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
        folder_made = created and not Path(f"{s.db}-indexes").exists()
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
            if created:  # a failed import into a new file leaves no file behind, nor the indexes' folder
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{s.db}{suffix}").unlink(missing_ok=True)
                if folder_made:
                    shutil.rmtree(f"{s.db}-indexes", ignore_errors=True)
            raise
        storage.close()
    s.emit({"records": count}, lambda: f"imported {count} records into {s.name}")


@click.command("reembed")
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


@click.command("backfill")
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


@click.command("migrate-store")
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
