"""PostgreSQL keyword search that does not rank every match.

``ts_rank`` over every row matching any query term made keyword search linear in the store (a question with a
common name matched tens of thousands of rows at 100k). So the candidates come from the rarest terms first, through
the GIN index, until about ``IndexConfig.keyword_candidates`` rows are in, and from the rows holding two of the other
terms together (:func:`common_pairs`: 85% of the full ranking's top 10 from the rarest terms alone at 100k LoCoMo
turns, 99.5% with the pairs, for 1.5 ms more); those are ranked over every term. When even the rarest term holds more
than the budget (a common name at 1M), its pairs with the others lead instead of its every row. A term
found in more than half the rows is left out (it says little, as BM25's IDF would say). When the filters leave fewer
than ``k`` candidates, the next rarer-first terms join, until every term is in: then the answer is the full ranking.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from ...index_settings import KEYWORD_CONTEXT_WEIGHT, IndexConfig
from ...rules.keywords import TermCounts, informative_terms
from ..base import KeywordHit, VectorFilter
from ..sql.migrations import FTS_TABLE
from ..sql.reads import SQLReads
from .schema import TEXT_SEARCH_CONFIG

# ts_rank's weights for lexemes of weight D, C, B, A: a text's own words are A, its turn's neighbours' words D.
RANK_WEIGHTS = "{" + f"{KEYWORD_CONTEXT_WEIGHT}, 0, 0, 1" + "}"


def _quoted(term: str) -> str:
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def tsquery_any(terms: Sequence[str], pairs: Sequence[tuple[str, str]] = ()) -> str:
    """A to_tsquery() text matching any of ``terms`` or both terms of any of ``pairs``, each term quoted (stemmed by
    the configuration, never parsed as operators)."""
    both = [f"({_quoted(a)} & {_quoted(b)})" for a, b in pairs]
    return " | ".join([*(_quoted(term) for term in terms), *both])


def common_pairs(terms: Sequence[str], counts: dict[str, int], total: int, budget: int) -> list[tuple[str, str]]:
    """Pairs of ``terms`` whose rows holding both are expected (as if the terms were independent) to number at most
    ``budget`` together, fewest first: a row that ranks high holds several query terms, and the GIN index finds the
    rows of two common terms without reading either's whole list."""
    estimates = sorted(
        (counts[a] * counts[b] / max(total, 1), a, b) for i, a in enumerate(terms) for b in terms[i + 1 :]
    )
    chosen, spent = [], 0.0
    for rows, a, b in estimates:
        if spent + rows > budget:
            break
        chosen.append((a, b))
        spent += rows
    return chosen


