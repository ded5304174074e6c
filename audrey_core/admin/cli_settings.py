"""What every ``audrey`` subcommand shares: the options (store, agent, embedder, JSON), opening the store with its
own embedding model, exit codes, tables and progress bars."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import click
import numpy as np

from ..audrey import Audrey
from ..config import AudreyConfig, ValidationConfig
from ..errors import AudreyError, EmbeddingMismatchError, InvalidInputError, NotFoundError
from ..models import to_plain
from ..providers.registry import embedder_for
from ..storage import (
    Storage,
    display_name,
    location,
    not_a_database,
    opened,
    read_info,
)

EXIT_FAILED, EXIT_USAGE, EXIT_NO_DATABASE, EXIT_NOT_FOUND, EXIT_REFUSED = 1, 2, 3, 4, 5
DEFAULT_DB = "./audrey-data/audrey.db"


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
        from ..providers.openai_compatible import OpenAIEmbedder

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
        self,
        create: bool = False,
        scope: Sequence[str] | None = None,
        config: AudreyConfig = CLI_CONFIG,
        embedding_progress: str | None = None,
    ) -> Iterator[Audrey]:
        """The store opened with its own embedding model; ``embedding_progress`` labels the progress of long
        embedding calls on a terminal."""
        info = self.info(must_exist=not create)
        if info is None:
            self.check_folder()
        embedder = self.embedder(info)
        with progress_bar(embedding_progress or "", None) as advance:
            if embedding_progress and sys.stderr.isatty():
                embedder = ProgressEmbedder(embedder, advance)
            with Audrey(self.db, agent=self.agent, embedder=embedder, config=config, scope=scope) as brain:
                yield brain

    def check_folder(self) -> None:
        """A new SQLite file goes into a folder that exists, except the default one (``./audrey-data``), which is
        made: a mistyped --db is refused, not made into a tree of new folders."""
        if isinstance(self.db, str) or self.db.parent.exists() or self.db == Path(DEFAULT_DB):
            return
        raise CliError(
            f"the folder {self.db.parent} does not exist: create it (mkdir -p {self.db.parent}) or point --db at a "
            "file in an existing folder",
            EXIT_NO_DATABASE,
        )

    @contextmanager
    def storage(self) -> Iterator[Storage]:
        with opened(self.db, self.info()) as storage:
            yield storage

    def emit(self, data: Any, human: Callable[[], str]) -> None:
        click.echo(json.dumps(to_plain(data), ensure_ascii=False) if self.as_json else human())


def other_agents(agents: dict[str, int], agent: str) -> dict[str, int]:
    """The store's other agents and their counts, when ``agent`` has no memories there (else none)."""
    return {} if agents.get(agent) else {name: count for name, count in agents.items() if name != agent}


def note_other_agents(agents: dict[str, int], agent: str) -> None:
    """On stderr: when ``agent`` has no memories in a store that holds others', which ones and how to reach them."""
    agents = other_agents(agents, agent)
    if not agents:
        return
    held = ", ".join(f"{name} ({count})" for name, count in sorted(agents.items(), key=lambda a: (-a[1], a[0])))
    click.echo(
        f"note: agent {agent!r} has no memories in this store; it holds {held}: pass --agent NAME (or AUDREY_AGENT)",
        err=True,
    )


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


class ProgressEmbedder:
    """An embedder that embeds a long call (the chunks of a long text) a slice at a time, reporting each slice: the
    model, its vectors and every other attribute are the wrapped embedder's."""

    SLICE = 64

    def __init__(self, embedder: Any, advance: Callable[..., None]) -> None:
        self._embedder, self._advance = embedder, advance

    def __getattr__(self, name: str) -> Any:
        return getattr(self._embedder, name)

    def embed(self, texts: Sequence[str]) -> Any:
        if len(texts) <= self.SLICE:
            return self._embedder.embed(texts)
        parts = []
        for start in range(0, len(texts), self.SLICE):
            part = list(texts[start : start + self.SLICE])
            parts.append(np.asarray(self._embedder.embed(part), dtype=np.float32))
            self._advance(len(part), total=len(texts))
        return np.vstack(parts)


class Progress:
    """One line of progress on stderr: done (of the total, when known), the share done and the rate, redrawn at most
    ten times a second. ``advance(n, total=None)`` adds ``n``; a total learned late (a consolidation's clusters)
    comes with it."""

    REDRAW_SECONDS = 0.1

    def __init__(self, label: str, total: int | None, stream: Any = None) -> None:
        self.label, self.total = label, total
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.started = time.monotonic()
        self.drawn = 0.0

    def advance(self, n: int, total: int | None = None) -> None:
        self.done += n
        if total is not None:
            self.total = total
        now = time.monotonic()
        if now - self.drawn >= self.REDRAW_SECONDS:
            self.drawn = now
            self._draw(now)

    def line(self, now: float) -> str:
        rate = self.done / max(now - self.started, 1e-9)
        if self.total:
            return f"{self.label}: {self.done:,}/{self.total:,} ({100 * self.done / self.total:.0f}%), {rate:,.0f}/s"
        return f"{self.label}: {self.done:,}, {rate:,.0f}/s"

    def _draw(self, now: float) -> None:
        self.stream.write("\r" + self.line(now) + "\x1b[K")
        self.stream.flush()

    def finish(self) -> None:
        if self.drawn:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()


class PipeProgress(Progress):
    """Progress where stderr is not a terminal (a pipe, a log file): a whole line every ``every`` seconds and one at
    the end, so a long job in a pipe is never silent, and no line is redrawn."""

    def __init__(self, label: str, total: int | None, every: float, stream: Any = None) -> None:
        super().__init__(label, total, stream)
        self.every = every
        self.drawn = time.monotonic()  # the first line after ``every`` seconds: a short job prints one line at most
        self.shown = 0  # what the last line said was done

    def advance(self, n: int, total: int | None = None) -> None:
        self.done += n
        if total is not None:
            self.total = total
        now = time.monotonic()
        if now - self.drawn >= self.every:
            self.drawn = now
            self._write(now)

    def _write(self, now: float) -> None:
        self.shown = self.done
        self.stream.write(self.line(now) + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.done != self.shown and time.monotonic() - self.started >= self.every:
            self._write(time.monotonic())


@contextmanager
def progress_bar(label: str, total: int | None, pipe_every: float | None = None) -> Iterator[Callable[..., None]]:
    """Progress with a rate on stderr while the work runs (``advance(n, total=None)``). Where stderr is not a
    terminal (a pipe, a log file), nothing, unless ``pipe_every``: then a line every that many seconds (scripts read
    the result, a person watching a long job's log sees it move)."""
    if not sys.stderr.isatty():
        if pipe_every is None:
            yield lambda n, total=None: None
            return
        piped = PipeProgress(label, total, pipe_every)
        try:
            yield piped.advance
        finally:
            piped.finish()
        return
    progress = Progress(label, total)
    try:
        yield progress.advance
    finally:
        progress.finish()


def _json_flag(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        ctx.find_object(Settings).as_json = True


json_option = click.option(
    "--json", "as_json_here", is_flag=True, expose_value=False, callback=_json_flag, help="Print JSON for scripts."
)


def parse_address(address: str, example: str) -> tuple[str, int]:
    """``--http HOST:PORT`` as (host, port), an IPv6 host without its brackets; bad usage otherwise."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise CliError(f"--http takes HOST:PORT such as {example}, got {address!r}", EXIT_USAGE)
    return host.strip("[]"), int(port)
