"""The settings of a store's derived search indexes and of the background work around them: module constants
measured on the machine this project is built on (per process, tuned to the machine rather than to the memory), and
:class:`IndexConfig`, the ones an instance can pass in (``AudreyConfig(index=IndexConfig(...))``). Re-exported by
:mod:`audrey_core.config`."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ConfigurationError

# -- Derived search indexes and background work: per process, tuned to the machine rather than to the memory --------

WARM_FROM_BYTES = 256 << 20
"""a store file this large (and its keyword index) is read ahead in the background on open"""
RECALL_SEARCH_THREADS = 4
"""threads that run a hybrid recall's vector search beside its keyword search"""
GIVE_WAY_S = 0.05
"""seconds validation waits at most for the recalls under way to finish, once it worked VALIDATION_TURN_S"""
VALIDATION_TURN_S = 0.01
"""seconds validation works between two waits for recalls (see threads.ReadersFirst): a steady stream of recalls
leaves it about a sixth of the time"""

# The vector index (usearch HNSW over int8 codes, re-scored against float32 rows)
CONNECTIVITY = 16
"""links per node of the graph (usearch's connectivity)"""
EXPANSION_ADD = 128
"""below ADD_WIDER_FROM rows; twice as wide above"""
ADD_WIDER_FROM = 250_000
"""rows from which each insert walks the graph twice as widely (EXPANSION_ADD x 2)"""
EXPANSION_SEARCH = 128
"""at 100k rows; smaller graphs narrow it, larger ones widen it (see expansion_for)"""
EXPANSION_MIN = 64
"""the narrowest search walk, for small graphs"""
SAVE_AFTER = 10_000
"""changes applied in memory before a new snapshot is written"""
VECTOR_REBUILD_AFTER = 20_000
"""more changes than this (and than half the graph) to catch up: rebuild instead"""
BUILD_INLINE_UPTO = 20_000
"""A rebuild of more rows than this runs on a background thread while searches go to the database (exact, slower); of
fewer, in the thread that needs it (20,000 rows: ~3 s for the graph, ~1 s for the keyword index on two cores)."""
EXACT_BELOW = 5_000
"""row ids below this: scanned exhaustively (as fast as walking the graph, and exact)"""
PENDING_MAX = 512
"""rows caught up but not yet in the graph, searched exactly, before a background insert begins"""
PENDING_BUSY = 4_096
"""waiting rows a validation run of graph searches inserts itself (~0.4 ms to scan them all)"""
RESCORE_EXTRA = 16
"""int8 codes order near ties differently from float32: re-score this many more than asked"""
QUIET = 0.005
"""seconds without a graph search before a background insert takes the graph from a run of them"""
PREFETCH_FROM = 100_000
"""a mapped snapshot this large is read through in the background once loaded"""
COPY_SHARE = 0.01
"""a mapped graph is copied (to insert into) once this share of its size waits beside it"""
BULK_SLICE_S = 0.25
"""seconds a bulk slice (PENDING_BUSY rows waiting or more) should hold the graph"""
BULK_SLICE_MAX = 16_384
"""rows in one bulk slice at most"""
INSERT_SLICE = 128
"""rows a background insert adds at once, holding the graph: ~20 ms at 100k rows on two cores"""

# The keyword index (tantivy)
WRITER_HEAP = 50_000_000
"""bytes of memory the index writer may use"""
KEYWORD_PRUNE_AFTER = 10_000
"""applied log entries kept before they are deleted"""
KEYWORD_REBUILD_AFTER = 20_000
"""more changes than this (and than half the index) to catch up: rebuild instead"""
KEYWORD_TAIL_MAX = 5_000
"""text rows changed since the keyword index's last commit that a search ranks through FTS5 beside it; more (a bulk
load not caught up yet), and FTS5 answers the whole search"""

KEYWORD_CONTEXT_TURNS = (1, 1)
"""Conversation turns in the full text (stored in the database, so one setting per store, not per instance): a turn's
text row also holds the words of the turns this many places before and after it in its session, searched beside its
own words at this weight (tantivy's field boost, FTS5's bm25 column weight, PostgreSQL's weight D). A reply ("Yes, it
was great!") is found by the question it answers. Measured with benchmarks.conversations (see README)."""
KEYWORD_CONTEXT_WEIGHT = 0.3

SCAN_US_PER_ROW = 1.5
"""Cost model for choosing between the graph and sqlite-vec's exact scan of a filter's partitions, measured on two cores
at 384 dimensions: a scan costs about 1.5 us per row; a graph search about 0.5 ms plus 4 us per candidate."""
GRAPH_US_BASE = 500.0
GRAPH_US_PER_CANDIDATE = 4.0
GRAPH_MAX_SHARE = 0.5
"""a search that must visit more of the graph than this scans instead (exact, and cheaper)"""

