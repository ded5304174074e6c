"""Long content: split into overlapping chunks by the embedder's tokenizer, one vector each, found through any
chunk and returned once, with the chunk's text; keyword search covers the whole text."""

from __future__ import annotations

import io

import pytest

from audrey_core import Audrey, AudreyConfig, SentenceTransformerEmbedder
from audrey_core.admin.maintenance import backfill, export_snapshot, import_snapshot, read_snapshot_header, reembed
from audrey_core.config import ValidationConfig
from audrey_core.providers.embedding import chunk_spans
from audrey_core.storage import SQLiteStorage
from audrey_core.testing import DeterministicEmbedder

from .helpers import table_counts

SYNC = AudreyConfig(validation=ValidationConfig(background=False))
FILLER = [f"filler{i}" for i in range(60)]
LONG = " ".join(FILLER[:25] + ["the", "vault", "code", "is", "orange", "falcon"] + FILLER[25:])


@pytest.fixture
def chunked(db_path, clock):
    with Audrey(db_path, embedder=DeterministicEmbedder(max_tokens=12), clock=clock, config=SYNC) as brain:
        yield brain


def test_chunk_spans_overlap_and_cover_everything():
    embedder = DeterministicEmbedder(max_tokens=8)
    text = " ".join(f"w{i}" for i in range(20))
    spans = chunk_spans(embedder, text)
    assert [text[a:b] for a, b in spans] == [
        "w0 w1 w2 w3 w4 w5 w6 w7",
        "w7 w8 w9 w10 w11 w12 w13 w14",
        "w14 w15 w16 w17 w18 w19",
    ]
    assert chunk_spans(embedder, "short text") == [(0, 10)]
    assert chunk_spans(DeterministicEmbedder(), text) == [(0, len(text))]  # no window declared: never split


def test_a_long_text_is_found_through_a_middle_chunk_and_returned_once(chunked):
    long_id = chunked.encode(LONG)
    chunked.encode("the vault is in the basement")
    assert table_counts(chunked)["memory_vector_rows"] > 3  # several vectors for the long memory, one for the other
    hits = chunked.recall("vault code orange falcon", mode="vector")
    assert [h.id for h in hits].count(long_id) == 1 and hits[0].id == long_id
    assert "orange falcon" in hits[0].chunk and hits[0].chunk != LONG and hits[0].content == LONG
    assert chunked.recall("filler59", mode="keyword")[0].id == long_id  # full text covers the end too
    assert chunked.recall("vault basement", mode="vector")[0].chunk is None  # a short memory has no chunk


def test_chunks_lists_the_parts_of_a_long_memory_in_order(chunked):
    long_id, short_id = chunked.encode(LONG), chunked.encode("the vault is in the basement")
    parts = chunked.chunks(long_id)
    assert len(parts) > 3 and parts[0].startswith("filler0") and parts[-1].endswith("filler59")
    assert any("orange falcon" in part for part in parts)
    assert chunked.chunks(short_id) == [] and chunked.chunks("no-such-memory") == []


def test_forget_snapshot_backfill_and_reembed_keep_chunks_straight(chunked, tmp_path):
    long_id = chunked.encode(LONG)
    buffer = io.StringIO()
    export_snapshot(chunked._storage, buffer)
    lines = iter(buffer.getvalue().splitlines(keepends=True))
    header = read_snapshot_header(lines)
    copy = SQLiteStorage(tmp_path / "copy.db", model_name=header["embedding_model"], dimensions=384)
    import_snapshot(copy, lines)
    assert list(copy.export_records()) == list(chunked._storage.export_records())
    copy.close()
    reembed(chunked._storage, DeterministicEmbedder(128, max_tokens=12))
    assert chunked._storage.reembed_target() is None and chunked._storage.dimensions == 128
    with Audrey(chunked.location, embedder=DeterministicEmbedder(128, max_tokens=12), config=SYNC) as after:
        hit = after.recall("vault code orange falcon", mode="vector")[0]
        assert hit.id == long_id and "orange falcon" in hit.chunk
        after.forget([long_id])
        assert table_counts(after)["memory_vector_rows"] == 0 == table_counts(after)["memory_vectors"]


def test_backfill_chunks_like_encode(tmp_path):
    storage = SQLiteStorage(tmp_path / "b.db", model_name="deterministic-hash", dimensions=384)
    from datetime import datetime, timezone

    from audrey_core import Episodic

    storage.insert_memories(
        [
            Episodic(
                id="e1",
                agent="default",
                content=LONG,
                source="told-by-user",
                source_reliability=0.9,
                created_at=datetime.now(timezone.utc),
            )
        ],
        None,
    )
    assert backfill(storage, DeterministicEmbedder(max_tokens=12)) == 1
    assert storage.vector_coverage() == (1, 0)
    assert len(storage.chunk_spans(list(range(1, 20)))) > 1
    storage.close()


@pytest.mark.slow
def test_the_local_model_chunks_by_its_own_tokenizer(tmp_path):
    embedder = SentenceTransformerEmbedder()
    story = (
        "Our quarterly planning covered hiring, budgets and the office move. " * 40
        + "The launch password for the satellite dashboard is marmalade. "
        + "Afterwards we discussed the holiday schedule and parking. " * 40
    )
    assert len(chunk_spans(embedder, story)) >= 3
    with Audrey(tmp_path / "m.db", embedder=embedder, config=SYNC) as brain:
        mid = brain.encode(story)
        brain.encode("The cafeteria serves soup on Fridays")
        hit = brain.recall("what is the password for the satellite dashboard?", limit=1, mode="vector")[0]
        assert hit.id == mid and "marmalade" in hit.chunk


def test_a_store_without_chunks_reads_no_spans_and_sees_another_writers_first_chunk(store_location, monkeypatch):
    """A store holding no text in chunks answers recall's chunk spans without a read; a chunked text it writes shows
    its chunk at once, and one another process (here another instance) writes once it asks again (a second on)."""
    import audrey_core.storage.sql.presence as presence

    monkeypatch.setattr(presence, "RECHECK_S", 60.0)
    embedder = DeterministicEmbedder(max_tokens=12)
    with (
        Audrey(store_location, embedder=embedder, config=SYNC) as reader,
        Audrey(store_location, embedder=embedder) as writer,
    ):
        reader.encode("the vault is in the basement")
        for brain in (reader, writer):  # each has asked now, and found none
            assert brain.recall("vault basement", mode="vector")[0].chunk is None
        reads: list[str] = []
        real = reader._storage._read_value
        monkeypatch.setattr(reader._storage, "_read_value", lambda sql: reads.append(sql) or real(sql))
        writer.encode(LONG)
        assert "orange falcon" in writer.recall("vault code orange falcon", mode="vector")[0].chunk
        assert reader.recall("vault code orange falcon", mode="vector")[0].chunk is None and not reads
        monkeypatch.setattr(presence, "RECHECK_S", 0.0)
        assert "orange falcon" in reader.recall("vault code orange falcon", mode="vector")[0].chunk
        assert any("chunk_start" in sql for sql in reads)
