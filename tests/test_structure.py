"""The shape ARCHITECTURE.md promises, checked from the source: adapters use only public names, the core imports no
agent framework, and no module imports itself back through others (modules are cut by concept, not by a line
count)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("audrey_core", "audrey_langchain", "audrey_llamaindex")
PUBLIC = {"audrey_core", "audrey_core.conversation"}  # what an adapter may import from the core
FRAMEWORKS = ("langchain", "langchain_core", "langgraph", "llama_index")


def modules(package: str) -> dict[str, Path]:
    found = {}
    for path in (ROOT / package).rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path) -> list[tuple[str, int]]:
    """Absolute names of every module ``name`` imports (type-only imports too: a cycle of types still ties two
    modules' designs together), with their lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            found.append((target, node.lineno))
            found += [(f"{target}.{alias.name}", node.lineno) for alias in node.names]  # `from . import stage`
    return found


def graph() -> dict[str, set[str]]:
    known = {name: path for package in PACKAGES for name, path in modules(package).items()}
    return {name: {t for t, _ in imports(name, path) if t in known and t != name} for name, path in known.items()}


def test_adapters_import_only_public_names_of_the_core():
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for package in ("audrey_langchain", "audrey_llamaindex")
        for name, path in modules(package).items()
        for target, line in imports(name, path)
        if target.startswith("audrey_core") and target not in PUBLIC and target.rpartition(".")[0] not in PUBLIC
    ]
    assert not wrong, "adapters must use audrey_core's public names (grow the core instead):\n" + "\n".join(wrong)


def test_the_core_imports_no_agent_framework():
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for name, path in modules("audrey_core").items()
        for target, line in imports(name, path)
        if target.split(".")[0] in FRAMEWORKS
    ]
    assert not wrong, "\n".join(wrong)


def test_no_module_imports_itself_back_through_others():
    edges = graph()
    cycles, state = [], {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(edges[node]):
            if state.get(nxt) == "open":
                cycles.append(" -> ".join([*trail[trail.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = "done"

    for start in sorted(edges):
        if start not in state:
            visit(start, [start])
    # a package's __init__ that hands names on from its own modules is not a cycle of design
    cycles = [c for c in cycles if not any(b.startswith(a + ".") for a, b in zip(c.split(" -> "), c.split(" -> ")[1:]))]
    assert not cycles, "\n".join(cycles)


def test_importing_the_core_loads_no_model_index_engine_or_framework():
    """Nothing happens at import: the model, the index engines and any framework load when first used."""
    import subprocess
    import sys

    heavy = ("torch", "sentence_transformers", "openai", "tantivy", "usearch", "langchain_core", "llama_index", "mcp")
    probe = f"import sys, audrey_core; print([m for m in {heavy!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_decision_on_a_claim_reads_no_storage_and_calls_no_provider():
    """Every rule of a claim's fate is a pure function (``claims.decide``): nothing it imports, directly or through
    others, reaches the store, a model or the stages that hold them."""
    edges = graph()
    reached, frontier = set(), {"audrey_core.claims.decide"}
    while frontier:
        reached |= frontier
        frontier = {n for f in frontier for n in edges[f]} - reached
    forbidden = ("storage", "providers", "stages", "index")
    wrong = sorted(n for n in reached if n.split(".")[1:2] and n.split(".")[1] in forbidden)
    assert not wrong, "claims.decide must stay pure; it reaches " + ", ".join(wrong)