DEFAULT_EF_SEARCH = 400
"""PostgreSQL HNSW's candidate list per query (pgvector's default is 40). Measured on 10k random 384-d unit vectors, the
hard case (m=16, ef_construction=64, pgvector's defaults): recall of the exact top 10 39% at 40, 62% at 100, 82% at
200, 95% at 400, at 0.7 / 1.1 / 1.8 / 2.9 ms per query; sentence embeddings have structure and do better."""
HNSW_EF_CONSTRUCTION = 128
"""How widely PostgreSQL's HNSW graph is searched for each new vector's links (pgvector's default is 64; SQLite's graph
adds with EXPANSION_ADD, 128). Measured on 100k LoCoMo turns repeated with an offset (``benchmarks.bulk_load``'s chat
turns: clusters of near-copies, HNSW's hard case), 200 questions at DEFAULT_EF_SEARCH: 64 kept 84-90% of the exact
top 10, 128 keeps 97%; 100k rows index in 27-32 s instead of 18-19, and join a live index at ~600 rather than ~850 a
second. Distinct texts kept 99.7% at 64 already."""
NEIGHBOUR_EF_SEARCH = 40
"""PostgreSQL HNSW's candidate list for a batch's nearest few neighbours (validation's, k <= this; pgvector's
default). On 99k one-statement texts, 300 queries: of the 1,752 neighbours of cosine >= 0.5 among the exact top 6,
40 finds 1,736 and 100 finds 1,740 (every one missed is under 0.7; restatements, >= 0.85, are all found), at 2.1
against 4.5 ms a query. At 400 the planner prices the walk above an exact scan of a 10k store."""
SPAN_EXACT_UPTO = 5_000
"""memories of a time span searched among themselves, exactly (see span_memories), rather than with a filter"""
KEYWORD_CANDIDATES = 2_000
"""rows a keyword search ranks before widening"""


@dataclass(frozen=True)
class IndexConfig:
    """The derived search indexes beside an SQLite store and the cost model that chooses between them and an exact
    scan: ``Audrey(config=AudreyConfig(index=IndexConfig(...)))``. Each default is the module constant of the same
    name (upper case) above, measured on two cores. One store's indexes are opened by the instance that opens it, so
    instances opening one file in a process should pass the same. PostgreSQL's indexes are the server's: only the
    time-span bound and the keyword candidates apply there."""

    exact_below: int = EXACT_BELOW
    """Rows below which the vector index scans every row it holds exactly instead of walking the graph."""
    build_inline_upto: int = BUILD_INLINE_UPTO
    """An index rebuilt from more rows than this is rebuilt on a background thread (searches go to the database)."""
    prefetch_from: int = PREFETCH_FROM
    """A mapped graph snapshot of this many rows or more is read through in the background once loaded."""
    save_after: int = SAVE_AFTER
    """Changes applied in memory before a new vector snapshot is written."""
    pending_max: int = PENDING_MAX
    """Rows caught up beside the graph (searched exactly) before a background insert puts them in."""
    pending_busy: int = PENDING_BUSY
    """Waiting rows from which inserts go in bulk slices and a run of searches no longer keeps them away."""
    insert_slice: int = INSERT_SLICE
    """Rows a background insert adds at once while holding the graph."""
    scan_us_per_row: float = SCAN_US_PER_ROW
    """The cost model's price of scanning one row exactly, in microseconds."""
    graph_max_share: float = GRAPH_MAX_SHARE
    """A search that must visit more of the graph than this share scans instead."""
    warm_from_bytes: int = WARM_FROM_BYTES
    """A store file this large (and its keyword index) is read ahead in the background when opened."""
    retry_index_after_s: float = 30.0
    """After an index fails, searches go to the database for this long before the index is tried again."""
    span_exact_upto: int = SPAN_EXACT_UPTO
    """A time range holding at most this many memories is searched among them exactly (both backends)."""
    keyword_candidates: int = KEYWORD_CANDIDATES
    """PostgreSQL: rows a keyword search gathers through its rarest terms before ranking over every term."""
    keyword_tail_max: int = KEYWORD_TAIL_MAX
    """Text rows changed since the keyword index's last commit that a search ranks through FTS5 beside the index;
    with more, FTS5 answers the whole search until the catch-up thread has applied them."""

    def __post_init__(self) -> None:
        counts = (self.exact_below, self.build_inline_upto, self.prefetch_from, self.warm_from_bytes)
        counts += (self.span_exact_upto, self.keyword_tail_max)
        least_one = (self.save_after, self.pending_max, self.pending_busy, self.insert_slice, self.keyword_candidates)
        if min(counts) < 0 or min(least_one) < 1:
            raise ConfigurationError("index sizes must be >= 0; save_after, pending_*, insert_slice, candidates >= 1")
        if self.scan_us_per_row <= 0 or not 0.0 < self.graph_max_share <= 1.0 or self.retry_index_after_s < 0:
            raise ConfigurationError("scan_us_per_row > 0, graph_max_share in (0, 1], retry_index_after_s >= 0")
