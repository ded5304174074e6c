"""Audrey: a memory for LLM agents that works like one.

Nothing happens at import: no model loads, no files open, no network. Framework adapters use only these names (and
:mod:`audrey_core.conversation`, the conversation helpers they share).
"""

from . import conversation
from .audrey import Audrey
from .config import (
    MEMORY_TYPES,
    SOURCES,
    STATES,
    AudreyConfig,
    ConfidenceConfig,
    ConsolidationConfig,
    DecayConfig,
    ExpiryConfig,
    PostgresConfig,
    RecallConfig,
    ValidationConfig,
)
from .errors import (
    AudreyError,
    ClosedError,
    ConfigurationError,
    EmbeddingError,
    EmbeddingMismatchError,
    InvalidInputError,
    LLMError,
    MigrationError,
    NotFoundError,
    StorageError,
)
from .index_settings import IndexConfig
from .models import (
    CausalLink,
    Claim,
    ClaimUpdate,
    ConfidenceBreakdown,
    ConsolidationRun,
    Contradiction,
    Counterclaim,
    DecayReport,
    Episodic,
    Introspection,
    Memory,
    Procedural,
    Provenance,
    RecallResult,
    Resolution,
    Semantic,
    Settlement,
)
from .providers.embedding import Embedder
from .providers.llm import LLM
from .providers.local import SentenceTransformerEmbedder, local_embedder
from .providers.onnx_local import OnnxEmbedder
from .providers.openai_compatible import OpenAICompatibleLLM, OpenAIEmbedder

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    """``Episode`` and ``Procedure``, the classes' old names, still import for one minor version (with a warning)."""
    from .models import renamed

    return renamed(__name__, name)


__all__ = [
    "LLM",
    "MEMORY_TYPES",
    "SOURCES",
    "STATES",
    "Audrey",
    "AudreyConfig",
    "AudreyError",
    "CausalLink",
    "Claim",
    "ClaimUpdate",
    "ClosedError",
    "ConfidenceBreakdown",
    "ConfidenceConfig",
    "ConfigurationError",
    "ConsolidationConfig",
    "ConsolidationRun",
    "Contradiction",
    "Counterclaim",
    "DecayConfig",
    "DecayReport",
    "Embedder",
    "EmbeddingError",
    "EmbeddingMismatchError",
    "Episodic",
    "ExpiryConfig",
    "IndexConfig",
    "Introspection",
    "InvalidInputError",
    "LLMError",
    "Memory",
    "MigrationError",
    "NotFoundError",
    "OnnxEmbedder",
    "OpenAICompatibleLLM",
    "OpenAIEmbedder",
    "PostgresConfig",
    "Procedural",
    "Provenance",
    "RecallConfig",
    "RecallResult",
    "Resolution",
    "Semantic",
    "SentenceTransformerEmbedder",
    "Settlement",
    "StorageError",
    "ValidationConfig",
    "conversation",
    "local_embedder",
]
