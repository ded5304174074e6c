"""Derived search indexes beside the database: caches of what the database holds, caught up from its change log and
rebuilt from it whenever they are missing, damaged or stale. The database stays the only truth.

The thread contract (read this before changing a lock or a thread here; ARCHITECTURE.md has the same in short)
=================================================================================================================

Locks, and what each guards:

1. ``IndexFolder.writer_lock()`` (folder.py): being the one writer of an index folder's files (snapshots, the state
   file, tantivy segments), across threads (a ``threading.Lock``) and processes (``flock`` on ``writer.lock``, which
   the kernel releases when its holder dies). Waits at most ``WRITER_WAIT_S`` and no longer than its ``stop()``,
   then raises ``IndexLockTimeout`` (an ``OSError``: a search that meets it goes to the database).
2. ``VectorIndex.lock`` (vector.py): what the vector index knows, every piece of it declared once in
   ``VectorState.__init__`` (vector_state.py): which graph, the float32 rows, the partition table, the waiting
   rows, the change applied and saved, mapped / stale; and its parts' thread handles. ``KeywordIndex._lock``
   (keyword.py) likewise: the open tantivy index, its generation and the change applied (a keyword search only
   tries it, to follow another process's commit, and never waits for it: a searcher is a consistent view of one
   commit).
3. ``VectorIndex.graph_lock``: the usearch graph's contents (search, add, remove, save) and the slices inserted but
   not yet taken out of the waiting rows (``landed``; ``graph_held()`` takes the lock and lands them).
4. The store's locks (storage/sqlite/store.py): ``_lock`` (the main connection, every write transaction) and
   ``_side_lock`` (the side connection the indexes read the log and rows through).
5. Leaves, held for a few instructions around no other lock: ``CatchesUpOnce._batches_lock`` (once.py),
   ``KeywordIndex._wanted`` (a catch-up request), the worker and scheduler conditions (stages/), the thread
   registry's (audrey_core/threads.py).

Waits: the in-process locks above are held for bounded work and taken in one order, so they are waited for without
a limit; every other wait has one and names what it waited for: the writer lock (another process; opening a store
waits ``OPEN_WAIT_S``, then leaves the catch-up to the index's thread), joining a thread (``threads.join``), a
scheduled consolidation at close. Only an idle worker waits for work unbounded, and
``close()`` or exit wakes it; draining validation's queue at ``close()`` logs what is left every minute.

The one order, on every path: writer lock -> the index's ``lock`` -> ``graph_lock`` -> the store's locks. A thread
never waits for a lock while holding one later in the order. Where a path needs an earlier lock it lets go first:
a catch-up that finds it must rebuild releases ``lock`` and takes the writer lock, then ``lock`` again, and checks
again (``VectorIndex._ensure_fresh``, ``KeywordIndex._ensure_fresh``); a background save lets go of ``lock`` while it
writes the graph under ``graph_lock`` and takes ``lock`` back only after letting go of ``graph_lock``
(``_write_snapshot``). A search that finds a background insert mid-slice waits for ``graph_lock`` (one slice, ~30 ms);
no other path waits for ``graph_lock`` holding ``lock``: a slice inserted lands when no one holds the graph
(``land_now``), else on the next ``graph_held()``, and a bulk slice (a backlog, ~1 s at 100k rows) counts as under
way from the moment it is taken, so searches scan every row exactly rather than wait for it.

Transactions: a thread inside a read or write of the store (holding its ``_lock``) never touches an index: the
storage layer sends its searches to the database (``SQLiteIndexedSearch._from_index``, ``get_vectors``), which also
sees the transaction's own rows. So no index lock is ever waited for under the store's lock, and an index's log reads
(the side connection, committed data) and prunes (short write transactions of their own) run outside any caller's.

Who owns what: ``VectorIndex`` and ``KeywordIndex`` own all their state (``VectorIndex`` is a ``VectorState``: the
state, declared once, apart from the behaviour). ``GraphInserts`` (vector_inserts.py) and ``SnapshotSaves``
(vector_snapshot.py) are parts of a ``VectorIndex``, given its state at construction: they own their threads and act
on that state under its locks; ``CatchUpOnce`` (once.py) and ``PartitionTable``
(vector_partitions.py) hold only their own.

Threads: every one is started by ``audrey_core.threads.start`` (never a daemon: a daemon thread inside usearch or
tantivy at interpreter exit aborts the process), is joined by its owner's ``close()`` with a timeout that names what
it waited for, and checks ``closed or threads.stopping()`` between slices of work:

- ``audrey-graph-insert`` (``VectorIndex._inserter``): moves waiting rows into the graph,
  ``IndexConfig.insert_slice`` at a time (bulk slices for a backlog); started by a catch-up once
  ``IndexConfig.pending_max`` rows wait; stops between slices.
- ``audrey-graph-save`` (``VectorIndex._saver``): writes a snapshot after ``IndexConfig.save_after`` changes; stops
  waiting for the writer lock once closing; a write under way finishes (seconds at 1M rows).
- ``audrey-graph-copy`` (``VectorIndex._copy``): copies a mapped snapshot into memory before the first insert (one
  usearch call, under a second at 1M rows).
- ``audrey-keyword-catch-up`` (``KeywordIndex._writer``): applies the keyword log on request (a search that found
  the index behind asks), under the writer lock: commits, writes the state file, prunes the log; waits for the
  writer lock (another process's rebuild) here, never in a search; ends at close or exit.
- ``audrey-graph-build`` (``VectorIndex._builder``) and ``audrey-keyword-build`` (``KeywordIndex._builder``): a
  rebuild, from a search always, from opening a store of more than ``IndexConfig.build_inline_upto`` rows; holds the
  writer lock throughout, the index's lock only to install what it built; stops between batches once closing.
- ``audrey-prefetch`` (``VectorIndex._prefetcher``, ``SQLiteStorage._prefetcher``): reads a large store's files
  into the OS cache; stops between 16 MB reads.

Outside this package, the same registry starts ``audrey-validation`` (stages/worker.py) and ``audrey-consolidation``
(stages/scheduler.py); recall's search pool is a ``concurrent.futures`` pool, which the interpreter joins itself.

Shutdown: ``Audrey.close()`` stops the schedule (a run under way finishes), validates what is queued, then closes the
store, which closes both indexes (no new slice, save, copy or build batch starts; each thread above is joined) and
then the connections. At interpreter exit without ``close()``, ``threads._at_exit`` (run before the interpreter joins
threads) tells every owner to stop: validation ends after its batch and releases its claims (the next open of the
store validates the rest: storage/sql/validation_queue.py), the index threads end at their next slice, and committed
writes are in the database already. A search never waits on a thread to end.

Where upkeep runs: a search never takes a writer lock, commits or saves an index, writes a state file or prunes a
log. The vector index catches up in memory in the thread that searches (the changed rows read into the waiting rows,
searched exactly until the insert thread takes them), once per validation batch (once.py). The keyword index does not
catch up on a search: the search reads its last commit (``KeywordIndex.view``), ranks the rows changed since through
FTS5 (the storage layer, ``_keyword_tail``; more than ``IndexConfig.keyword_tail_max`` of them, and FTS5 answers the
whole search) and wakes ``audrey-keyword-catch-up``. A rebuild (no usable snapshot, a log pruned past the index, a
bulk load larger than a catch-up) runs on a build thread, and until it is installed ``ensure_fresh`` / ``view``
raise ``IndexNotReady`` and the storage layer sends the search to the database (exact, slower): never minutes, nor
another process's lock, inside a recall. Opening a store (``VectorIndex.open_fresh``, ``KeywordIndex.ensure_fresh``)
may rebuild a store of at most ``build_inline_upto`` rows in place (seconds). Validation's worker, which can wait,
waits for a build between its batches (``storage.wait_for_indexes``) rather than scan the database for every search.
``wait_for_idle`` catches both indexes up on the caller's thread, and ``audrey reindex`` (``rebuild()``) builds
there, on purpose.

What recall writes: nothing, on the caller's thread. The principles the consumer took are handed to the
``audrey-retrieval`` worker (stages/background.py), which reinforces them in one short write transaction; with
``ValidationConfig(background=False)`` the caller does. Reads outside a transaction go through the side connection
(storage/sqlite/store.py, ``_read``), so a read never waits for a write on the main one, which may itself wait for
another process's transaction.
"""

from .. import native_order

native_order.first()  # onnxruntime before usearch: see there

from .keyword import KeywordIndex, keyword_index_available  # noqa: E402
from .vector import VectorIndex, vector_index_available  # noqa: E402

__all__ = ["KeywordIndex", "VectorIndex", "keyword_index_available", "vector_index_available"]
