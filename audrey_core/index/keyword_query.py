"""What the keyword index holds and how a search ranks it: the analyzer (English stemming), the schema (each text,
a conversation turn's neighbours' words, and the fields searches filter on), and the BM25 query, weighted as SQLite's
FTS5 weighs the same rows, so either path ranks alike."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..config import MEMORY_TYPES
from ..index_settings import KEYWORD_CONTEXT_WEIGHT

try:
    import tantivy
except ImportError:  # a platform without wheels: Audrey searches through SQLite's FTS5 instead
    tantivy = None  # type: ignore[assignment]


def analyzer() -> Any:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


# A word no query can hold (search() drops it from the terms), added to a row's text as many times as the row has
# other words (its turn's neighbours', its scope words): tantivy normalises a field's BM25 by that field's length
# alone, FTS5 by the whole row's. Without it a short turn ("That's fair.") outranked longer ones holding the same
# terms more often: on LoCoMo's development conversations the index found the first evidence turn first in 309
# questions against FTS5's 330 (760 asked); with it, 326.
LENGTH_PAD = "zqlenpadqz"
_ALPHANUMERIC_RUN = re.compile(r"[^\W_]+")  # the words tantivy's simple tokenizer makes


def length_padding(context: str, scopes: str) -> str:
    """The padding a row's text field gets: one :data:`LENGTH_PAD` for each word of its other fields."""
    return " ".join([LENGTH_PAD] * (len(_ALPHANUMERIC_RUN.findall(context)) + len(scopes.split())))


def schema() -> Any:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("row", indexed=True, fast=True)
    builder.add_unsigned_field("kind", fast=True)  # the memory type's place in MEMORY_TYPES, read with each hit
    builder.add_text_field("content", tokenizer_name="audrey_en", index_option="freq")
    builder.add_text_field("context", tokenizer_name="audrey_en", index_option="freq")  # a turn's neighbours' words
    builder.add_text_field("agent", tokenizer_name="raw", index_option="basic")
    builder.add_text_field("type", tokenizer_name="raw", index_option="basic")
    builder.add_text_field("scopes", tokenizer_name="whitespace", index_option="basic")
    return builder.build()


def idf_as(matching: int, in_field: int, total: int) -> float:
    """A boost turning tantivy's weight of a term found in ``in_field`` rows of a field into FTS5's weight of one found
    in ``matching`` rows. Tantivy's BM25 weighs a term by ln(1 + (N - n + 0.5) / (n + 0.5)), SQLite FTS5 (and the
    Okapi formula) by ln((N - n + 0.5) / (n + 0.5)), which gives a term in half the rows almost nothing; and FTS5
    counts the rows holding a word in any column, so a word common in turns' neighbours weighs less in their own text
    too. With it, rankings (and hybrid fusion, which weighs BM25 against cosine) stay what they were through FTS5."""
    odds = max(1e-9, (total - matching + 0.5) / (matching + 0.5))  # deleted rows may still count in matching
    odds_in_field = max(1e-9, (total - in_field + 0.5) / (in_field + 0.5))
    return max(1e-6, math.log(odds)) / math.log1p(odds_in_field)


def ranked_query(
    schema: Any,
    searcher: Any,
    stems: Sequence[str],
    counts: Mapping[str, int],
    agent: str | None,
    memory_types: Sequence[str] | None,
    scope_words: Sequence[str],
    rows: Sequence[int] | None,
    skip_rows: Sequence[int] = (),
) -> Any:
    """The query for rows holding any of ``stems`` (``counts``: rows holding each in their text), ranked by BM25,
    among the agent's rows of ``memory_types`` carrying every scope word (``rows``: only these text rows;
    ``skip_rows``: not these). Filters select rows and add nothing to the score: a scoped search ranks as the whole
    index filtered. A filter every row passes (one agent, one scope) is left out: it selects nothing and cost half of
    a search at 100k rows (0.70 -> 0.36 ms p50 on LoCoMo's questions). Both counts include deleted rows, so "every
    row" is exact."""
    total = searcher.num_docs
    Q, Occur = tantivy.Query, tantivy.Occur
    # a turn's neighbours' words count too, less; a word weighs by the rows holding it in either field (counted
    # twice where it is in both), as FTS5 weighs a phrase by the rows it is found in: measured on LoCoMo's turns
    # (recall@10 82.5% against 81.6% weighing each field by its own count, FTS5 82.6%)
    around = {s: searcher.doc_freq("context", s) for s in stems} if KEYWORD_CONTEXT_WEIGHT > 0 else {}
    rows_with = {s: min(total, counts[s] + around.get(s, 0)) for s in stems}
    should = [
        (Occur.Should, Q.boost_query(Q.term_query(schema, "content", s), idf_as(rows_with[s], counts[s], total)))
        for s in stems
    ]
    should += [
        (
            Occur.Should,
            Q.boost_query(Q.term_query(schema, "context", s), KEYWORD_CONTEXT_WEIGHT * idf_as(rows_with[s], n, total)),
        )
        for s, n in around.items()
        if n  # none in a store without conversations: no clause
    ]
    rows_of_type: dict[str, int] = {kind: searcher.doc_freq("type", kind) for kind in MEMORY_TYPES}
    rows_held = sum(rows_of_type.values())  # each row has one type
    filters = [
        Q.term_query(schema, "scopes", word) for word in scope_words if searcher.doc_freq("scopes", word) < rows_held
    ]
    if rows is not None:  # only these text rows (the memories of a time span)
        filters.append(Q.term_set_query(schema, "row", list(rows)))
    if agent is not None and searcher.doc_freq("agent", agent) < rows_held:
        filters.append(Q.term_query(schema, "agent", agent))
    if memory_types is not None and sum(rows_of_type.get(kind, 0) for kind in set(memory_types)) < rows_held:
        filters.append(Q.term_set_query(schema, "type", list(memory_types)))
    must = [(Occur.Must, Q.boolean_query(should))]
    must += [(Occur.Must, Q.const_score_query(f, 0.0)) for f in filters]
    if skip_rows:
        must.append((Occur.MustNot, Q.term_set_query(schema, "row", list(skip_rows))))
    return Q.boolean_query(must)
