"""Audrey: a memory for LLM agents that works like one.

Nothing happens at import: no model loads, no files open, no network.
"""

from .audrey import Audrey
from .confidence import ConfidenceBreakdown
from .config import AudreyConfig, ConfidenceConfig, DecayConfig, RecallConfig
from .embedding import Embedder, OpenAIEmbedder, SentenceTransformerEmbedder
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
from .models import (
    CausalLink,
    ConsolidationRun,
    Contradiction,
    Episode,
    Introspection,
    Memory,
    Procedure,
    Provenance,
    RecallResult,
    Semantic,
)

__version__ = "0.1.0"

__all__ = [
    "Audrey",
    "AudreyConfig",
    "AudreyError",
    "CausalLink",
    "ClosedError",
    "ConfidenceBreakdown",
    "ConfidenceConfig",
    "ConfigurationError",
    "ConsolidationRun",
    "Contradiction",
    "DecayConfig",
    "Embedder",
    "EmbeddingError",
    "EmbeddingMismatchError",
    "Episode",
    "Introspection",
    "InvalidInputError",
    "LLMError",
    "Memory",
    "MigrationError",
    "NotFoundError",
    "OpenAIEmbedder",
    "Procedure",
    "Provenance",
    "RecallConfig",
    "RecallResult",
    "Semantic",
    "SentenceTransformerEmbedder",
    "StorageError",
]
