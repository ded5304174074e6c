"""[llamaindex] alone: a chat engine with AudreyMemory recalls a fact told in an earlier session, on the default local
model."""

import sys
import tempfile
from pathlib import Path

from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import MockLLM

from audrey_core import Audrey
from audrey_llamaindex import AudreyMemory, AudreyRetriever

path = Path(tempfile.mkdtemp()) / "li.db"
with Audrey(path=path) as brain:
    SimpleChatEngine.from_defaults(llm=MockLLM(), memory=AudreyMemory.from_defaults(audrey=brain)).chat(
        "My sister Ines lives in Lisbon"
    )
    later = SimpleChatEngine.from_defaults(llm=MockLLM(), memory=AudreyMemory.from_defaults(audrey=brain))
    answer = later.chat("Where does my sister live?").response  # MockLLM echoes its prompt
    assert "My sister Ines lives in Lisbon" in answer, answer
    assert AudreyRetriever(brain, similarity_top_k=2).retrieve("sister")
print("llamaindex: memory, chat engine and retriever work", file=sys.stderr)
