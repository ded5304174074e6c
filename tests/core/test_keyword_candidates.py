"""Keyword search ranks candidates, not every match: on PostgreSQL from the rarest terms first, widening until the
filters leave enough; on either backend the answer under a filter is the filtered full ranking whenever the budget
reaches every match."""

from __future__ import annotations

from dataclasses import replace

import pytest

from audrey_core.storage import VectorFilter

from .helpers import add_derived

WORDS = "kiln oven glaze clay wheel porcelain stoneware firing".split()


def fill(brain) -> None:
    brain.encode_batch(
        [
            {"content": f"{WORDS[i % 8]} {WORDS[(i * 3) % 8]} kiln note {i}", "tags": ["rare"] if i == 57 else []}
            for i in range(80)
        ]
    )
    add_derived(brain, "kiln firing needs a slow cool-down")


def ids(brain, terms, k, **extra):
    return [h.memory_id for h in brain._storage.keyword_search(terms, k, VectorFilter(agent=brain.agent, **extra))]


def expected(brain, extra, terms=("porcelain", "kiln", "clay")) -> list[str]:
    full = ids(brain, list(terms), 1000)
    allowed = {m.id for m in brain._storage.list_memories(VectorFilter(agent=brain.agent, **extra), 1000)}
    return [i for i in full if i in allowed][:3]


@pytest.mark.parametrize("extra", [{}, {"tags": ("rare",)}, {"memory_types": ("semantic",)}])
def test_within_the_budget_the_answer_is_the_filtered_full_ranking(brain, extra):
    fill(brain)
    assert ids(brain, ["porcelain", "kiln", "clay"], 3, **extra) == expected(brain, extra)


@pytest.mark.parametrize("extra", [{"tags": ("rare",)}, {"memory_types": ("semantic",)}])
def test_postgres_widens_past_a_small_budget_until_the_filters_leave_enough(brain, backend, monkeypatch, extra):
    if backend != "postgres":
        pytest.skip("SQLite ranks through FTS5 or its keyword index")
    import audrey_core.storage.postgres.keywords as keywords

    fill(brain)
    want = expected(brain, extra)
    searched = []
    real = keywords.tsquery_any
    monkeypatch.setattr(
        keywords, "tsquery_any", lambda terms, pairs=(): searched.append(list(terms)) or real(terms, pairs)
    )
    brain._storage.index_config = replace(brain._storage.index_config, keyword_candidates=1)  # the rarest term leads
    assert ids(brain, ["porcelain", "kiln", "clay"], 3, **extra) == want
    leading = [terms for terms in searched if terms != ["porcelain", "kiln", "clay"]]  # the ranking query is all three
    assert len(leading[0]) == 1 and sorted(leading[-1]) == ["clay", "kiln", "porcelain"]


def test_postgres_finds_the_rows_of_two_common_terms_beside_the_rarest(brain, backend):
    """The best row holds two common query terms and not the rare one: the rarest term alone fills the budget, the
    pair of common terms (expected to be few together) brings it in."""
    if backend != "postgres":
        pytest.skip("SQLite ranks through FTS5 or its keyword index")
    brain.encode_batch(
        [f"alpha note {i}" for i in range(40)]
        + [f"beta note {i}" for i in range(40)]
        + ["alpha and beta together", *(f"zeta note {i}" for i in range(3))]
    )
    full = ids(brain, ["zeta", "alpha", "beta"], 1000)
    assert brain.get(full[0]).content == "alpha and beta together"
    brain._storage.index_config = replace(brain._storage.index_config, keyword_candidates=25)  # zeta's 3 lead
    assert ids(brain, ["zeta", "alpha", "beta"], 1) == full[:1]


def test_postgres_leads_with_pairs_when_even_the_rarest_term_is_over_the_budget(brain, backend, monkeypatch):
    """Every term holds more rows than the budget: the rows of two terms together are ranked, not every row of the
    rarest (at 1M, the 12,000 rows of one common word took 300 ms to rank)."""
    if backend != "postgres":
        pytest.skip("SQLite ranks through FTS5 or its keyword index")
    import audrey_core.storage.postgres.keywords as keywords

    brain.encode_batch(
        [f"alpha note {i}" for i in range(40)] + [f"beta note {i}" for i in range(50)] + ["alpha and beta together"]
    )
    searched = []
    real = keywords.tsquery_any
    monkeypatch.setattr(
        keywords,
        "tsquery_any",
        lambda terms, pairs=(): searched.append((list(terms), list(pairs))) or real(terms, pairs),
    )
    brain._storage.index_config = replace(brain._storage.index_config, keyword_candidates=25)
    (best,) = ids(brain, ["alpha", "beta"], 1)
    assert brain.get(best).content == "alpha and beta together"
    assert ([], [("alpha", "beta")]) in searched and (["alpha"], []) not in searched[-2:]


@pytest.mark.parametrize(
    "rare",
    [
        pytest.param([], id="none-of-the-best-pass"),
        pytest.param([0], id="one-of-the-best-passes"),
        pytest.param(list(range(36, 40)), id="the-last-of-many-ties-pass"),
        pytest.param(list(range(40)), id="every-tie-passes"),
    ],
)
def test_a_filter_that_drops_most_of_the_best_matches_still_gets_the_filtered_full_ranking(brain, rare):
    """PostgreSQL ranks its candidates before checking the filters, and only the best few (ties included) are
    checked: whatever the filter leaves out of them, the answer is the filtered full ranking."""
    best = [  # forty equal best matches (ties), the ones in `rare` tagged, stored in the reverse order of their ids
        {"id": f"best-{i:02d}", "content": "kiln glaze kiln glaze firing", "tags": ["rare"] if i in rare else []}
        for i in reversed(range(40))
    ]
    weaker = [{"content": f"the kiln log, entry {i}", "tags": ["rare"]} for i in range(5)]
    brain.encode_batch([*best, *weaker])
    want = expected(brain, {"tags": ("rare",)}, ("kiln", "glaze", "firing"))
    assert len(want) == 3
    assert ids(brain, ["kiln", "glaze", "firing"], 3, tags=("rare",)) == want
