"""What the derived indexes read from the database: the vectors of the rows a catch-up names."""

from __future__ import annotations

import numpy as np

from audrey_core.storage.sqlite.schema import VECTOR_CHUNK_SIZE as CHUNK

from .index_helpers import open_brain


def _read_last_row(path, count: int) -> tuple[int, np.ndarray, np.ndarray]:
    """Store ``count`` memories, then read the vector of the last one as a catch-up does: the SQLite steps it took,
    the vector read and the vector stored."""
    vectors = np.random.default_rng(count).normal(size=(count, 384)).astype(np.float32)
    with open_brain(path) as brain:
        brain.encode_batch([f"note number {i}" for i in range(count)], vectors=vectors)
        storage = brain._storage
        with storage._side_read() as db:
            last = db.execute(f"SELECT max(rowid) FROM {storage.vector_table}_rowids").fetchone()[0]
        steps = [0]

        def count_step() -> int:
            steps[0] += 1
            return 0  # go on

        with storage._side_read() as db:
            db.set_progress_handler(count_step, 1)
        try:
            batches = list(storage.vector_documents([last]))
        finally:
            with storage._side_read() as db:
                db.set_progress_handler(None, 1)
    (keys, _, read), *others = batches
    assert not others and keys.tolist() == [last]
    return steps[0], read[0], vectors[-1]


def test_the_vectors_of_a_few_rows_are_read_from_their_chunks_without_visiting_the_others(tmp_path):
    """vec0 keeps vectors in chunks (of CHUNK rows: a chunk table and a vector table joined on the chunk id). The join
    once walked the whole vector table for each chunk read (vec0 declares its key column without a type, so the
    planner could not use its index): catching up 1,000 rows took 33 ms at 1M memories, and reading them all for a
    rebuild 2-5 s, against 1 ms and 0.3 s. The work must not grow with the chunks the store holds."""
    small_steps, small_read, small_stored = _read_last_row(tmp_path / "small.db", CHUNK)
    large_steps, large_read, large_stored = _read_last_row(tmp_path / "large.db", 40 * CHUNK)
    assert np.array_equal(small_read, small_stored) and np.array_equal(large_read, large_stored)
    assert large_steps <= small_steps + 10, (small_steps, large_steps)  # before the fix: 61 against 217
