"""Audrey for LangChain and LangGraph: vector store, retriever, long-term store, agent middleware and tools,
classic memory, and adapters that let LangChain embeddings and chat models serve Audrey."""

from .adapters import LangChainEmbedder, LangChainLLM
from .retriever import AudreyRetriever
from .vectorstore import AudreyVectorStore

__all__ = ["AudreyRetriever", "AudreyVectorStore", "LangChainEmbedder", "LangChainLLM"]
