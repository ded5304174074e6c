"""The confidence formula as pure functions: defaults, each term, the model-generated cap, configuration checks."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from audrey_core import ConfidenceConfig, ConfigurationError
from audrey_core.rules.confidence import (
    confidence,
    effective_half_life,
    evidence_agreement,
    recency,
    retrieval_reinforcement,
)

CFG = ConfidenceConfig()


def conf(**overrides):
    args = dict(
        memory_type="episodic",
        source="direct-observation",
        source_reliability=0.95,
        supporting=1,
        contradicting=0,
        days_since_reinforced=0.0,
        salience=0.5,
        retrieval_count=0,
        days_since_retrieval=None,
        cfg=CFG,
    )
    args.update(overrides)
    return confidence(**args)


def test_seed_defaults():
    assert (CFG.weight_source, CFG.weight_evidence, CFG.weight_recency, CFG.weight_retrieval) == (
        0.30,
        0.35,
        0.20,
        0.15,
    )
    assert dict(CFG.source_reliability) == {
        "direct-observation": 0.95,
        "told-by-user": 0.90,
        "tool-result": 0.85,
        "inference": 0.60,
        "model-generated": 0.40,
    }
    assert dict(CFG.half_life_days) == {"episodic": 7.0, "semantic": 30.0, "procedural": 90.0}
    assert CFG.model_generated_cap == 0.6


def test_fresh_direct_observation_is_the_weighted_sum():
    result = conf()
    assert result.value == pytest.approx(0.30 * 0.95 + 0.35 * 1.0 + 0.20 * 1.0 + 0.15 * 0.0)
    assert (result.source, result.evidence, result.recency, result.retrieval) == (0.95, 1.0, 1.0, 0.0)


@pytest.mark.parametrize("memory_type,half_life", [("episodic", 7), ("semantic", 30), ("procedural", 90)])
def test_recency_halves_at_one_half_life(memory_type, half_life):
    assert recency(memory_type, half_life, 0.5, CFG) == pytest.approx(0.5)
    assert recency(memory_type, 2 * half_life, 0.5, CFG) == pytest.approx(0.25)
    assert recency(memory_type, 0, 0.5, CFG) == 1.0


def test_salience_stretches_retention():
    assert effective_half_life("episodic", 0.5, CFG) == 7.0
    assert effective_half_life("episodic", 1.0, CFG) == pytest.approx(10.5)
    assert effective_half_life("episodic", 0.0, CFG) == pytest.approx(3.5)
    assert recency("episodic", 7, 1.0, CFG) > 0.5 > recency("episodic", 7, 0.0, CFG)


def test_evidence_agreement():
    assert evidence_agreement(3, 1) == 0.75
    assert evidence_agreement(0, 0) == 1.0
    assert evidence_agreement(0, 2) == 0.0


def test_retrieval_reinforcement_formula():
    assert retrieval_reinforcement(0, 0.0, CFG) == 0.0
    assert retrieval_reinforcement(5, None, CFG) == 0.0
    assert retrieval_reinforcement(3, 0.0, CFG) == pytest.approx(0.3 * math.log(4))
    assert retrieval_reinforcement(3, 14.0, CFG) == pytest.approx(0.3 * math.log(4) / 2)  # lambda_ret half-life
    assert retrieval_reinforcement(10_000, 0.0, CFG) == 1.0  # min(1, ...)


def test_model_generated_is_capped_whatever_raises_it():
    # Maximal everything: perfect evidence, fresh, salient, retrieved a thousand times today.
    boosted = conf(
        source="model-generated",
        source_reliability=1.0,
        salience=1.0,
        supporting=50,
        retrieval_count=1000,
        days_since_retrieval=0.0,
    )
    assert boosted.value == CFG.model_generated_cap and boosted.capped
    same_for_others = conf(source="inference", source_reliability=1.0, retrieval_count=1000, days_since_retrieval=0.0)
    assert same_for_others.value > 0.9 and not same_for_others.capped
    low = conf(source="model-generated", source_reliability=0.4, days_since_reinforced=60)
    assert low.value < CFG.model_generated_cap and not low.capped


def test_custom_cap_and_weights():
    cfg = replace(CFG, model_generated_cap=0.3, weight_source=0.5, weight_evidence=0.15)
    assert conf(source="model-generated", source_reliability=0.4, cfg=cfg).value == 0.3


@pytest.mark.parametrize(
    "change",
    [
        {"weight_source": 0.5},  # weights no longer sum to 1
        {"weight_retrieval": -0.1, "weight_source": 0.55},
        {"source_reliability": {"direct-observation": 0.9}},
        {"half_life_days": {"episodic": 0, "semantic": 1, "procedural": 1}},
        {"model_generated_cap": 1.5},
        {"retrieval_half_life_days": 0},
    ],
)
def test_bad_confidence_config_is_refused(change):
    with pytest.raises(ConfigurationError):
        replace(CFG, **change)
