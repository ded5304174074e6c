"""Audrey for LlamaIndex: chat memory and memory block, vector store, retriever, and LLM / embedding adapters."""

from .adapters import LlamaIndexEmbedder, LlamaIndexLLM
from .memory import AudreyMemory
from .memory_block import AudreyMemoryBlock
from .retriever import AudreyRetriever
from .vectorstore import AudreyVectorStore

__all__ = [
    "AudreyMemory",
    "AudreyMemoryBlock",
    "AudreyRetriever",
    "AudreyVectorStore",
    "LlamaIndexEmbedder",
    "LlamaIndexLLM",
]
