"""``AudreyMemory``: Audrey as a legacy ``BaseMemory`` for classic chains (needs ``langchain-classic``)."""

from __future__ import annotations

from typing import Any

from langchain_classic.base_memory import BaseMemory
from langchain_classic.memory.utils import get_prompt_input_key
from pydantic import ConfigDict, Field, field_validator

from audrey_core import Audrey
from audrey_core.conversation import PROMPT_SIMILARITY_FLOOR, REMEMBERED_SPEAKERS, Remembering

from .middleware import format_memories


class AudreyMemory(BaseMemory):
    """``AudreyMemory(audrey=brain, memory_key="history", k=5)``: ``load_memory_variables`` recalls what is relevant
    to the chain's input (none under ``min_similarity``); ``save_context`` encodes what the exchange holds worth
    remembering (:class:`audrey_core.conversation.Remembering`: the input as told-by-user unless it is a question or
    chatter; the output as model-generated only when ``remember`` names ``"assistant"``); ``clear`` forgets this
    memory's scope (the whole agent when no scope is set)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    audrey: Audrey
    memory_key: str = "history"
    input_key: str | None = None
    output_key: str | None = None
    k: int = 5
    min_confidence: float = 0.0
    min_similarity: float | None = PROMPT_SIMILARITY_FLOOR
    scope: tuple[str, ...] | None = None
    remember: tuple[str, ...] = Field(default=REMEMBERED_SPEAKERS)
    remember_questions: bool = False
    remember_chatter: bool = False

    @field_validator("remember", mode="before")
    @classmethod
    def _speakers(cls, value: Any) -> tuple[str, ...]:
        return tuple(sorted(Remembering.of(value).speakers))

    @property
    def _remembering(self) -> Remembering:
        return Remembering.of(self.remember, self.remember_questions, self.remember_chatter)

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def _where(self) -> dict[str, Any]:
        return {"scope": self.scope} if self.scope else {}

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        query = str(inputs[self.input_key or get_prompt_input_key(inputs, self.memory_variables)])
        if not query.strip():
            return {self.memory_key: ""}
        floors = {"min_confidence": self.min_confidence, "min_similarity": self.min_similarity}
        results = self.audrey.recall(query, limit=self.k, **floors, **self._where())
        return {self.memory_key: format_memories(results)}

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, str]) -> None:
        said = str(inputs[self.input_key or get_prompt_input_key(inputs, self.memory_variables)])
        if self.output_key is None and len(outputs) != 1:
            raise ValueError(f"one output key expected, got {sorted(outputs)}; set output_key")
        answered = str(outputs[self.output_key or next(iter(outputs))])
        policy = self._remembering
        items: list[dict[str, Any]] = []
        if policy.keeps("user", said.strip()):
            items.append({"content": said.strip(), "source": "told-by-user", **self._where()})
        if policy.keeps("assistant", answered.strip(), said=[said]):
            items.append({"content": answered.strip(), "source": "model-generated", **self._where()})
        if items:
            self.audrey.encode_batch(items)

    def clear(self) -> None:
        self.audrey.forget_all(**self._where())
