"""AudreyMemory in real chat engines and agent workflows, and AudreyMemoryBlock inside LlamaIndex's Memory."""

from __future__ import annotations

import re

import pytest
from llama_index.core.agent.workflow import AgentWorkflow, FunctionAgent, ReActAgent
from llama_index.core.chat_engine import CondensePlusContextChatEngine, SimpleChatEngine
from llama_index.core.llms import ChatMessage, MockLLM
from llama_index.core.llms.mock import MockFunctionCallingLLMWithChatMemoryOfLastCall
from llama_index.core.memory import Memory

from audrey_llamaindex import AudreyMemory, AudreyMemoryBlock, AudreyRetriever

from .fakes import ScriptedLLM


def test_simple_chat_engine_recalls_a_fact_from_an_earlier_session(li_brain):
    first = SimpleChatEngine.from_defaults(llm=MockLLM(), memory=AudreyMemory.from_defaults(audrey=li_brain))
    first.chat("My sister Ines lives in Lisbon")
    later = SimpleChatEngine.from_defaults(llm=MockLLM(), memory=AudreyMemory.from_defaults(audrey=li_brain))
    answer = later.chat("Where does my sister live?").response  # MockLLM echoes the prompt it was given
    assert re.search(r"\[0\.82, told-by-user, \d{4}-\d\d-\d\d\] My sister Ines lives in Lisbon", answer)
    assert {m.source for m in li_brain.list_memories(limit=10)} == {"told-by-user"}  # the user's words, not replies


async def test_condense_plus_context_engine(li_brain):
    li_brain.encode("The office wifi password is on the fridge", source="told-by-user")
    memory = AudreyMemory.from_defaults(audrey=li_brain)
    engine = CondensePlusContextChatEngine.from_defaults(
        retriever=AudreyRetriever(li_brain, similarity_top_k=2), llm=MockLLM(), memory=memory
    )
    answer = (await engine.achat("where is the wifi password?")).response
    assert "on the fridge" in answer and len(memory.get_all()) == 2


async def test_function_agent_and_agent_workflow(li_brain):
    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall()
    agent = FunctionAgent(tools=[], llm=llm)
    await agent.run(user_msg="My flight to Tokyo is on May 3", memory=AudreyMemory.from_defaults(audrey=li_brain))
    await agent.run(user_msg="When is my flight to Tokyo?", memory=AudreyMemory.from_defaults(audrey=li_brain))
    system = [m.content for m in llm.last_chat_messages if m.role.value == "system"]
    assert any("My flight to Tokyo is on May 3" in s for s in system)

    react_llm = ScriptedLLM(replies=["Thought: I can answer without any tools.\nAnswer: Noted."])
    workflow = AgentWorkflow(agents=[ReActAgent(name="assistant", description="helps", tools=[], llm=react_llm)])
    await workflow.run(
        user_msg="I parked on level 4", memory=AudreyMemory.from_defaults(audrey=li_brain, insert_method="user")
    )
    await workflow.run(
        user_msg="Where did I park?", memory=AudreyMemory.from_defaults(audrey=li_brain, insert_method="user")
    )
    assert "I parked on level 4" in react_llm.prompts[-1]


def test_get_respects_the_token_limit_and_keeps_the_newest_message(li_brain):
    memory = AudreyMemory.from_defaults(audrey=li_brain, token_limit=60, memory_share=0.0)
    for i in range(10):
        memory.put(ChatMessage(role="user", content=f"message number {i} " + "x" * 40))
    seen = memory.get()
    assert 1 <= len(seen) < 10 and seen[-1].content.startswith("message number 9")
    assert len(memory.get_all()) == 10
    tiny = AudreyMemory.from_defaults(audrey=li_brain, token_limit=1)
    tiny.put(ChatMessage(role="user", content="a message longer than the whole limit"))
    assert [m.content for m in tiny.get()] == ["a message longer than the whole limit"]


