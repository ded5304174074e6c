"""Property tests over the LangChain surfaces: texts, metadata, ids, namespaces, keys, values and filters of the
declared types with any content (NUL, lone surrogates, huge numbers, $-keys, nesting) either work or raise Audrey's
errors or the ValueError LangChain code expects (never a foreign exception such as a UnicodeEncodeError or
OverflowError), a refused call writes nothing, and both backends agree. Wrong types are the frameworks' own
business here (LangGraph checks a namespace before the store sees it); the core's property tests cover them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from audrey_core import AudreyError
from audrey_langchain import AudreyStore, AudreyVectorStore

from ..core.helpers import table_counts
from ..properties import PROPERTY_SETTINGS, dict_filters, json_values, texts


def outcome(call):
    try:
        call()
    except (AudreyError, ValueError) as exc:
        assert not isinstance(exc, UnicodeError), exc  # a ValueError, but a foreign one
        return type(exc)
    return None


def agree(brains, make, call):
    results = []
    for brain in brains:
        surface, before = make(brain), table_counts(brain)
        failed = outcome(lambda s=surface: call(s))
        if failed is not None:
            assert table_counts(brain) == before, failed
        results.append(failed)
    assert results[0] == results[1]


@PROPERTY_SETTINGS
@given(
    texts_=st.lists(texts, max_size=3),
    metadata=st.one_of(st.none(), st.lists(st.dictionaries(texts, json_values, max_size=3), max_size=3)),
    ids=st.one_of(st.none(), st.lists(st.one_of(st.none(), texts), max_size=3)),
    query=texts,
    flt=st.one_of(st.none(), dict_filters),
    k=st.integers(-3, 2**64),
)
def test_vector_store_takes_any_input_safely(both_brains, texts_, metadata, ids, query, flt, k):
    make = lambda brain: AudreyVectorStore(audrey=brain)  # noqa: E731
    agree(both_brains, make, lambda store: store.add_texts(texts_, metadata, ids=ids))
    agree(both_brains, make, lambda store: store.similarity_search(query, k=k, filter=flt))
    agree(both_brains, make, lambda store: store.get_by_ids(ids or []))
    agree(both_brains, make, lambda store: store.delete(ids))


@PROPERTY_SETTINGS
@given(
    namespace=st.one_of(st.tuples(texts), st.tuples(texts, texts)),
    key=texts,
    value=st.one_of(st.none(), st.dictionaries(texts, json_values, max_size=3)),
    flt=st.one_of(st.none(), dict_filters),
    query=st.one_of(st.none(), texts),
)
def test_langgraph_store_takes_any_input_safely(both_brains, namespace, key, value, flt, query):
    make = lambda brain: AudreyStore(audrey=brain)  # noqa: E731
    agree(both_brains, make, lambda store: store.put(namespace, key, value))
    agree(both_brains, make, lambda store: store.get(namespace, key))
    agree(
        both_brains,
        make,
        lambda store: store.search(namespace if isinstance(namespace, tuple) else (), query=query, filter=flt),
    )
