"""The float32 rows beside the graph: what re-scores its candidates exactly and what the index hands back."""

from __future__ import annotations

import numpy as np

from audrey_core.index.vector_rows import RowVectors, cosine_distances


def exact(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    return 1.0 - (matrix @ query) / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query))


def test_rows_put_get_and_scan_agree_with_numpy():
    rng = np.random.default_rng(3)
    rows = RowVectors(8)
    matrix = rng.normal(size=(50, 8)).astype(np.float32)
    rows.put(np.arange(50), matrix)
    rows.put(np.array([7]), matrix[[3]] * 2)  # a row id written again holds its new vector
    matrix[7] = matrix[3] * 2
    got, norms = rows.get(np.array([49, 7, 0]))
    assert np.array_equal(got, matrix[[49, 7, 0]])
    assert np.allclose(norms, np.linalg.norm(matrix[[49, 7, 0]], axis=1))
    query = rng.normal(size=8).astype(np.float32)
    assert np.allclose(rows.scan(query[None])[0], exact(matrix, query), atol=1e-6)
    other = rng.normal(size=8).astype(np.float32)
    keys = [np.array([5, 9]), np.zeros(0, np.int64), np.array([9, 0, 49])]
    near, none, far = rows.distances(keys, np.stack([query, query, other]))
    assert np.allclose(near, exact(matrix[[5, 9]], query), atol=1e-6) and len(none) == 0
    assert np.allclose(far, exact(matrix[[9, 0, 49]], other), atol=1e-6)


def test_saved_rows_map_back_and_a_rewrite_stays_in_this_process(tmp_path):
    rng = np.random.default_rng(4)
    matrix = rng.normal(size=(40, 6)).astype(np.float32)
    rows = RowVectors(6)
    rows.put(np.arange(40), matrix)
    path = tmp_path / "g1.f32.npy"
    norms = rows.save(path, 30)  # rows above the last one held are not written
    mapped = RowVectors.mapped(path, norms, 6)
    assert mapped.length == 30 and np.array_equal(mapped.get(np.arange(30))[0], matrix[:30])
    assert type(mapped.get(np.arange(3))[0]) is np.ndarray  # not a memmap: reading its rows one by one is slow
    mapped.put(np.array([2, 35]), matrix[[0, 1]])  # one below the mapped part, one above it
    assert np.array_equal(mapped.get(np.array([2, 35]))[0], matrix[[0, 1]]) and mapped.length == 36
    assert np.array_equal(np.load(path)[2], matrix[2])  # the snapshot on disk is unchanged
    assert mapped.scan(matrix[:1]).shape == (1, 36)


def test_a_zero_row_is_unrelated_to_everything():
    distances = cosine_distances(np.zeros((2, 3), np.float32), np.zeros(2, np.float32), np.ones((1, 3), np.float32))
    assert np.array_equal(distances, np.ones((1, 2), np.float32))


def test_prefetch_reads_the_files_through_and_stops_when_told(tmp_path):
    from audrey_core.index.threads import prefetch

    big = tmp_path / "rows.bin"
    big.write_bytes(b"x" * (5 << 20))
    asked = []

    def stop_at_once() -> bool:
        asked.append(1)
        return True

    prefetch([tmp_path / "missing.bin", big], stop_at_once).join(timeout=10)
    assert len(asked) == 1  # the missing file is passed over; the stop is honoured before the first read
    reads = []
    prefetch([big], lambda: reads.append(1) and False).join(timeout=10)
    assert len(reads) == 2  # one 16 MB splice takes the whole file, the next finds the end
    reads.clear()
    prefetch([big], lambda: reads.append(1) and False, touch={big}).join(timeout=10)
    assert len(reads) == 6  # touched: copied through memory a megabyte at a time, then the end