def test_set_reset_and_no_duplicates(li_brain):
    memory = AudreyMemory.from_defaults(audrey=li_brain, session_id="s1", remember=("user", "assistant"))
    history = [
        ChatMessage(role="user", content="I like jazz"),
        ChatMessage(role="assistant", content="Try Kind of Blue by Miles Davis."),
    ]
    memory.set(history)
    memory.set(history + [ChatMessage(role="user", content="and blues")])
    assert len(li_brain.list_memories(limit=10)) == 3  # set twice, stored once
    turns = sorted(li_brain.list_memories(limit=10), key=lambda m: m.turn)
    assert [(m.session, m.turn, m.speaker) for m in turns] == [
        ("s1", 0, "user"),
        ("s1", 1, "assistant"),
        ("s1", 2, "user"),
    ]
    memory.reset()
    assert memory.get_all() == [] and len(li_brain.list_memories(limit=10)) == 3
    other = AudreyMemory.from_defaults(audrey=li_brain)
    other.put(ChatMessage(role="user", content="what music do I like?"))
    assert "I like jazz" in other.get()[0].content
    with pytest.raises(ValueError, match="audrey="):
        AudreyMemory.from_defaults(token_limit=10)


def test_a_message_is_stored_with_its_speakers_name_its_session_and_the_time_it_was_put(li_brain, clock):
    memory = AudreyMemory.from_defaults(audrey=li_brain, session_id="s7", remember=("user", "assistant"))
    memory.put(ChatMessage(role="user", content="I adopted a greyhound.", additional_kwargs={"name": "Melanie"}))
    clock.advance(days=3)
    memory.put(ChatMessage(role="assistant", content="Greyhounds love a long nap after a sprint."))
    first, second = sorted(li_brain.list_memories(limit=10), key=lambda m: m.turn)
    assert (first.speaker, first.session, first.source) == ("Melanie", "s7", "told-by-user")
    assert (second.speaker, second.session) == ("assistant", "s7")
    assert (second.created_at - first.created_at).days == 3
    found = li_brain.recall("What did Melanie adopt?", limit=1)
    assert found[0].content == "I adopted a greyhound." and found[0].speaker == "Melanie"


def test_tool_output_and_bare_questions_are_kept_only_when_asked(li_brain):
    messages = [
        ChatMessage(role="user", content="Where does Bob live?"),
        ChatMessage(role="tool", content="stored"),
        ChatMessage(role="system", content="Be brief."),
        ChatMessage(role="assistant", content="Bob lives in Leeds."),
    ]
    AudreyMemory.from_defaults(audrey=li_brain, session_id="a").put_messages(messages)
    assert li_brain.list_memories(limit=10) == []  # a question, a tool's output and a reply: none is the user's fact
    everything = AudreyMemory.from_defaults(
        audrey=li_brain, session_id="b", remember=("user", "assistant", "tool"), remember_questions=True
    )
    everything.put_messages(messages)
    assert sorted(m.source for m in li_brain.list_memories(limit=10) if m.session == "b") == [
        "model-generated",
        "told-by-user",
        "tool-result",
    ]
    with pytest.raises(ValueError, match="not 'system'"):
        AudreyMemory.from_defaults(audrey=li_brain, remember=("system",))


async def test_async_twins(li_brain):
    memory = AudreyMemory.from_defaults(audrey=li_brain)
    await memory.aput(ChatMessage(role="user", content="remember the milk"))
    await memory.aput_messages([ChatMessage(role="assistant", content="sure")])
    assert [m.content for m in await memory.aget_all()] == ["remember the milk", "sure"]
    await memory.aset([ChatMessage(role="user", content="new start")])
    assert [m.content for m in await memory.aget_all()] == ["new start"]
    assert (await memory.aget())[-1].content == "new start"
    await memory.areset()
    assert await memory.aget_all() == []


