"""Hypothesis strategies for hostile input: any text (NUL, lone surrogates, separators, wildcards), any JSON-ish
value (huge integers, NaN, nesting), and values of the wrong type altogether."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# Bounded, so the suite stays fast (each example runs on both backends); AUDREY_PROPERTY_EXAMPLES=1000 digs deeper.
PROPERTY_SETTINGS = settings(
    max_examples=int(os.environ.get("AUDREY_PROPERTY_EXAMPLES", "40")),
    deadline=None,
    # The stores are shared across examples on purpose: both backends receive the same calls, so they stay alike.
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
    database=None,
)

NASTY = ["\x00", "\ud800", "\udfff", "\x1f", "%", "_", "*", "$", '"', "\\", ".", " ", "é", "😀", "a", "b"]
texts = st.one_of(
    st.text(max_size=12),
    st.text(alphabet=st.sampled_from(NASTY), max_size=8),
    st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=8),  # surrogates included
)
integers = st.one_of(st.integers(-10, 10), st.integers(), st.sampled_from([2**63 - 1, 2**63, -(2**63), -(2**63) - 1]))
scalars = st.one_of(st.none(), st.booleans(), integers, st.floats(), texts)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3), max_leaves=6
)
anything = st.one_of(
    json_values, st.binary(max_size=4), st.tuples(texts), st.sets(integers, max_size=2), st.just(object())
)
keys = st.one_of(texts, st.sampled_from(["topic", "$or", "$and", "$eq", "n"]))
operators = st.sampled_from(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$like", "eq"])
dict_filters = st.dictionaries(
    keys,
    st.one_of(
        scalars,
        st.dictionaries(operators, st.one_of(scalars, st.lists(scalars, max_size=3)), max_size=2),
        st.lists(st.dictionaries(keys, scalars, max_size=2), max_size=2),
    ),
    max_size=3,
)
filters = st.one_of(st.none(), anything, dict_filters)
scopes = st.one_of(st.none(), anything, st.lists(texts, max_size=3), st.tuples(texts, texts))
tag_lists = st.one_of(st.none(), anything, st.lists(texts, max_size=3))
