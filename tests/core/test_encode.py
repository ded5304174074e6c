"""Encode and encode_batch: what is stored, and every bad input raising a clear error with nothing written."""

from __future__ import annotations

import math

import numpy as np
import pytest

from audrey_core import Audrey, ClosedError, EmbeddingError, Episodic, InvalidInputError, NotFoundError
from audrey_core.testing import DeterministicEmbedder

from .helpers import table_counts


def test_encode_stores_an_episode_with_everything_given(brain, clock):
    mid = brain.encode(
        "Stripe returned 429 above 100 req/s",
        source="tool-result",
        salience=0.8,
        tags=["stripe", "prod", "stripe"],
        causal={"trigger": "batch-payments", "consequence": "queue-backed-up"},
        metadata={"request_id": "r-1", "n": 3},
    )
    assert len(mid) == 26 and mid.isalnum() and mid.isupper()  # a ULID
    episode = brain.get(mid)
    assert isinstance(episode, Episodic)
    assert episode.content == "Stripe returned 429 above 100 req/s"
    assert (episode.source, episode.source_reliability, episode.salience) == ("tool-result", 0.85, 0.8)
    assert episode.tags == ("stripe", "prod")
    assert (episode.causal_trigger, episode.causal_consequence) == ("batch-payments", "queue-backed-up")
    assert episode.metadata == {"request_id": "r-1", "n": 3}
    assert (episode.agent, episode.state, episode.created_at) == ("tester", "active", clock())
    assert episode.embedding_model == "deterministic-hash" and not episode.consolidated


def test_ids_sort_by_creation_time(brain, clock):
    ids = []
    for i in range(5):
        ids.append(brain.encode(f"observation {i}"))
        clock.advance(seconds=1)
    ids += brain.encode_batch([f"same instant {i}" for i in range(20)])
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_encode_batch_makes_one_embedding_call_and_one_row_each(brain, embedder):
    before = embedder.calls
    ids = brain.encode_batch(
        [{"content": f"fact number {i}", "source": "told-by-user", "tags": ["batch"]} for i in range(50)] + ["plain"]
    )
    assert embedder.calls == before + 1
    assert len(ids) == 51
    assert table_counts(brain)["episodes"] == 51 and table_counts(brain)["memory_vectors"] == 51
    assert brain.get(ids[-1]).source == "direct-observation"


def test_encode_batch_respects_the_provider_batch_limit(db_path):
    class Limited(DeterministicEmbedder):
        max_batch_size = 7

    embedder = Limited()
    with Audrey(db_path, embedder=embedder) as brain:
        brain.encode_batch([f"item {i}" for i in range(20)])
    assert embedder.calls == 3  # 7 + 7 + 6


def test_supersedes_marks_the_old_episode_and_never_edits_it(brain):
    old = brain.encode("The deploy window is Friday")
    new = brain.encode("The deploy window moved to Thursday", supersedes=old)
    old_episode, new_episode = brain.get(old), brain.get(new)
    assert old_episode.content == "The deploy window is Friday"
    assert (old_episode.state, old_episode.superseded_by, old_episode.prior_state) == ("superseded", new, "active")
    assert new_episode.supersedes == old and new_episode.state == "active"
    assert [r.id for r in brain.recall("deploy window")] == [new]
    assert [r.id for r in brain.recall("deploy window", states=["superseded"])] == [old]


BAD_INPUTS = [
    ({"content": ""}, "empty"),
    ({"content": "   \n\t"}, "whitespace"),
    ({"content": None}, "content must be a string"),
    ({"content": "x", "source": "rumour"}, "unknown source"),
    ({"content": "x", "source": None}, "unknown source"),
    ({"content": "x", "salience": 1.5}, "[0, 1]"),
    ({"content": "x", "salience": -0.1}, "[0, 1]"),
    ({"content": "x", "salience": math.nan}, "salience"),
    ({"content": "x", "salience": True}, "salience"),
    ({"content": "x", "salience": "high"}, "salience"),
    ({"content": "x", "tags": "stripe"}, "list of strings"),
    ({"content": "x", "tags": ["ok", ""]}, "non-empty string"),
    ({"content": "x", "tags": [3]}, "non-empty string"),
    ({"content": "x", "causal": "because"}, "causal"),
    ({"content": "x", "causal": {"why": "y"}}, "only 'trigger' and 'consequence'"),
    ({"content": "x", "causal": {"trigger": ""}}, "trigger"),
    ({"content": "x", "metadata": {"when": object()}}, "JSON-serialisable"),
    ({"content": "x", "metadata": {"score": math.inf}}, "JSON-serialisable"),
    ({"content": "x", "metadata": {1: "int key"}}, "keys must be strings"),
    ({"content": "x", "metadata": ["not", "a", "dict"]}, "metadata must be a dict"),
    ({"content": "x", "supersedes": 42}, "supersedes"),
]


