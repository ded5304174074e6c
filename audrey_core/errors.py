"""One error tree for everything Audrey raises.

Catch :class:`AudreyError` to handle any of them. Each message says what was wrong and what to do.
"""

from __future__ import annotations

DISTRIBUTION = "audrey-agent-memory"  # the name to pip install (the import names are audrey_core, ...)


def install_hint(extra: str) -> str:
    """The command that installs an optional part of Audrey, for error messages: from a clone, until the
    distribution is published."""
    return f"pip install -e '.[{extra}]' in a clone of Audrey"


class AudreyError(Exception):
    """Base class of every error Audrey raises on purpose."""


class InvalidInputError(AudreyError, ValueError):
    """An argument was malformed (empty content, unknown source, out-of-range salience, ...)."""


class NotFoundError(AudreyError, KeyError):
    """A memory, run or other record named by id does not exist."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class ConfigurationError(AudreyError):
    """Audrey was set up in a way that cannot work (bad config values, missing optional package)."""


class EmbeddingError(AudreyError):
    """The embedder failed or returned vectors of the wrong shape or with NaN / infinite values."""


class EmbeddingMismatchError(ConfigurationError):
    """A store was opened with an embedder whose model or dimensions differ from the ones it was built with."""


class LLMError(AudreyError):
    """The language model failed or returned something that could not be used."""


class StorageError(AudreyError):
    """The database could not be opened, read or written."""


class MigrationError(StorageError):
    """A schema migration failed or the database is newer than this version of Audrey."""


class ClosedError(AudreyError):
    """The Audrey instance was used after ``close()``."""


class IndexNotReady(Exception):
    """Internal, never reaches a caller: a derived search index is being built in the background, so the search goes
    to the database meanwhile (exact, slower). Here so the storage layer can catch it without importing the index
    package (which loads tantivy and usearch)."""


__all__ = [
    "AudreyError",
    "ClosedError",
    "ConfigurationError",
    "EmbeddingError",
    "EmbeddingMismatchError",
    "InvalidInputError",
    "LLMError",
    "MigrationError",
    "NotFoundError",
    "StorageError",
]