@pytest.mark.parametrize("token_limit", [60, 100, 120])  # 100 and 120 lost the block when truncation undercut
async def test_memory_block_receives_flushed_messages_and_renders_with_confidence(li_brain, token_limit):
    memory = Memory.from_defaults(
        session_id="block-test",
        token_limit=token_limit,
        token_flush_size=20,
        chat_history_token_ratio=0.5,
        memory_blocks=[AudreyMemoryBlock(audrey=li_brain, name="audrey", priority=1)],
        tokenizer_fn=lambda text: text.split(),
    )
    for i in range(8):
        await memory.aput(ChatMessage(role="user", content=f"fact {i}: the build server is in rack {i} " * 2))
        await memory.aput(ChatMessage(role="assistant", content=f"noted fact {i}"))
    stored = li_brain.list_memories(limit=100)
    assert stored and {m.source for m in stored} == {"told-by-user"}  # what the user said, not "noted fact"
    await memory.aput(ChatMessage(role="user", content="which rack holds the build server?"))
    messages = await memory.aget()
    assert "Relevant memories" in messages[0].content and "told-by-user, 20" in messages[0].content


async def test_memory_block_truncation(li_brain):
    block = AudreyMemoryBlock(audrey=li_brain, k=5)
    li_brain.encode_batch([f"the cafe on street {i} serves good coffee" for i in range(5)])
    content = await block.aget([ChatMessage(role="user", content="good coffee")])
    assert content.count("\n- [") == 5
    shorter = await block.atruncate(content, 10)
    assert shorter is not None and shorter.count("\n") < content.count("\n") and content.startswith(shorter)
    assert await block.atruncate(content, 10_000) is None
    assert await block.aget([]) == ""


def test_messages_stored_with_a_ttl_are_not_recalled_after_it(li_brain, clock):
    SimpleChatEngine.from_defaults(llm=MockLLM(), memory=AudreyMemory.from_defaults(audrey=li_brain, ttl=3600)).chat(
        "My locker code is 7731"
    )
    later = AudreyMemory.from_defaults(audrey=li_brain)
    assert "7731" in later.get("What is my locker code?")[0].content
    clock.advance(hours=1)
    assert all("7731" not in (m.content or "") for m in AudreyMemory.from_defaults(audrey=li_brain).get("locker code"))
    assert len(li_brain.sweep_expired()) == 1  # the user's message
    with pytest.raises(ValueError):
        AudreyMemory.from_defaults(audrey=li_brain, ttl=0)


def test_memory_and_its_block_keep_what_the_user_says_last_in_a_session_and_no_chatter(li_brain):
    def engine(session):
        block = AudreyMemoryBlock(audrey=li_brain, name="audrey", priority=1)
        memory = Memory.from_defaults(session_id=session, token_limit=30_000, memory_blocks=[block])
        return SimpleChatEngine.from_defaults(llm=MockLLM(), memory=memory)

    first = engine("monday")
    for said in ("I'm vegetarian.", "ok thanks", "What time is it?", "Also my dentist is Dr. Okafor on Rua Augusta."):
        first.chat(said)  # nothing is flushed: the session ends with every message in short-term memory
    assert {m.content for m in li_brain.list_memories(limit=10)} == {
        "I'm vegetarian.",
        "Also my dentist is Dr. Okafor on Rua Augusta.",
    }
    answer = engine("tuesday").chat("Who is my dentist?").response  # MockLLM echoes its prompt
    assert "Dr. Okafor on Rua Augusta" in answer


def test_an_assistant_echo_is_no_second_report(li_brain):
    said = "I'm vegetarian, and I'm allergic to peanuts."
    memory = AudreyMemory.from_defaults(audrey=li_brain, remember=("user", "assistant"), remember_chatter=True)
    memory.put(ChatMessage(role="user", content=said))
    memory.put(ChatMessage(role="assistant", content="Noted: you are vegetarian and allergic to peanuts."))
    user, echo = sorted(li_brain.list_memories(limit=10), key=lambda m: m.turn)
    assert (user.source, echo.source) == ("told-by-user", "model-generated") and user.id in echo.derived_from
    assert li_brain.get(user.id).evidence_count == 1
    plain = AudreyMemory.from_defaults(audrey=li_brain, remember=("user", "assistant"))
    plain.put(ChatMessage(role="user", content="My daughter's school starts at 8:15."))
    plain.put(ChatMessage(role="assistant", content="Noted: your daughter's school starts at 8:15."))
    assert len(li_brain.list_memories(limit=10)) == 3  # a restatement is not stored by default