class PostgresKeywords(SQLReads):
    """A part of :class:`PostgresStorage`."""

    _term_counts: TermCounts
    index_config: IndexConfig  # the time-span bound and the keyword candidates (AudreyConfig.index)

    @abstractmethod
    def _side_read(self) -> AbstractContextManager[Any]:
        """A connection for a read beside the main one (committed data only)."""

    def _term_rows(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        """Rows matching each term (cached: :class:`~audrey_core.rules.keywords.TermCounts`), and all rows; both as
        the planner estimates them, but a term it finds rare, counted (up to one row past the candidate budget)."""
        with self._side_read() as db:

            def read_total() -> int:
                # the planner's estimate (kept by ANALYZE and autovacuum) is enough to steer, and costs no scan
                estimate = db.execute(
                    "SELECT GREATEST(reltuples, 0)::bigint FROM pg_class WHERE oid = to_regclass(?)", [FTS_TABLE]
                ).fetchone()[0]
                if not estimate:  # never analysed yet (a new or small table): count
                    return int(db.execute(f"SELECT COUNT(*) FROM {FTS_TABLE}").fetchone()[0])
                return int(estimate)

            total = self._term_counts.total(read_total)
            matching = f"FROM {FTS_TABLE} WHERE document @@ to_tsquery('{TEXT_SEARCH_CONFIG}', ?)"
            budget = self.index_config.keyword_candidates

            def count(term: str) -> int:
                # The planner's estimate from the column's statistics costs no scan (a COUNT of a common term took
                # 28 ms at 1M rows, 220 ms at worst); but every lexeme outside the statistics' most common ones gets
                # one small estimate, which cannot tell 2 rows from 2,000: those are counted, up to past the budget.
                query = tsquery_any([term])
                plan = db.execute(f"EXPLAIN (FORMAT JSON) SELECT 1 {matching}", [query]).fetchone()[0]
                estimate = int(plan[0]["Plan"]["Plan Rows"])
                if estimate > budget:
                    return estimate
                counted = f"SELECT COUNT(*) FROM (SELECT 1 {matching} LIMIT ?) AS rows"
                return int(db.execute(counted, [query, budget + 1]).fetchone()[0])

            counts = self._term_counts.get(terms, total, count)
        return counts, total

    def keyword_search(self, terms: Sequence[str], k: int, where: VectorFilter) -> list[KeywordHit]:
        """Memories matching any of ``terms`` by PostgreSQL full text (``ts_rank``), best first, ``where`` applied."""
        if not terms or k <= 0:
            return []
        terms = list(dict.fromkeys(terms))
        counts, total = self._term_rows(terms)
        terms = informative_terms(terms, counts, total)
        # a narrow time span: its memories, ranked alone
        span = self.span_memories(where, self.index_config.span_exact_upto)
        if span is not None:
            with self._side_read() as db:
                rows = db.execute(
                    f"SELECT x.memory_id, ts_rank('{RANK_WEIGHTS}', f.document, to_tsquery('{TEXT_SEARCH_CONFIG}', ?)) "
                    f"FROM memory_text_rows x JOIN {FTS_TABLE} f ON f.rowid = x.rowid WHERE x.memory_id = ANY(?) "
                    f"AND f.document @@ to_tsquery('{TEXT_SEARCH_CONFIG}', ?) ORDER BY 2 DESC, 1 LIMIT ?",
                    [tsquery_any(terms), list(span), tsquery_any(terms), int(k)],
                ).fetchall()
            return [KeywordHit(memory_id, span[memory_id], float(score)) for memory_id, score in rows]
        ordered = sorted(terms, key=lambda t: (counts[t], t))
        union, params = self._over_tables(
            where,
            lambda t, table: (
                f"SELECT x.memory_id, '{t}' AS memory_type, ts_rank('{RANK_WEIGHTS}', c.document, q.query) AS score "
                f"FROM q CROSS JOIN candidates c JOIN memory_text_rows x ON x.rowid = c.rowid "
                f"JOIN {table} m ON m.id = x.memory_id"
            ),
        )
        budget = self.index_config.keyword_candidates
        while True:
            leading: list[str] = []
            rows_in = 0
            for term in ordered:  # the rarest terms first, until the budget is spent
                if rows_in + counts[term] > budget:
                    break
                leading.append(term)
                rows_in += counts[term]
            pairs = common_pairs(ordered[len(leading) :], counts, total, budget)
            if not leading and not pairs:  # even the rarest term holds too many rows, and no pair is few enough
                leading = ordered[:1]  # (no pair of the others is either: they hold no fewer rows)
            with self._side_read() as db:
                rows = db.execute(
                    f"WITH q AS (SELECT to_tsquery('{TEXT_SEARCH_CONFIG}', ?) AS query), "
                    f"candidates AS MATERIALIZED (SELECT f.rowid, f.document FROM {FTS_TABLE} f "
                    f"WHERE f.document @@ to_tsquery('{TEXT_SEARCH_CONFIG}', ?)) "
                    f"SELECT * FROM ({union}) found ORDER BY 3 DESC, 1 LIMIT ?",
                    [tsquery_any(terms), tsquery_any(leading, pairs), *params, int(k)],
                ).fetchall()
            if len(rows) >= k or len(leading) == len(ordered):
                return [KeywordHit(memory_id, memory_type, float(score)) for memory_id, memory_type, score in rows]
            budget *= 4
