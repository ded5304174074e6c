"""[langchain] alone: README's LangGraph store and retriever on LangChain's own embeddings, and the middleware in a
real create_agent agent, remembering across threads, on the default local model."""

import sys
import tempfile
from pathlib import Path

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from audrey_core import Audrey
from audrey_langchain import AudreyMemoryMiddleware, AudreyRetriever, AudreyStore

path = Path(tempfile.mkdtemp()) / "lc.db"
with Audrey(path=path) as brain:
    store = AudreyStore(audrey=brain, index={"fields": ["text"]})
    store.put(("users", "ada"), "diet", {"text": "Ada is vegetarian"})
    assert store.get(("users", "ada"), "diet").value == {"text": "Ada is vegetarian"}
    model = FakeMessagesListChatModel(responses=[AIMessage(content="Noted.")])
    agent = create_agent(model, tools=[], middleware=[AudreyMemoryMiddleware(brain)], checkpointer=InMemorySaver())
    agent.invoke({"messages": [{"role": "user", "content": "I live in Porto"}]}, {"configurable": {"thread_id": "1"}})
    found = AudreyRetriever(audrey=brain, k=3).invoke("I live in Porto")
    assert any(d.page_content == "I live in Porto" for d in found), found
print("langchain: store, middleware and retriever work", file=sys.stderr)
