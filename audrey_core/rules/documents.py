"""How a document or a stream becomes many memories: one per paragraph, line or sentence, never one memory holding
the whole text (recall returns a memory whole, so a 2 MB memory is a 2 MB answer)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Literal, get_args

Unit = Literal["paragraph", "line", "sentence"]
UNITS: tuple[Unit, ...] = get_args(Unit)

# A sentence ends at . ! or ? (with any closing quote or bracket, kept with it) before white space and a capital, a
# digit or an opening quote; "v2.1 is" does not end one, nor a period after an abbreviation ("e.g. Redis").
_SENTENCE_END = re.compile(r"([.!?][\"')\]]*)\s+(?=[\"'(\[]?[A-Z0-9\u00C0-\u024F])")
_ABBREVIATIONS = frozenset("e.g i.e etc vs cf al approx dr mr mrs ms prof st no fig jr sr inc ltd co".split())


def pieces(lines: Iterable[str], unit: Unit) -> Iterator[str]:
    """The pieces of a text read line by line (a stream), each stripped, none empty, in order: paragraphs end at a
    blank line, lines at a line's end, sentences within a paragraph. A stream is read as it comes: a paragraph is
    given out at the blank line that ends it."""
    if unit not in UNITS:
        raise ValueError(f"split by one of {', '.join(UNITS)}, not {unit!r}")
    if unit == "line":
        for line in lines:
            if line.strip():
                yield " ".join(line.split())
        return
    held: list[str] = []
    for line in lines:
        if line.strip():
            held.append(line.strip())
            continue
        yield from _paragraph(held, unit)
        held = []
    yield from _paragraph(held, unit)


def _paragraph(held: list[str], unit: Unit) -> Iterator[str]:
    if not held:
        return
    text = " ".join(" ".join(held).split())
    if unit == "paragraph":
        yield text
        return
    parts = _SENTENCE_END.split(text)  # text, its end, text, its end, ..., text
    sentence = ""
    for i in range(0, len(parts), 2):
        sentence += parts[i] + (parts[i + 1] if i + 1 < len(parts) else "")
        last = sentence.rsplit(None, 1)[-1].rstrip(".").lstrip("(\"'").casefold() if sentence.strip() else ""
        if i + 1 < len(parts) and parts[i + 1] == "." and last in _ABBREVIATIONS:
            sentence += " "  # "e.g. Redis": the sentence goes on
            continue
        if sentence.strip():
            yield sentence.strip()
        sentence = ""
