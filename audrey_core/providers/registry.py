"""Which provider a name means. A store records its embedding model's name; reopening it (the ``audrey`` command,
``migrate-store``, maintenance) needs an embedder for that name. Built in: the test embedder
(``deterministic-hash[-N]``), OpenAI's ``text-embedding-*`` models, and sentence-transformers for any other name.
Third-party embedders and LLMs register through entry points, so any installed one is found::

    [project.entry-points."audrey.embedders"]
    "mycorp-embed-v1" = "mycorp_audrey:make_embedder"    # called as make_embedder(model_name, dimensions)
    "mycorp-*" = "mycorp_audrey:make_embedder"           # a trailing * matches every name with that prefix

    [project.entry-points."audrey.llms"]
    "mycorp-chat" = "mycorp_audrey:make_llm"            # called as make_llm(model_name, base_url)

An exact name wins over a prefix, a longer prefix over a shorter one; the test embedder's and OpenAI's names are
resolved before any entry point, so no plugin takes them over (any other name, the local models' included, may be)."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from ..errors import ConfigurationError

EMBEDDERS = "audrey.embedders"
LLMS = "audrey.llms"


def registered(group: str, name: str) -> Callable[..., Any] | None:
    """The factory an installed distribution registers for ``name`` in ``group`` (exact, else the longest prefix)."""
    found: list[tuple[int, EntryPoint]] = []
    for point in entry_points(group=group):
        if point.name == name:
            found.append((len(name) + 1, point))
        elif point.name.endswith("*") and name.startswith(point.name[:-1]):
            found.append((len(point.name) - 1, point))
    if not found:
        return None
    point = max(found, key=lambda pair: pair[0])[1]
    try:
        return point.load()
    except Exception as exc:  # an installed plugin that cannot be imported: say which
        raise ConfigurationError(
            f"the {group} entry point {point.name!r} ({point.value}) cannot be loaded: {exc}"
        ) from exc


def embedder_for(model_name: str, dimensions: int | None = None) -> Any:
    """An embedder for a model named in a store's configuration (how the CLI reopens a store)."""
    if model_name == "deterministic-hash" or model_name.startswith("deterministic-hash-"):
        from ..testing import DeterministicEmbedder

        suffix = model_name.removeprefix("deterministic-hash").lstrip("-")
        return DeterministicEmbedder(int(suffix) if suffix else (dimensions or 384))
    if model_name.startswith("text-embedding-"):
        from .openai_compatible import OpenAIEmbedder

        # ada-002 takes no dimensions parameter; the text-embedding-3 models may have been shortened with one.
        return OpenAIEmbedder(model_name, dimensions=None if model_name.endswith("ada-002") else dimensions)
    factory = registered(EMBEDDERS, model_name)
    if factory is not None:
        return factory(model_name, dimensions)
    from .local import local_embedder

    return local_embedder(model_name)


def llm_for(model_name: str, base_url: str | None = None) -> Any:
    """An LLM by name: a registered one, else an OpenAI-compatible model (at ``base_url`` when given)."""
    factory = registered(LLMS, model_name)
    if factory is not None:
        return factory(model_name, base_url)
    from .openai_compatible import OpenAICompatibleLLM

    return OpenAICompatibleLLM(model_name, base_url=base_url)
