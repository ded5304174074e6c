"""True memories the offline rules would hide: among real sentences that hold together, how many would the one offline
signal that may hide a memory (a value named as past) take out of recall?

    python -m benchmarks.offline_hides [--part dev|held-out] [--show]

Each sentence of the benchmark corpus (``benchmarks.corpus``: LoCoMo's turns, then docstring sentences of the
installed packages) is judged as validation would judge it offline against its five nearest neighbours in the whole
corpus (all-MiniLM-L6-v2 cosines, from the update zone up), as the newer of each pair: :func:`judge_offline`, whose
verdict carries the hiding signal only when the newer sentence names the older one's value as past
(``audrey_core.rules.english.past_values``). The corpus has no history: its sentences describe, they do not report
what stopped holding, so nearly every hide counted is a memory that still holds taken out of recall (``--show``
prints each one to read). A bulk load of the same sentences meets the same verdicts (``benchmarks.bulk_load --plain``
counts the memories it left superseded).

The sentences at even positions are the development part: the markers of ``past_values`` were revised while reading
its hides (issue 43). The odd ones, the held-out part, were judged once at the end of that revision (199 hides
before it, 19 after); their hides were then read for one more revision, so they are a development part too. The nearest
neighbours are computed once (about a minute) and cached beside the corpus. Prints counts and a JSON line.
"""

from __future__ import annotations

import argparse
import collections
import json
import time

import numpy as np

from audrey_core.config import ValidationConfig
from audrey_core.rules.english.judge import judge_offline

from .corpus import cache_folder, embedded_corpus
from .scale import CORPUS

NEIGHBOURS = 5  # ValidationConfig.update_neighbors: the memories a new episode is judged against
PARTS = {"dev": 0, "held-out": 1}


def nearest(vectors: np.ndarray, k: int = NEIGHBOURS, block: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``k`` nearest other rows by cosine (the vectors are unit length), closest first, and the cosines."""
    found = np.empty((len(vectors), k), dtype=np.int64)
    cosines = np.empty((len(vectors), k), dtype=np.float32)
    for first in range(0, len(vectors), block):
        scores = vectors[first : first + block] @ vectors.T
        rows = np.arange(len(scores))
        scores[rows, rows + first] = -np.inf  # not itself
        top = np.argpartition(-scores, k, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(scores, top, axis=1), axis=1)
        found[first : first + block] = np.take_along_axis(top, order, axis=1)
        cosines[first : first + block] = np.take_along_axis(scores, found[first : first + block], axis=1)
    return found, cosines


def cached_nearest(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    path = cache_folder() / f"minilm-{len(vectors)}-nearest-{NEIGHBOURS}.npz"
    if not path.exists():
        found, cosines = nearest(vectors)
        np.savez(path, found=found, cosines=cosines)
    stored = np.load(path)
    return stored["found"], stored["cosines"]


def measure(part: str) -> dict:
    texts, vectors = embedded_corpus(CORPUS)
    found, cosines = cached_nearest(np.ascontiguousarray(vectors, dtype=np.float32))
    cfg = ValidationConfig()
    verdicts: collections.Counter[str] = collections.Counter()
    hides: list[dict] = []
    start = time.perf_counter()
    for newer in range(PARTS[part], len(texts), 2):
        for older, cosine in zip(found[newer], cosines[newer]):
            if cosine < cfg.update_similarity:
                continue  # below the zone validation judges
            verdict = judge_offline(texts[older], texts[newer], float(cosine), cfg, newer=True)
            verdicts[verdict.relation if verdict is not None else "not judged"] += 1
            if verdict is not None and verdict.signal is not None:
                hides.append({"older": texts[older], "newer": texts[newer], "reason": verdict.reason})
    return {
        "part": part,
        "sentences": len(range(PARTS[part], len(texts), 2)),
        "pairs": sum(verdicts.values()),
        "verdicts": dict(verdicts),
        "hidden": len(hides),
        "seconds": time.perf_counter() - start,
        "hides": hides,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=sorted(PARTS), default="dev")
    parser.add_argument("--show", action="store_true", help="print each pair whose older sentence would be hidden")
    args = parser.parse_args(argv)
    result = measure(args.part)
    if args.show:
        for hide in result["hides"]:
            print(f"older: {hide['older']}\nnewer: {hide['newer']}\n  {hide['reason']}\n")
    print(f"Offline verdicts on the corpus's {args.part} part: {result['sentences']:,} sentences, each the newer of")
    print(f"its pairs with its {NEIGHBOURS} nearest neighbours from the update zone up ({result['pairs']:,} pairs)")
    for relation, count in sorted(result["verdicts"].items(), key=lambda item: -item[1]):
        print(f"  {relation:<20}{count:>9,}")
    print(f"  older memory hidden {result['hidden']:>9,}   (a value named as past; --show lists them)")
    summary = {key: value for key, value in result.items() if key != "hides"}
    print(json.dumps({"benchmark": "offline_hides", **summary}))
    return summary


if __name__ == "__main__":
    main()
