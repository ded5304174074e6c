"""A LlamaIndex chat engine that remembers a fact told in an earlier session, offline.

Session 1 tells the assistant something and ends (the Audrey file is closed). Session 2 opens the file again, with a
new chat engine and a new memory, and asks about it. The LLM is LlamaIndex's MockLLM, which answers by echoing the
prompt it was given, so the demo shows exactly what the model would see: the fact, recalled with its confidence.
Uses the default local all-MiniLM-L6-v2 model (from a clone: pip install -e '.[llamaindex]').
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import MockLLM

from audrey_core import Audrey
from audrey_llamaindex import AudreyMemory


def session(path: Path, message: str) -> str:
    with Audrey(path=path, agent="assistant") as brain:
        engine = SimpleChatEngine.from_defaults(
            llm=MockLLM(),
            memory=AudreyMemory.from_defaults(audrey=brain, token_limit=1500),
            prefix_messages=[],
        )
        return engine.chat(message).response


def main() -> int:
    path = Path(tempfile.mkdtemp(prefix="audrey-llamaindex-")) / "audrey.db"
    print("session 1 (user): My sister Ines moved to Lisbon last spring; her birthday is on 12 June.")
    session(path, "My sister Ines moved to Lisbon last spring; her birthday is on 12 June.")
    print("session 1 ends; the memory file is closed.\n")

    question = "When should I send my sister a birthday card?"
    print(f"session 2, a new engine and memory (user): {question}")
    seen = session(path, question)
    print("what the LLM was shown (MockLLM echoes it):\n  " + seen.strip().replace("\n", "\n  "))
    remembered = "her birthday is on 12 June" in seen
    print("\nrecalled from the earlier session:", remembered)
    return 0 if remembered else 1


if __name__ == "__main__":
    sys.exit(main())
