"""The same conversations through each adapter and through the core: does an adapter recall what the core recalls?

    python -m benchmarks.adapters [--data ../shared/data/locomo_dev.json] [--conversations N] [--arms A,B]

LoCoMo conversations are told session by session at their sessions' dates (an injectable clock, as a live chat is
told), every turn as its speaker's message, and each question is asked one day after the last session, recall@10
(an evidence turn among the 10 results). Arms:

* ``core``: ``encode_batch`` with each turn's text, session, speaker and time, as ``benchmarks.conversations``
  stores it: the figure an adapter should reach;
* ``llamaindex``: an ``AudreyMemory`` per session (its ``session_id``), each turn put as a user ``ChatMessage``
  with its speaker's name in ``additional_kwargs["name"]`` (how LlamaIndex carries OpenAI's ``name``), asked through
  ``AudreyRetriever(similarity_top_k=10)``;
* ``middleware``: a LangChain ``create_agent`` agent with ``AudreyMemoryMiddleware`` and a checkpointer, one thread
  per session, each turn a ``HumanMessage`` with the speaker's ``name`` (the model answers nothing), asked through
  ``audrey_langchain.AudreyRetriever(k=10)``.

Both people are users in the adapter arms (a chat between two people: neither is the model). Prints a table and a
JSON line.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import defaultdict
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from audrey_core import Audrey, AudreyConfig
from audrey_core.config import ValidationConfig
from audrey_core.testing import ManualClock

from . import embedders
from .locomo import Conversation, Turn, load
from .retrieval import turn_item

K = 10
ARMS = ("core", "llamaindex", "middleware")
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"


def sessions(conv: Conversation) -> list[list[Turn]]:
    """The conversation's turns, session by session, in order."""
    grouped: dict[str, list[Turn]] = defaultdict(list)
    for turn in conv.turns:
        grouped[turn.session].append(turn)
    return sorted(grouped.values(), key=lambda turns: turns[0].when)


def _move(clock: ManualClock, when: Any) -> None:
    clock.advance(seconds=(when - clock()).total_seconds())


def tell_core(brain: Audrey, clock: ManualClock, conv: Conversation) -> None:
    for turns in sessions(conv):
        _move(clock, turns[0].when)
        brain.encode_batch([turn_item(t, said=True) for t in turns])


def tell_llamaindex(brain: Audrey, clock: ManualClock, conv: Conversation) -> None:
    from llama_index.core.llms import ChatMessage, MessageRole

    from audrey_llamaindex import AudreyMemory

    for turns in sessions(conv):
        _move(clock, turns[0].when)
        memory = AudreyMemory.from_defaults(audrey=brain, session_id=turns[0].session)
        for t in turns:
            memory.put(ChatMessage(role=MessageRole.USER, content=t.said, additional_kwargs={"name": t.speaker}))


def tell_middleware(brain: Audrey, clock: ManualClock, conv: Conversation) -> None:
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from audrey_langchain import AudreyMemoryMiddleware

    model = FakeMessagesListChatModel(responses=[AIMessage(content="")])
    agent = create_agent(model, tools=[], middleware=[AudreyMemoryMiddleware(brain)], checkpointer=InMemorySaver())
    for turns in sessions(conv):
        _move(clock, turns[0].when)
        for t in turns:
            message = HumanMessage(content=t.said, name=t.speaker)
            agent.invoke({"messages": [message]}, {"configurable": {"thread_id": t.session}})


def ask(arm: str, brain: Audrey) -> Callable[[str], list[str]]:
    """The arm's way of asking: the ids of the top K memories for a question."""
    if arm == "llamaindex":
        from audrey_llamaindex import AudreyRetriever

        retriever = AudreyRetriever(audrey=brain, similarity_top_k=K)
        return lambda question: [n.node.node_id for n in retriever.retrieve(question)]
    if arm == "middleware":
        from audrey_langchain import AudreyRetriever as LangChainRetriever

        lc_retriever = LangChainRetriever(audrey=brain, k=K)
        return lambda question: [d.id or "" for d in lc_retriever.invoke(question)]
    return lambda question: [r.id for r in brain.recall(question, limit=K)]


TELL = {"core": tell_core, "llamaindex": tell_llamaindex, "middleware": tell_middleware}


def run_arm(arm: str, conv: Conversation, folder: Path, embedder: Any) -> list[bool]:
    """Whether each question of the conversation finds an evidence turn among the arm's top K."""
    clock = ManualClock(conv.turns[0].when)
    config = AudreyConfig(validation=ValidationConfig(background=False))
    with Audrey(
        folder / f"{conv.sample_id}-{arm}.db", agent=conv.sample_id, embedder=embedder, clock=clock, config=config
    ) as brain:
        TELL[arm](brain, clock, conv)
        # The adapters make their own ids: a stored turn is known by its session and its words (as stored: trimmed).
        turn_of: dict[tuple[str | None, str], set[str]] = defaultdict(set)
        for t in conv.turns:
            turn_of[(t.session, t.said.strip())].add(t.dia_id)
        dia_ids = {m.id: turn_of.get((m.session, m.content.strip()), {m.id}) for m in brain.iter_memories()}
        _move(clock, conv.turns[-1].when + timedelta(days=1))
        asking = ask(arm, brain)
        outcomes = []
        for question in conv.questions:
            found = set().union(*(dia_ids.get(i, set()) for i in asking(question.question)))
            outcomes.append(bool(question.evidence & found))
    return outcomes


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="a LoCoMo JSON file (default: LoCoMo's dev split)")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--arms", default=",".join(ARMS), help=f"comma-separated, of {', '.join(ARMS)}")
    embedders.add_option(parser)
    args = parser.parse_args(argv)
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    unknown = sorted(set(arms) - set(ARMS))
    if unknown:
        parser.error(f"unknown arm(s) {', '.join(unknown)}; choose from {', '.join(ARMS)}")
    conversations = load(args.data)[: args.conversations]
    embedder = embedders.named(args.embedder)
    hits: dict[str, list[bool]] = {arm: [] for arm in arms}
    with tempfile.TemporaryDirectory(prefix="audrey-adapters-") as folder:
        for conv in conversations:
            for arm in arms:
                hits[arm] += run_arm(arm, conv, Path(folder), embedder)
    questions = len(next(iter(hits.values()), []))
    recall = {arm: round(100 * sum(h) / max(len(h), 1), 1) for arm, h in hits.items()}
    print(f"\nLoCoMo through each adapter ({len(conversations)} conversations, {questions} questions): recall@{K} in %")
    print("".join(f"{arm:>12}" for arm in arms))
    print("".join(f"{recall[arm]:>12}" for arm in arms))
    result = {"benchmark": "adapters", "k": K, "conversations": len(conversations), "questions": questions, **recall}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
