"""Audrey for LangChain and LangGraph: vector store, retriever, long-term store, agent middleware and tools,
classic memory, and adapters that let LangChain embeddings and chat models serve Audrey."""

from typing import Any

from .adapters import LangChainEmbedder, LangChainLLM
from .middleware import AudreyMemoryMiddleware, memory_tools
from .retriever import AudreyRetriever
from .store import AudreyStore
from .vectorstore import AudreyVectorStore

__all__ = [
    "AudreyMemory",
    "AudreyMemoryMiddleware",
    "AudreyRetriever",
    "AudreyStore",
    "AudreyVectorStore",
    "LangChainEmbedder",
    "LangChainLLM",
    "memory_tools",
]


def __getattr__(name: str) -> Any:
    # AudreyMemory needs the optional langchain-classic package; import it only when asked for.
    if name == "AudreyMemory":
        try:
            from .classic import AudreyMemory
        except ImportError as exc:
            raise ImportError(
                "AudreyMemory needs langchain-classic: pip install 'audrey-agent-memory[langchain-classic]'"
            ) from exc
        return AudreyMemory
    raise AttributeError(f"module 'audrey_langchain' has no attribute {name!r}")
