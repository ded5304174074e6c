"""Fusion reads candidates in order of relevance only until none left can reach the first ``limit``: the first
``limit`` are exactly those of scoring every candidate, whatever the confidences and type weights."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest

from audrey_core import Audrey
from audrey_core.config import AudreyConfig, RecallConfig
from audrey_core.rules.recall_options import check_options
from audrey_core.stages.recall_candidates import score
from audrey_core.stages.recall_time import TimePlan, reorder
from audrey_core.storage import Candidates

from ..conftest import SYNC
from .helpers import add_derived

SOURCES = ["direct-observation", "told-by-user", "tool-result", "inference", "model-generated"]


@pytest.mark.parametrize("favoured", [False, True])
@pytest.mark.parametrize("weights", [None, {"episodic": 1.0, "semantic": 2.5, "procedural": 0.5}])
def test_the_bounded_fusion_keeps_the_exact_first_limit(tmp_path, embedder, clock, weights, favoured):
    recall_cfg = RecallConfig() if weights is None else RecallConfig(type_weights=weights)
    config = AudreyConfig(validation=SYNC.validation, recall=recall_cfg)
    rng = np.random.default_rng(3)
    words = "kiln glaze clay wheel porcelain firing oven slip bisque raku".split()
    start = clock()
    with Audrey(tmp_path / "a.db", agent="a", embedder=embedder, config=config, clock=clock) as brain:
        brain.encode_batch(
            [
                {
                    "content": " ".join(rng.choice(words, 4)) + f" note {i}",
                    "source": SOURCES[i % 5],
                    "salience": float(rng.random()),
                    "event_time": start + timedelta(days=i),
                }
                for i in range(150)
            ]
        )
        # a question's time favours a span: a lift of up to 3x per memory there, which the bound allows for
        recall_cfg = replace(recall_cfg, time_boost=2.0) if favoured else recall_cfg
        plan = TimePlan(favour=(start + timedelta(days=100), None)) if favoured else TimePlan()
        for i in range(10):
            add_derived(brain, " ".join(rng.choice(words, 3)) + f" rule {i}", source=SOURCES[i % 5])
        storage, now = brain._storage, brain.clock()
        cut_short = 0
        for query in ("kiln glaze", "porcelain firing oven", "raku note 7", "slip"):
            vector = np.asarray(embedder.embed([query])[0])
            where = check_options(agent="a", limit=10).where
            found = Candidates(storage.knn(vector, 50, where), storage.keyword_search(query.split(), 50, where))
            args = (storage, vector, found, 0.0, now, brain.config.confidence, recall_cfg)
            everything = reorder(score(*args), plan, recall_cfg)
            for limit in (1, 3, 10):
                bounded = reorder(score(*args, limit, (), plan.most(recall_cfg)), plan, recall_cfg)
                assert [r.memory.id for r in bounded[:limit]] == [r.memory.id for r in everything[:limit]]
                assert len(bounded) >= min(limit, len(everything))
                cut_short += len(bounded) < len(everything)
        assert cut_short  # the bound did leave candidates unread