@pytest.mark.parametrize("kwargs,message", BAD_INPUTS)
def test_bad_input_raises_and_writes_nothing(brain, kwargs, message):
    brain.encode("an existing memory")
    before = table_counts(brain)
    with pytest.raises(InvalidInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        brain.encode(**kwargs)
    with pytest.raises(InvalidInputError):  # the same item inside a batch fails the whole batch
        brain.encode_batch([{"content": "a fine item"}, kwargs])
    assert table_counts(brain) == before


@pytest.mark.parametrize(
    "items,message",
    [
        ("not a list", "list of dicts"),
        ([{"source": "tool-result"}], "no 'content'"),
        ([{"content": "x", "colour": "red"}], "unknown fields"),
        ([42], "must be a dict or a string"),
    ],
)
def test_bad_batches_raise_and_write_nothing(brain, items, message):
    with pytest.raises(InvalidInputError, match=message):
        brain.encode_batch(items)
    assert table_counts(brain)["episodes"] == 0


def test_supersedes_errors_write_nothing(brain):
    first = brain.encode("first version")
    brain.encode("second version", supersedes=first)
    before = table_counts(brain)
    with pytest.raises(NotFoundError, match="not a stored memory"):
        brain.encode("a correction of nothing", supersedes="01NOSUCHEPISODE0000000000")
    with pytest.raises(InvalidInputError, match="already superseded"):
        brain.encode("a second correction of the first", supersedes=first)
    third = brain.encode("a third memory")
    before = table_counts(brain)
    with pytest.raises(InvalidInputError, match="superseded twice"):
        brain.encode_batch([{"content": "a", "supersedes": third}, {"content": "b", "supersedes": third}])
    assert table_counts(brain) == before


def test_supersedes_cannot_cross_agents(db_path, embedder):
    with Audrey(db_path, agent="alice", embedder=embedder) as alice:
        theirs = alice.encode("alice's note")
    with Audrey(db_path, agent="bob", embedder=embedder) as bob, pytest.raises(NotFoundError, match="not a stored"):
        bob.encode("bob overrides alice", supersedes=theirs)  # another agent's memory looks exactly like none


class BrokenEmbedder(DeterministicEmbedder):
    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def embed(self, texts):
        vectors = super().embed(texts)
        if self.mode == "nan":
            vectors[-1, 0] = np.nan
        elif self.mode == "wrong-dimension":
            return vectors[:, :100]
        elif self.mode == "too-few":
            return vectors[:-1]
        elif self.mode == "zero":
            vectors[-1] = 0.0
        elif self.mode == "raises":
            raise RuntimeError("provider exploded")
        return vectors


@pytest.mark.parametrize(
    "mode,message",
    [
        ("nan", "NaN"),
        ("wrong-dimension", "100-dimensional"),
        ("too-few", "shape"),
        ("zero", "all-zero"),
        ("raises", "provider exploded"),
    ],
)
def test_a_misbehaving_embedder_raises_and_writes_nothing(db_path, mode, message):
    with Audrey(db_path, embedder=BrokenEmbedder(mode)) as brain:
        with pytest.raises(EmbeddingError, match=message):
            brain.encode_batch(["one", "two"])
        with pytest.raises(EmbeddingError, match=message):
            brain.encode("three")
        assert table_counts(brain)["episodes"] == 0 and table_counts(brain)["memory_vectors"] == 0


def test_a_closed_instance_refuses_everything(db_path, embedder):
    brain = Audrey(db_path, embedder=embedder)
    brain.encode("before closing")
    brain.close()
    brain.close()  # closing twice is fine
    for call in (
        lambda: brain.encode("after"),
        lambda: brain.encode_batch(["after"]),
        lambda: brain.recall("x"),
        brain.introspect,
        lambda: brain.get("x"),
    ):
        with pytest.raises(ClosedError, match="closed"):
            call()
    with Audrey(db_path, embedder=embedder) as reopened:
        assert reopened.introspect().counts["episodic"] == 1


def test_bad_constructor_arguments(db_path, embedder):
    with pytest.raises(InvalidInputError, match="agent"):
        Audrey(db_path, agent="  ", embedder=embedder)
    from audrey_core import ConfigurationError

    with pytest.raises(ConfigurationError, match="lacks"):
        Audrey(db_path, embedder=object())
    with pytest.raises(ConfigurationError, match="AudreyConfig"):
        Audrey(db_path, embedder=embedder, config={"recall": 3})


def test_encode_batch_with_given_vectors_skips_the_embedder(brain, embedder):
    vectors = embedder.embed(["alpha text", "beta text"])
    before = embedder.calls
    ids = brain.encode_batch(["alpha text", "beta text"], vectors=vectors)
    assert embedder.calls == before and brain.recall("beta text", limit=1)[0].id == ids[1]
    with pytest.raises(EmbeddingError, match="vectors given"):
        brain.encode_batch(["gamma"], vectors=[[0.1, 0.2]])
    with pytest.raises(EmbeddingError, match="shape"):
        brain.encode_batch(["gamma", "delta"], vectors=vectors[:1])
