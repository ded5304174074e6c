"""``python -m benchmarks``: every benchmark, one line each, and the command that runs it. Each takes ``--help``."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def runnable() -> dict[str, str]:
    """Each module here that runs as ``python -m benchmarks.<name>``, with the first line of its docstring."""
    found = {}
    for path in sorted(HERE.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        if path.stem.startswith("_") or 'if __name__ == "__main__"' not in source:
            continue
        doc = ast.get_docstring(ast.parse(source)) or ""
        found[path.stem] = summary(doc)
    return found


def summary(doc: str, width: int = 100) -> str:
    """A docstring's first sentence, cut at a word to ``width`` characters."""
    sentence = " ".join(doc.split("\n\n")[0].split()).split(". ")[0]
    sentence = sentence if sentence.endswith(("?", "!", ".")) else sentence + "."
    if len(sentence) <= width:
        return sentence
    return sentence[: width - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def main(argv: list[str] | None = None) -> int:
    listed = runnable()
    width = max(len(name) for name in listed)
    print("Benchmarks (python -m benchmarks.<name> --help for each one's options):\n")
    for name, line in listed.items():
        print(f"  {name:<{width}}  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
