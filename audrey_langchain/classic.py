"""``AudreyMemory``: Audrey as a legacy ``BaseMemory`` for classic chains (needs ``langchain-classic``)."""

from __future__ import annotations

from typing import Any

from langchain_classic.base_memory import BaseMemory
from langchain_classic.memory.utils import get_prompt_input_key
from pydantic import ConfigDict

from audrey_core import Audrey

from .middleware import format_memories


class AudreyMemory(BaseMemory):
    """``AudreyMemory(audrey=brain, memory_key="history", k=5)``: ``load_memory_variables`` recalls what is relevant
    to the chain's input; ``save_context`` encodes the input (told-by-user) and output (model-generated); ``clear``
    forgets this memory's scope (the whole agent when no scope is set)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    audrey: Audrey
    memory_key: str = "history"
    input_key: str | None = None
    output_key: str | None = None
    k: int = 5
    min_confidence: float = 0.0
    scope: tuple[str, ...] | None = None

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def _where(self) -> dict[str, Any]:
        return {"scope": self.scope} if self.scope else {}

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        query = str(inputs[self.input_key or get_prompt_input_key(inputs, self.memory_variables)])
        if not query.strip():
            return {self.memory_key: ""}
        results = self.audrey.recall(query, limit=self.k, min_confidence=self.min_confidence, **self._where())
        return {self.memory_key: format_memories(results)}

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, str]) -> None:
        said = str(inputs[self.input_key or get_prompt_input_key(inputs, self.memory_variables)])
        if self.output_key is None and len(outputs) != 1:
            raise ValueError(f"one output key expected, got {sorted(outputs)}; set output_key")
        answered = str(outputs[self.output_key or next(iter(outputs))])
        items = [
            {"content": text, "source": source, **self._where()}
            for text, source in ((said, "told-by-user"), (answered, "model-generated"))
            if text.strip()
        ]
        if items:
            self.audrey.encode_batch(items)

    def clear(self) -> None:
        self.audrey.forget_all(**self._where())
