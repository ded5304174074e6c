"""Property tests over the LlamaIndex surfaces: nodes, metadata, filters and chat messages of the declared types with
any content either work or raise Audrey's errors or a ValueError (never a foreign exception), a refused call writes
nothing, and both backends agree."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.schema import TextNode
from llama_index.core.vector_stores.types import FilterOperator, MetadataFilter, MetadataFilters, VectorStoreQuery

from audrey_llamaindex import AudreyMemory, AudreyVectorStore

from ..langchain.test_properties import agree
from ..properties import PROPERTY_SETTINGS, integers, json_values, scalars, texts

metadata_filters = st.builds(
    lambda items: MetadataFilters(filters=[MetadataFilter(key=k, value=v, operator=op) for k, v, op in items]),
    st.lists(
        st.tuples(
            texts,
            st.one_of(
                st.text(max_size=5), integers, st.floats(allow_nan=False), st.lists(st.text(max_size=3), max_size=2)
            ),
            st.sampled_from(
                [FilterOperator.EQ, FilterOperator.NE, FilterOperator.GT, FilterOperator.IN, FilterOperator.NIN]
            ),
        ),
        max_size=2,
    ),
)


@PROPERTY_SETTINGS
@given(
    text=texts,
    node_id=texts,
    metadata=st.dictionaries(st.text(max_size=6), json_values, max_size=3),
    query=texts,
    filters=st.one_of(st.none(), metadata_filters),
    top_k=st.integers(-2, 2**64),
)
def test_vector_store_takes_any_input_safely(both_brains, text, node_id, metadata, query, filters, top_k):
    make = lambda brain: AudreyVectorStore(audrey=brain)  # noqa: E731
    agree(both_brains, make, lambda store: store.add([TextNode(text=text, id_=node_id or "n", metadata=metadata)]))
    agree(
        both_brains,
        make,
        lambda store: store.query(VectorStoreQuery(query_str=query, similarity_top_k=top_k, filters=filters)),
    )
    agree(both_brains, make, lambda store: store.get_nodes(filters=filters))
    agree(both_brains, make, lambda store: store.delete(node_id))


@PROPERTY_SETTINGS
@given(
    role=st.sampled_from(["user", "assistant", "system", "tool"]),
    content=texts,
    query=st.one_of(st.none(), texts),
    extra=scalars,
)
def test_chat_memory_takes_any_message_safely(both_brains, role, content, query, extra):
    make = lambda brain: AudreyMemory.from_defaults(audrey=brain)  # noqa: E731
    agree(
        both_brains,
        make,
        lambda memory: memory.put(ChatMessage(role=role, content=content, additional_kwargs={"x": extra})),
    )
    agree(both_brains, make, lambda memory: memory.get(input=query))
