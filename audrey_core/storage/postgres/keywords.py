"""PostgreSQL keyword search that does not rank every match.

``ts_rank`` over every row matching any query term made keyword search linear in the store (a question with a
common name matched tens of thousands of rows at 100k). So the candidates come from the rarest terms first, through
the GIN index, until about ``IndexConfig.keyword_candidates`` rows are in, and from the rows holding two of the other
terms together (:func:`common_pairs`: 85% of the full ranking's top 10 from the rarest terms alone at 100k LoCoMo
turns, 99.5% with the pairs, for 1.5 ms more); those are ranked over every term, and only the best of them are
joined to their memories to check the recall's filters (:meth:`PostgresKeywords._best_passing`). When even the
rarest term holds more than the budget (a common name at 1M), its pairs with the others lead instead of its every
row. A term found in more than half the rows is left out (it says little, as BM25's IDF would say). When the filters
leave fewer than ``k`` candidates, the next rarer-first terms join, until every term is in: then the answer is the
full ranking.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from ...index_settings import KEYWORD_CONTEXT_WEIGHT, IndexConfig
from ...rules.keywords import TermCounts, informative_terms
from ..base import KeywordHit, VectorFilter, with_margin
from ..sql.migrations import FTS_TABLE
from ..sql.reads import SQLReads
from .schema import TEXT_SEARCH_CONFIG

EVERY_ROW = 2**62  # FETCH FIRST takes no ALL

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
                    f"SELECT x.memory_id, ts_rank('{RANK_WEIGHTS}', f.document, "
                    f"(SELECT to_tsquery('{TEXT_SEARCH_CONFIG}', ?))) "  # a subquery: to_tsquery() once, not per row
                    f"FROM memory_text_rows x JOIN {FTS_TABLE} f ON f.rowid = x.rowid WHERE x.memory_id = ANY(?) "
                    f"AND f.document @@ to_tsquery('{TEXT_SEARCH_CONFIG}', ?) ORDER BY 2 DESC, x.rowid LIMIT ?",
                    [tsquery_any(terms), list(span), tsquery_any(terms), int(k)],
                ).fetchall()
            return [KeywordHit(memory_id, span[memory_id], float(score)) for memory_id, score in rows]
        ordered = sorted(terms, key=lambda t: (counts[t], t))
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
            rows = self._best_passing(tsquery_any(terms), tsquery_any(leading, pairs), k, where)
            if len(rows) >= k or len(leading) == len(ordered):
                return [KeywordHit(memory_id, memory_type, float(score)) for memory_id, memory_type, score in rows]
            budget *= 4

    def _best_passing(self, query: str, candidates: str, k: int, where: VectorFilter) -> list[tuple[str, str, float]]:
        """The ``k`` rows matching ``candidates`` that rank best for ``query`` and pass ``where``, equal scores in the
        order their text rows were written. The candidates are ranked first, and only the best ``ranked`` of them are
        joined to their memories to check ``where``: joining all of them (~2,000 rows) cost 11 ms of an 11 ms query at
        20k LoCoMo turns, against 3.4 ms ranked first. While fewer than ``k`` pass and some were left unranked, more
        are: 16 times as many, then all. No row left out comes before one kept in that order, so the answer is the full
        ranking's. (Ties broken by memory id instead needed every tie at the cut joined: 95 rows for 38 on average at
        100k turns, 0.5 ms of a 6 ms statement.)"""
        union, params = self._over_tables(
            where,
            lambda t, table: (
                f"SELECT x.memory_id, '{t}' AS memory_type, c.score, c.rowid FROM ranked c "
                f"JOIN memory_text_rows x ON x.rowid = c.rowid JOIN {table} m ON m.id = x.memory_id"
            ),
        )
        # q is MATERIALIZED: a CTE used once is inlined, and to_tsquery() then runs once per row (4x the ranking's cost)
        sql = (
            f"WITH q AS MATERIALIZED (SELECT to_tsquery('{TEXT_SEARCH_CONFIG}', ?) AS query), "
            f"ranked AS MATERIALIZED (SELECT f.rowid, ts_rank('{RANK_WEIGHTS}', f.document, q.query) AS score "
            f"FROM q CROSS JOIN {FTS_TABLE} f WHERE f.document @@ to_tsquery('{TEXT_SEARCH_CONFIG}', ?) "
            f"ORDER BY 2 DESC, 1 FETCH FIRST ? ROWS ONLY) "
            f"SELECT found.memory_id, found.memory_type, found.score, (SELECT COUNT(*) FROM ranked) "
            f"FROM ({union}) found ORDER BY found.score DESC, found.rowid LIMIT ?"
        )
        first = ranked = with_margin(k)
        while True:
            with self._side_read() as db:
                rows = db.execute(sql, [query, candidates, ranked, *params, int(k)]).fetchall()
            every_candidate = ranked == EVERY_ROW or (rows and rows[0][3] < ranked)
            if len(rows) >= k or every_candidate:
                return [(memory_id, memory_type, score) for memory_id, memory_type, score, _ in rows]
            ranked = 16 * first if ranked == first and rows else EVERY_ROW
