"""The keyword index: BM25 over every memory's text (tantivy, English stemming), a derived copy of the text rows.

Why: FTS5's ``ORDER BY rank`` scores every document holding any query term, so keyword recall grew linearly with the
store (172 ms at 100k chat turns); tantivy's block-max WAND answers the same top 50 in about a millisecond.

How it stays right: the database logs every text row added or removed (``search_changes``, filled by triggers in the
same transaction as the change). The index records the last change it applied; a search reads the last commit
(:meth:`KeywordIndex.view`) and the caller ranks the rows changed since through the database, so a process killed
between its commit and the index write loses nothing, and a search never writes or waits on a writer. Catching up is
the work of one thread per index (``audrey-keyword-catch-up``), which a search that finds the index behind wakes. The
index holds the agent, memory type and scope words of each row, to filter inside the search; every other filter is
confirmed in the database by the caller. A missing, damaged or foreign index is rebuilt from the database: foreign
means another format, another store (the database's id, recorded with the index: a folder left by a deleted database
at this path) or ahead of the log (a database restored from an older copy: the changes the index holds past its log
are not this database's).
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .. import threads
from ..config import MEMORY_TYPES
from ..errors import IndexNotReady
from ..index_settings import KEYWORD_PRUNE_AFTER, KEYWORD_REBUILD_AFTER, WRITER_HEAP, IndexConfig
from ..rules.keywords import informative_terms
from .folder import WRITER_WAIT_S, IndexFolder
from .keyword_query import LENGTH_PAD, analyzer, length_padding, ranked_query, schema
from .once import check_not_building
from .threads import background, exiting

try:
    import tantivy
except ImportError:  # a platform without wheels: Audrey searches through SQLite's FTS5 instead
    tantivy = None  # type: ignore[assignment]

log = logging.getLogger(__name__)
FORMAT = 4  # bump when the schema, the analyzer or what a document holds changes: older folders are rebuilt


def keyword_index_available() -> bool:
    return tantivy is not None


class TextSource(Protocol):
    """What the index reads from the database (committed data only)."""

    store_id: str  # the database's identity, recorded with the index

    def search_log_head(self) -> int: ...
    def search_log_since(self, seq: int) -> tuple[int, list[int]] | None: ...
    def text_row_count(self) -> int: ...
    def text_documents(self, rowids: Sequence[int] | None) -> Iterable[tuple[int, str, str, str, str, str]]: ...
    def prune_search_log(self, upto: int) -> None: ...


@dataclass(frozen=True)
class KeywordView:
    """What a search reads: a searcher of one commit and the last logged change it holds."""

    searcher: Any
    applied: int
    head: int  # the log's last change when it was taken: rows changed after ``applied`` up to it are not in it


@dataclass(frozen=True)
class KeywordMatches:
    hits: list[tuple[int, float]]  # (text row id, BM25 score), best first
    memory_types: list[str]  # the memory type of each hit
    total: int | None  # rows matching the query and the in-index filters, when counted


class KeywordIndex:
    """One store's keyword index, in ``folder`` (None: in memory). Thread-safe; any number of processes may share a
    folder: one writes at a time, the others reload what it committed."""

    def __init__(self, folder: Path | None, source: TextSource, config: IndexConfig | None = None) -> None:
        self.config = config or IndexConfig()  # sizes and thresholds of this index (AudreyConfig.index)
        if tantivy is None:
            raise RuntimeError("the tantivy package is not installed")
        self.folder = IndexFolder(folder)
        self.source = source
        self.schema = schema()
        self.analyzer = analyzer()
        self._lock = threading.RLock()
        self._index: Any = None
        self._generation: str | None = None
        self.applied = -1
        self.closed = False  # no background build or catch-up starts once set
        self._builder: threading.Thread | None = None  # audrey-keyword-build
        self._build_error: Exception | None = None  # why the last background build failed (raised once)
        self._writer: threading.Thread | None = None  # audrey-keyword-catch-up
        self._wanted = threading.Condition()  # a leaf: guards the request below and wakes the catch-up thread
        self._catch_up_wanted = False
        threads.register(self)

    # -- reading ------------------------------------------------------------------------------------------------

    def view(self) -> KeywordView:
        """The last commit this process can open, without writing or waiting on a writer: a commit another process
        made is followed when no catch-up of ours holds the index; one behind the log wakes the catch-up thread (the
        caller ranks the rows changed since through the database). :class:`IndexNotReady` when there is none yet or
        a rebuild runs (the database answers meanwhile)."""
        check_not_building(self, "keyword")
        head = self.source.search_log_head()
        if (self._index is None or self.applied < head) and self._lock.acquire(blocking=False):
            try:
                self._follow(self.folder.read_state())  # another process may have committed it: read, no write
            finally:
                self._lock.release()
        applied, index = self.applied, self._index  # in this order: a searcher opened after holds at least that
        if index is None or applied < head:
            self.request_catch_up()
        if index is None:
            raise IndexNotReady("the keyword index is not built yet")
        return KeywordView(index.searcher(), applied, head)

    def request_catch_up(self) -> None:
        """Wake the catch-up thread (started on first use): it applies the log, or starts a rebuild."""
        with self._wanted:
            if self.closed:
                return
            self._catch_up_wanted = True
            if self._writer is None or not self._writer.is_alive():
                self._writer = background(self._catch_up_on_request, "audrey-keyword-catch-up")
            self._wanted.notify()

    def _catch_up_on_request(self) -> None:
        """The catch-up thread: waits for a request, then catches up, holding the writer lock (another process's
        rebuild may hold it for minutes: it waits here, never in a search). A failure is logged and the next request
        tries again. Ends when the index closes or the interpreter exits."""

        def stop() -> bool:
            return self.closed or exiting()

        while True:
            with self._wanted:
                while not self._catch_up_wanted and not stop():
                    self._wanted.wait()
                if stop():
                    return
                self._catch_up_wanted = False
            try:
                self._ensure_fresh(stop)
            except IndexNotReady:
                pass  # a rebuild runs in the background: it catches up when it is done
            except (OSError, ValueError, RuntimeError) as exc:  # another writer held on past WRITER_WAIT_S, a full disk
                log.warning("keyword index not caught up (%s); searches rank the rows since through the database", exc)

    # -- freshness ----------------------------------------------------------------------------------------------

    def ensure_fresh(self, wait: float = WRITER_WAIT_S) -> None:
        """Apply every logged change not in the index yet, on this thread (opening a store, ``wait_for_idle``,
        ``audrey reindex``: never a search). :class:`IndexNotReady` while a rebuild runs in the background;
        :class:`~.folder.IndexLockTimeout` when another writer holds the folder past ``wait`` seconds."""
        self._ensure_fresh(wait=wait)

    def _ensure_fresh(self, stop: Callable[[], bool] = lambda: False, wait: float = WRITER_WAIT_S) -> None:
        """Apply every logged change not in the index yet (rebuilding it when the log no longer reaches back, a bulk
        load makes replaying slower than building, or its files cannot be read or written). A rebuild of more rows
        than ``build_inline_upto`` runs in the background: :class:`IndexNotReady` until it is done. ``stop`` and
        ``wait``: give up waiting for the writer lock (closing; another process's rebuild)."""
        check_not_building(self, "keyword")
        with self._lock:
            head = self.source.search_log_head()
            if self._index is not None and self.applied >= head:
                return  # current: no state file to read on the search path
            self._follow(self.folder.read_state())  # another process may have applied it already
            if self._index is not None and self.applied >= head:
                return
        with self.folder.writer_lock(wait, stop), self._lock:  # the writer lock first (the package's lock order)
            if self._index is not None and self.applied >= head:
                return  # caught up by another thread meanwhile
            state = self.folder.read_state()  # another process may have caught up meanwhile
            self._follow(state)
            current = self._index is not None and state.get("generation") == self._generation
            try:
                if current and (self.applied >= head or self._catch_up()):
                    return
            except (OSError, ValueError) as exc:  # its files deleted or damaged under us
                log.warning("keyword index cannot be caught up (%s); rebuilding it", exc)
            if self.source.text_row_count() > self.config.build_inline_upto:
                self._start_build()
                raise IndexNotReady("the keyword index is being rebuilt in the background")
            self._rebuild()  # none yet, ours is gone (the folder deleted under us), or a bulk load

    def building(self) -> bool:
        """Whether a rebuild runs in the background (searches go to the database meanwhile)."""
        return self._builder is not None and self._builder.is_alive()

    def wait_for_build(self, timeout: float | None) -> bool:
        """Wait up to ``timeout`` seconds (None: as long as it takes) for a background rebuild to end; whether none
        runs now."""
        return threads.join(self._builder, "rebuilding the keyword index", timeout, quiet=True)

    def _start_build(self) -> None:
        if not self.building() and not self.closed:
            self._builder = background(self._build_in_background, "audrey-keyword-build")

    def _build_in_background(self) -> None:
        """Build a new generation holding only the writer lock (searches go to the database meanwhile), then switch
        to it and catch up what was committed during the build. Stops between rows once the index closes."""
        stop = lambda: self.closed or exiting()  # noqa: E731
        try:
            with self.folder.writer_lock(stop=stop):
                with self._lock:
                    state = self.folder.read_state()
                    self._follow(state)
                    current = self._index is not None and state.get("generation") == self._generation
                    if current and (self.applied >= self.source.search_log_head() or self._catch_up()):
                        return  # another process rebuilt it meanwhile
                head = self.source.search_log_head()  # read first: changes after it are caught up below
                built = self._build(stop)
                if built is None:
                    return
                with self._lock:
                    self._install(*built, head)
                    if self.applied < self.source.search_log_head():
                        self._catch_up()  # what was committed during the build (or, if too much, the next search)
        except Exception as exc:  # a cache: searches go to the database; the next search reports it, then retries
            log.warning("keyword index not rebuilt (%s)", exc)
            self._build_error = exc

    def close(self) -> None:
        """Stop the catch-up thread and a background rebuild, and wait for them. Nothing else to release."""
        self.stop_for_exit()
        threads.unregister(self)
        threads.join(self._writer, "catching the keyword index up")
        threads.join(self._builder, "rebuilding the keyword index")

    def stop_for_exit(self) -> None:
        with self._wanted:
            self.closed = True
            self._wanted.notify_all()

    def _follow(self, state: dict[str, Any]) -> None:
        """Open (or reload) the generation the state names, if it is usable."""
        generation = state.get("generation")
        if state.get("format") != FORMAT or generation is None or state.get("store") != self.source.store_id:
            return  # another format, or left by another database at this path (deleted or replaced)
        if int(state["applied"]) > self.source.search_log_head():  # the head read after the state: never behind it
            log.warning("keyword index is ahead of its database (restored from an older copy?); rebuilding it")
            return
        if self.folder.path is None:
            if self._index is not None:
                self.applied = int(state["applied"])
            return
        path = self.folder.path / generation
        try:
            if generation != self._generation:
                if not path.is_dir() or not tantivy.Index.exists(str(path)):
                    return  # gone or damaged (tantivy would make an empty index there, taken for a whole one)
                self._index, self._generation = self._open(path), generation
            elif int(state["applied"]) != self.applied:
                self._index.reload()
        except (OSError, ValueError) as exc:  # files missing (deleted under us) or damaged
            log.warning("keyword index %s cannot be read (%s); rebuilding it", path, exc)
            self._generation = None  # so the caller rebuilds; searches under way keep the index they hold
            return
        self.applied = int(state["applied"])

    def _open(self, path: Path | None) -> Any:
        index = tantivy.Index(self.schema) if path is None else tantivy.Index(self.schema, path=str(path))
        index.register_tokenizer("audrey_en", self.analyzer)
        return index

    def _rebuild(self) -> None:
        """Build a new generation here and switch to it (the caller holds the writer lock and ``_lock``)."""
        head = self.source.search_log_head()  # read first: changes after it are caught up later
        built = self._build()
        assert built is not None  # never stopped
        self._install(*built, head)

    def _build(self, stop: Callable[[], bool] = lambda: False) -> tuple[Any, str] | None:
        """A new generation holding every text row (the caller holds the writer lock); None if ``stop()`` became
        true first. No one searches it until :meth:`_install`."""
        generation = self.folder.next_generation()
        path = None
        if self.folder.path is not None:
            path = self.folder.path / generation
            shutil.rmtree(path, ignore_errors=True)
            path.mkdir()
        index = self._open(path)
        writer = index.writer(WRITER_HEAP, 1)
        count = 0
        for row in self.source.text_documents(None):
            writer.add_document(self._document(*row))
            count += 1
            if count % 4096 == 0 and stop():
                writer.rollback()
                if path is not None:
                    shutil.rmtree(path, ignore_errors=True)
                return None
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        log.info("keyword index built: %d rows", count)
        return index, generation

    def _install(self, index: Any, generation: str, head: int) -> None:
        """Search ``index`` from now on, as of change ``head`` (the caller holds the writer lock and ``_lock``)."""
        self.folder.write_state(self._state(generation, head))
        self._index, self._generation, self.applied = index, generation, head
        if self.folder.path is not None:
            for old in self.folder.path.glob("g*"):
                if old.is_dir() and old.name != generation:
                    shutil.rmtree(old, ignore_errors=True)

    def _catch_up(self) -> bool:
        """Replay the log since the change applied (the caller holds the writer lock and ``_lock``); False, with
        nothing changed, when only a rebuild can: the log was pruned past the index, or a bulk load makes replaying
        it slower than building afresh."""
        found = self.source.search_log_since(self.applied)
        if found is None:
            return False
        upto, rowids = found
        changed = sorted(set(rowids))
        if len(changed) > max(KEYWORD_REBUILD_AFTER, self._index.searcher().num_docs // 2):
            return False
        before = self.applied
        writer = self._index.writer(WRITER_HEAP, 1)
        # one delete for all (by query: a delete by term does not match a u64 field from Python)
        writer.delete_documents_by_query(tantivy.Query.term_set_query(self.schema, "row", changed))
        for row in self.source.text_documents(changed):
            writer.add_document(self._document(*row))  # what the row holds now: replaying twice changes nothing
        writer.commit()
        writer.wait_merging_threads()
        self._index.reload()
        self.folder.write_state(self._state(self._generation, upto))
        self.applied = upto
        if upto // KEYWORD_PRUNE_AFTER > before // KEYWORD_PRUNE_AFTER:  # now and then, not on every catch-up
            self.source.prune_search_log(upto)
        return True

    def _state(self, generation: str | None, applied: int) -> dict[str, Any]:
        return {"format": FORMAT, "store": self.source.store_id, "generation": generation, "applied": applied}

    def _document(self, rowid: int, agent: str, memory_type: str, scopes: str, content: str, context: str) -> Any:
        document = tantivy.Document()
        document.add_unsigned("row", rowid)
        document.add_text("content", content)
        document.add_text("context", context)
        document.add_text("content", length_padding(context, scopes))  # the field's length as the row's
        document.add_text("agent", agent)
        document.add_text("type", memory_type)
        document.add_unsigned("kind", MEMORY_TYPES.index(memory_type))
        document.add_text("scopes", scopes)
        return document

    def files(self) -> list[Path]:
        """The files of the generation in use (none in memory), for reading ahead."""
        if self.folder.path is None or self._generation is None:
            return []
        return sorted(p for p in (self.folder.path / self._generation).iterdir() if p.is_file())

    def rebuild(self) -> None:
        """Build the index again from the database (``audrey reindex``)."""
        with self.folder.writer_lock(), self._lock:
            self._rebuild()

    # -- search -------------------------------------------------------------------------------------------------

    def search(
        self,
        terms: Sequence[str],
        limit: int,
        agent: str | None = None,
        memory_types: Sequence[str] | None = None,
        scope_words: Sequence[str] = (),
        count: bool = False,
        rows: Sequence[int] | None = None,
        view: KeywordView | None = None,
        skip_rows: Sequence[int] = (),
    ) -> KeywordMatches:
        """The ``limit`` best rows for any of ``terms`` (BM25), among the agent's rows of ``memory_types`` that
        carry every one of ``scope_words``. ``count`` also counts every match, which visits them all (fewer hits
        than ``limit`` already says every match is in). ``rows``: only these text rows; ``skip_rows``: not these
        (changed since ``view``'s commit: the caller ranks them through the database). ``view``: the commit to
        search (by default the latest this process opened)."""
        searcher = (view or self.view()).searcher  # no lock: a search never waits on a catch-up
        stems = list(dict.fromkeys(s for term in terms for s in self.analyzer.analyze(term) if s != LENGTH_PAD))
        if not stems:
            return KeywordMatches([], [], 0 if count else None)
        total = searcher.num_docs
        counts = {s: searcher.doc_freq("content", s) for s in stems}
        stems = informative_terms(stems, counts, total)  # as FTS5 ranking did
        query = ranked_query(self.schema, searcher, stems, counts, agent, memory_types, scope_words, rows, skip_rows)
        result = searcher.search(query, int(limit), count=count)
        addresses = [address for _, address in result.hits]
        rows = searcher.fast_field_values("row", addresses)
        kinds = searcher.fast_field_values("kind", addresses)
        hits = [(int(r), float(s)) for r, (s, _) in zip(rows, result.hits)]
        return KeywordMatches(hits, [MEMORY_TYPES[k] for k in kinds], int(result.count) if count else None)

    def status(self) -> dict[str, Any]:
        with self._lock:
            documents = self._index.searcher().num_docs if self._index is not None else 0
            return {
                "engine": "tantivy",
                "documents": documents,
                "applied": self.applied,
                "lag": max(0, self.source.search_log_head() - self.applied),
                "bytes": self.folder.size_on_disk(),
                "folder": str(self.folder.path) if self.folder.path is not None else ":memory:",
            }
