"""A second retrieval-quality set, built here and not tuned on: each docstring of Python's standard library that has a
one-paragraph summary and a prose body becomes a memory (the body) and a question (the summary), and a hit at k means
the summary's own body is among the top k of one store holding every body.

    python -m benchmarks.docstrings [--limit 10] [--items N]

It compares the two keyword paths on the same store and questions (through the keyword index, and through SQLite
FTS5 as without tantivy), in hybrid and keyword-only recall, question by question (``benchmarks.paired``: hits at
each k, and which path ranks the answer higher), beside plain dense cosine over the same vectors. The set depends
only on the Python version's standard library (tests, idlelib and lib2to3 left out), read with ``ast`` and never
imported; its size and a digest are printed, so runs on two machines can be told apart. Bodies and summaries are
embedded with the local model (about 20 s for ~1,300 of each). Prints a table and a JSON line.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import sysconfig
import time
from pathlib import Path

import numpy as np

from audrey_core import Audrey
from audrey_core.index import keyword_index_available
from audrey_core.providers.embedding import embed_texts

from . import embedders
from .paired import compare, compare_ranks
from .retrieval import config

KS = (1, 5, 10)
LEFT_OUT = {"test", "tests", "idlelib", "lib2to3", "site-packages"}
_WORD = re.compile(r"[A-Za-z]+")
_CODE = (">>>", "::", "{", "}", "==", "->")


def _prose(paragraph: str) -> str | None:
    text = " ".join(paragraph.split())
    return text if text and text[0].isupper() and not any(mark in text for mark in _CODE) else None


def known_items(root: Path | None = None) -> list[tuple[str, str]]:
    """(summary, body) of every class and function docstring under ``root`` (the standard library by default)
    whose first paragraph is prose of 5-30 words and whose other prose paragraphs hold 15-120 words; the first of
    any repeated summary or body is kept. In path order."""
    root = root or Path(sysconfig.get_paths()["stdlib"])
    found: dict[str, str] = {}
    bodies: set[str] = set()
    for path in sorted(root.rglob("*.py")):
        if LEFT_OUT & set(path.relative_to(root).parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError, RecursionError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            first, *rest = (ast.get_docstring(node) or "").split("\n\n")
            summary = _prose(first)
            body = " ".join(p for p in map(_prose, rest) if p)
            if not summary or summary in found or body in bodies:
                continue
            if 5 <= len(_WORD.findall(summary)) <= 30 and 15 <= len(_WORD.findall(body)) <= 120:
                found[summary] = body
                bodies.add(body)
    return list(found.items())


def embedded(items: list[tuple[str, str]], embedder) -> tuple[np.ndarray, np.ndarray]:
    """The vectors of the bodies and of the summaries (embedded once, for both keyword paths)."""
    return embed_texts(embedder, [body for _, body in items]), embed_texts(embedder, [summary for summary, _ in items])


def ranks(
    items: list[tuple[str, str]], embedder, vectors: tuple[np.ndarray, np.ndarray], limit: int, fts5: bool
) -> dict[str, list[int]]:
    """The rank (1-based; 0 when missing) of each summary's own body, per recall mode, through one keyword path;
    ``vectors``: :func:`embedded`."""
    body_vectors, summary_vectors = vectors
    found: dict[str, list[int]] = {}
    with Audrey(":memory:", agent="docs", embedder=embedder, config=config(1.0)) as brain:
        if fts5:
            brain._storage.keyword_index = None  # the FTS5 path, as without tantivy
        memories = [{"id": f"d{i}", "content": body} for i, (_, body) in enumerate(items)]
        brain.encode_batch(memories, vectors=body_vectors)
        for mode in ("hybrid", "keyword"):
            found[mode] = []
            for i, ((summary, _), vector) in enumerate(zip(items, summary_vectors)):
                ids = [r.id for r in brain.recall(summary, limit=limit, query_vector=vector, mode=mode)]
                found[mode].append(ids.index(f"d{i}") + 1 if f"d{i}" in ids else 0)
    unit = body_vectors / np.linalg.norm(body_vectors, axis=1, keepdims=True)
    found["dense"] = []
    for i, vector in enumerate(summary_vectors):
        order = np.argsort(-(unit @ (vector / np.linalg.norm(vector))))[:limit].tolist()
        found["dense"].append(order.index(i) + 1 if i in order else 0)
    return found


def hits(ranked: list[int], k: int) -> list[bool]:
    return [0 < rank <= k for rank in ranked]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=max(KS), help=f"results each recall asks for (>= {max(KS)})")
    parser.add_argument("--items", type=int, default=None, help="only the first N items (quicker, less certain)")
    embedders.add_option(parser)
    args = parser.parse_args(argv)
    if args.limit < max(KS):
        parser.error(f"--limit must be at least {max(KS)}")
    if not keyword_index_available():
        parser.error("this compares the keyword index with FTS5: it needs the tantivy package, not installed")
    items = known_items()[: args.items]
    digest = hashlib.sha256(json.dumps(items).encode()).hexdigest()[:12]
    embedder = embedders.named(args.embedder)
    start = time.perf_counter()
    vectors = embedded(items, embedder)
    index, fts5 = (ranks(items, embedder, vectors, args.limit, through_fts5) for through_fts5 in (False, True))
    seconds = round(time.perf_counter() - start, 1)
    print(f"docstring known items: {len(items)} (digest {digest}), model {embedder.model_name}, limit {args.limit}")
    table: dict[str, dict] = {}
    print(f"{'recall@k':>16}  {'index':>6}  {'FTS5':>6}  {'only index':>10}  {'only FTS5':>9}  {'p':>6}  {'dense':>6}")
    for mode in ("hybrid", "keyword"):
        for k in KS:
            row = compare(hits(index[mode], k), hits(fts5[mode], k))
            row["dense"] = sum(hits(index["dense"], k))
            table[f"{mode}@{k}"] = row
            print(
                f"{mode + '@' + str(k):>16}  {row['first']:>6}  {row['second']:>6}  {row['only_first']:>10}  "
                f"{row['only_second']:>9}  {row['p']:>6}  {row['dense']:>6}"
            )
    for mode in ("hybrid", "keyword"):
        row = compare_ranks(index[mode], fts5[mode])
        table[f"{mode} rank"] = row
        print(
            f"{mode}: the index ranks the answer higher for {row['better_first']} questions, FTS5 for "
            f"{row['better_second']} (sign test p {row['p']}; not found within the limit counts as last)"
        )
    print(f"of {len(items)} questions; {seconds} s")
    summary = {
        "benchmark": "docstrings",
        "items": len(items),
        "digest": digest,
        "model": embedder.model_name,
        "limit": args.limit,
        "table": table,
        "seconds": seconds,
    }
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
