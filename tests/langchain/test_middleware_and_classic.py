"""AudreyMemoryMiddleware in real create_agent agents, the memory tools, and the classic BaseMemory."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import ToolException, tool
from langgraph.checkpoint.memory import InMemorySaver

from audrey_langchain import AudreyMemory, AudreyMemoryMiddleware, memory_tools

from .chat_models import RecordingChatModel


def sources_by_content(brain):
    return {m.content: m.source for m in brain.list_memories(limit=100)}


def ask(agent, text, thread):
    return agent.invoke({"messages": [{"role": "user", "content": text}]}, {"configurable": {"thread_id": thread}})


def test_an_agent_remembers_across_threads(lc_brain):
    model = RecordingChatModel(replies=["Nice to meet you, Ada.", "You love Rust."])
    agent = create_agent(
        model,
        tools=[],
        system_prompt="You are helpful.",
        middleware=[AudreyMemoryMiddleware(lc_brain)],
        checkpointer=InMemorySaver(),
    )
    ask(agent, "My name is Ada and I love the Rust programming language", thread="t1")
    assert sources_by_content(lc_brain) == {"My name is Ada and I love the Rust programming language": "told-by-user"}
    ask(agent, "Which programming language do I love?", thread="t2")  # a new thread: no shared conversation
    second_prompt = model.system_texts()[1]
    assert second_prompt.startswith("You are helpful.") and "I love the Rust programming language" in second_prompt
    assert "[0.82, told-by-user, episodic, " in second_prompt


def weather_agent(brain, **options):
    @tool
    def weather(city: str) -> str:
        """Today's weather in a city."""
        return f"It is sunny in {city}."

    call = AIMessage(content="", tool_calls=[{"name": "weather", "args": {"city": "Lisbon"}, "id": "c1"}])
    model = RecordingChatModel(replies=[call, "It is sunny in Lisbon today: take a hat."])
    middleware = AudreyMemoryMiddleware(brain, **options)
    return create_agent(model, tools=[weather], middleware=[middleware], checkpointer=InMemorySaver()), model


def test_by_default_what_the_user_states_is_kept_not_replies_tool_output_questions_or_thanks(lc_brain):
    agent, model = weather_agent(lc_brain)
    ask(agent, "What's the weather in Lisbon?", thread="w")
    assert sources_by_content(lc_brain) == {}
    for said in ("ok thanks", "Great, thank you so much!", "I don't know", "Sure."):
        model.replies = ["You're welcome."]
        ask(agent, said, thread="w")
    assert sources_by_content(lc_brain) == {}
    model.replies = ["Enjoy it."]
    ask(agent, "Thanks! I'm flying there tomorrow.", thread="w")
    assert sources_by_content(lc_brain) == {"Thanks! I'm flying there tomorrow.": "told-by-user"}
    # and the thread, which the agent replays, kept every message
    state = agent.get_state({"configurable": {"thread_id": "w"}}).values
    assert len([m for m in state["messages"] if m.type == "human"]) == 6


def test_a_lasting_tools_output_is_kept_a_transient_ones_is_not(lc_brain):
    @tool
    def profile(user: str) -> str:
        """The user's profile."""
        return "Ada's home airport is LIS."

    @tool
    def weather(city: str) -> str:
        """Today's weather in a city."""
        return f"It's sunny and 21C in {city}."

    calls = AIMessage(
        content="",
        tool_calls=[
            {"name": "profile", "args": {"user": "ada"}, "id": "c1"},
            {"name": "weather", "args": {"city": "Lisbon"}, "id": "c2"},
        ],
    )
    model = RecordingChatModel(replies=[calls, "Your home airport is LIS and it's sunny."])
    middleware = AudreyMemoryMiddleware(lc_brain, lasting_tools=["profile"])
    agent = create_agent(model, tools=[profile, weather], middleware=[middleware], checkpointer=InMemorySaver())
    ask(agent, "Check my profile and the weather.", thread="p")  # a request of the moment: no memory itself
    assert sources_by_content(lc_brain) == {"Ada's home airport is LIS.": "tool-result"}
    with pytest.raises(TypeError, match="sequence of tool names"):
        AudreyMemoryMiddleware(lc_brain, lasting_tools="profile")


def test_tool_results_and_replies_are_encoded_when_asked_and_turns_are_not_duplicated(lc_brain):
    agent, model = weather_agent(lc_brain, remember=("user", "assistant", "tool"), remember_questions=True)
    ask(agent, "What's the weather in Lisbon?", thread="w")
    assert sources_by_content(lc_brain) == {
        "What's the weather in Lisbon?": "told-by-user",
        "It is sunny in Lisbon.": "tool-result",
        "It is sunny in Lisbon today: take a hat.": "model-generated",
    }
    model.replies = ["The table is booked for eight."]
    ask(agent, "Book me a table at Taberna for tonight.", thread="w")  # earlier turns are not encoded again
    assert len(lc_brain.list_memories(limit=100)) == 5
    turns = sorted(lc_brain.list_memories(limit=100), key=lambda m: m.turn)
    assert {m.session for m in turns} == {"w"}  # the thread's turns, in the order they were said
    assert [(m.turn, m.speaker) for m in turns] == [
        (0, "user"),
        (1, "tool"),
        (2, "assistant"),
        (3, "user"),
        (4, "assistant"),
    ]
    assert [m.content for m in turns][3:] == [
        "Book me a table at Taberna for tonight.",
        "The table is booked for eight.",
    ]
    reply = turns[4]
    assert reply.source == "model-generated" and turns[3].id in reply.derived_from  # drawn from what it answers


def test_a_reply_that_echoes_the_user_is_no_second_report(lc_brain):
    said = "I'm vegetarian, and I'm allergic to peanuts."
    model = RecordingChatModel(replies=["Noted: you are vegetarian and allergic to peanuts.", said])
    agent = create_agent(
        model,
        tools=[],
        middleware=[AudreyMemoryMiddleware(lc_brain, remember=("user", "assistant"))],
        checkpointer=InMemorySaver(),
    )
    ask(agent, said, thread="e")
    assert sources_by_content(lc_brain) == {said: "told-by-user"}  # the restatement is not stored
    keeping = AudreyMemoryMiddleware(lc_brain, remember=("user", "assistant"), remember_chatter=True)
    agent = create_agent(model, tools=[], middleware=[keeping], checkpointer=InMemorySaver())
    ask(agent, "Please remember it.", thread="f")  # the reply repeats the user word for word, stored this time
    (user,) = [m for m in lc_brain.list_memories(limit=10) if m.content == said and m.source == "told-by-user"]
    (echo,) = [m for m in lc_brain.list_memories(limit=10) if m.content == said and m.source == "model-generated"]
    assert lc_brain.get(user.id).evidence_count == 1 and echo.derived_from  # the agent's words back nothing


def test_tool_errors_and_the_memory_tools_own_output_are_never_stored(lc_brain):
    @tool
    def flaky(city: str) -> str:
        """A tool that fails."""
        raise ToolException("upstream timed out")

    flaky.handle_tool_error = True
    lc_brain.encode("Ada's cat is called Miso", source="told-by-user")
    calls = AIMessage(
        content="",
        tool_calls=[
            {"name": "flaky", "args": {"city": "Lisbon"}, "id": "c1"},
            {"name": "recall", "args": {"query": "cat"}, "id": "c2"},
        ],
    )
    model = RecordingChatModel(replies=[calls, "Done."])
    middleware = AudreyMemoryMiddleware(lc_brain, with_tools=True, remember=("user", "assistant", "tool"))
    agent = create_agent(model, tools=[flaky, *middleware.tools], middleware=[middleware], checkpointer=InMemorySaver())
    ask(agent, "Look up the weather and my cat, please.", thread="e")
    tool_texts = [m.content for m in model.seen[-1] if m.type == "tool"]
    assert any("upstream timed out" in t for t in tool_texts) and any("Miso" in t for t in tool_texts)
    assert set(sources_by_content(lc_brain)) == {"Ada's cat is called Miso"}  # the request itself is no memory either


def test_a_messages_name_is_stored_as_its_speaker_with_its_thread_and_time(lc_brain, clock):
    clock.advance(days=12)
    agent = create_agent(
        RecordingChatModel(replies=["Noted."]),
        tools=[],
        middleware=[AudreyMemoryMiddleware(lc_brain)],
        checkpointer=InMemorySaver(),
    )
    message = HumanMessage(content="I moved to Porto last spring.", name="Caroline")
    agent.invoke({"messages": [message]}, {"configurable": {"thread_id": "s1"}})
    stored = {m.content: m for m in lc_brain.list_memories(limit=10)}
    said = stored["I moved to Porto last spring."]
    assert (said.speaker, said.session, said.source) == ("Caroline", "s1", "told-by-user")
    assert said.created_at == clock()  # when it was said
    assert "Noted." not in stored


@dataclass
class UserContext:
    user_id: str


def test_one_middleware_serves_many_users_through_the_runs_context(lc_brain):
    model = RecordingChatModel(replies=["ok"])
    middleware = AudreyMemoryMiddleware(lc_brain, scope=lambda runtime: ("user", runtime.context.user_id))
    agent = create_agent(model, tools=[], middleware=[middleware], context_schema=UserContext)
    agent.invoke({"messages": [{"role": "user", "content": "I drink green tea"}]}, context=UserContext("ada"))
    agent.invoke({"messages": [{"role": "user", "content": "I drink black coffee"}]}, context=UserContext("bo"))
    assert {m.content: m.scope for m in lc_brain.list_memories(limit=10) if m.source == "told-by-user"} == {
        "I drink green tea": ("user", "ada"),
        "I drink black coffee": ("user", "bo"),
    }
    agent.invoke({"messages": [{"role": "user", "content": "what do I drink?"}]}, context=UserContext("bo"))
    prompt = model.system_texts()[-1]
    assert "black coffee" in prompt and "green tea" not in prompt


def test_the_memory_tools_take_the_runs_scope_inside_an_agent(lc_brain):
    call = AIMessage(
        content="", tool_calls=[{"name": "remember", "args": {"content": "Bo is allergic to nuts"}, "id": "r1"}]
    )
    model = RecordingChatModel(replies=[call, "Saved."])
    middleware = AudreyMemoryMiddleware(
        lc_brain, scope=lambda runtime: ("user", runtime.context.user_id), with_tools=True
    )
    agent = create_agent(model, tools=middleware.tools, middleware=[middleware], context_schema=UserContext)
    agent.invoke({"messages": [{"role": "user", "content": "Remember my allergy"}]}, context=UserContext("bo"))
    saved = [m for m in lc_brain.list_memories(limit=10) if m.content == "Bo is allergic to nuts"]
    assert [m.scope for m in saved] == [("user", "bo")]
    with pytest.raises(ValueError, match="needs the run's runtime"):
        middleware.tools[0].invoke({"content": "outside any agent"})


def test_middleware_options_are_checked(lc_brain):
    with pytest.raises(ValueError, match="not 'system'"):
        AudreyMemoryMiddleware(lc_brain, remember=("user", "system"))
    with pytest.raises(TypeError, match="sequence of labels"):
        AudreyMemoryMiddleware(lc_brain, scope="ada")
    agent = create_agent(
        RecordingChatModel(replies=["ok"]),
        tools=[],
        middleware=[AudreyMemoryMiddleware(lc_brain, scope=lambda r: "bo")],
    )
    with pytest.raises(TypeError, match="sequence of str labels"):
        agent.invoke({"messages": [{"role": "user", "content": "hi there"}]})


def test_unrelated_memories_stay_out_of_the_prompt(lc_brain):
    lc_brain.encode("It's sunny and 21C in Lisbon", source="tool-result")
    lc_brain.encode("I am allergic to peanuts: avoid peanut food", source="told-by-user")
    model = RecordingChatModel(replies=["Skip the peanut snacks."])
    agent = create_agent(model, tools=[], middleware=[AudreyMemoryMiddleware(lc_brain)])
    agent.invoke({"messages": [{"role": "user", "content": "What food should I avoid on the flight?"}]})
    prompt = model.system_texts()[-1]
    assert "allergic to peanuts" in prompt and "Lisbon" not in prompt


def test_without_a_checkpointer_messages_are_stored_as_plain_memories(lc_brain):
    agent = create_agent(RecordingChatModel(replies=["Hi"]), tools=[], middleware=[AudreyMemoryMiddleware(lc_brain)])
    agent.invoke({"messages": [{"role": "user", "content": "My locker code is 4412"}]})
    assert {(m.session, m.turn) for m in lc_brain.list_memories(limit=10)} == {(None, None)}


def test_token_budget_and_scopes(lc_brain):
    lc_brain.encode("a " * 400 + "very long memory about tea", scope=("user", "a"))
    lc_brain.encode("user b drinks coffee", scope=("user", "b"))
    model = RecordingChatModel(replies=["ok"])
    for scope, budget, expected, absent in [
        (("user", "a"), 50, None, "tea"),
        (("user", "a"), 1000, "tea", None),
        (("user", "b"), 1000, "coffee", "tea"),
    ]:
        agent = create_agent(
            model,
            tools=[],
            middleware=[AudreyMemoryMiddleware(lc_brain, scope=scope, token_budget=budget, min_similarity=None)],
        )
        agent.invoke({"messages": [{"role": "user", "content": "what do I drink, tea or coffee?"}]})
        prompt = model.system_texts()[-1]
        assert (expected is None or expected in prompt) and (absent is None or absent not in prompt)


async def test_async_agent(lc_brain):
    model = RecordingChatModel(replies=["Noted: you prefer metric units."])
    agent = create_agent(model, tools=[], middleware=[AudreyMemoryMiddleware(lc_brain)])
    await agent.ainvoke({"messages": [{"role": "user", "content": "I prefer metric units"}]})
    await agent.ainvoke({"messages": [{"role": "user", "content": "which units do I prefer?"}]})
    assert "I prefer metric units" in model.system_texts()[-1]


def test_memory_tools(lc_brain):
    remember, recall, fix = memory_tools(lc_brain, scope=("user", "z"))
    mid = remember.invoke({"content": "the user's dog is called Rex", "source": "told-by-user"})
    assert lc_brain.get(mid).scope == ("user", "z") and lc_brain.get(mid).source == "told-by-user"
    assert mid in recall.invoke({"query": "dog name"}) and "[0.82, told-by-user, " in recall.invoke({"query": "dog"})
    assert remember.invoke({"content": "x", "source": "rumour"}).startswith("error")
    answer = fix.invoke({"memory_id": mid, "correction": "the user's dog is called Max"})
    assert answer.startswith("superseded by") and lc_brain.get(mid).state == "superseded"
    assert "Max" in recall.invoke({"query": "dog name"}) and "Rex" not in recall.invoke({"query": "dog name"})
    new_id = answer.split()[-1]
    assert fix.invoke({"memory_id": new_id}) == "forgotten" and lc_brain.get(new_id) is None
    elsewhere = lc_brain.encode("user y's dog is called Bo", scope=("user", "y"))
    for args in ({"memory_id": elsewhere}, {"memory_id": elsewhere, "correction": "Bo is a cat"}):
        assert fix.invoke(args) == f"no memory {elsewhere}"  # the tools never reach outside their scope
    assert lc_brain.get(elsewhere).state == "active"
    tools = AudreyMemoryMiddleware(lc_brain, with_tools=True).tools
    assert [t.name for t in tools] == ["remember", "recall", "forget_or_supersede"]


def test_classic_memory_round_trip(lc_brain):
    memory = AudreyMemory(audrey=lc_brain, k=3)
    assert memory.memory_variables == ["history"]
    memory.save_context({"input": "I live in Porto"}, {"output": "Porto is lovely."})
    assert [m.content for m in lc_brain.list_memories(limit=10)] == ["I live in Porto"]  # the user's words only
    memory.save_context({"input": "ok thanks"}, {"output": "You're welcome."})
    assert len(lc_brain.list_memories(limit=10)) == 1
    loaded = memory.load_memory_variables({"input": "where do I live?"})["history"]
    assert "I live in Porto" in loaded and "told-by-user" in loaded
    memory.clear()
    assert memory.load_memory_variables({"input": "where do I live?"}) == {"history": ""}
    with pytest.raises(ValueError, match="One input key expected"):
        memory.load_memory_variables({"a": 1, "b": 2})


@pytest.mark.filterwarnings("ignore:The class `ConversationChain` was deprecated")  # legacy chains are the point
def test_classic_memory_in_a_legacy_chain(lc_brain):
    from langchain_classic.chains import ConversationChain

    chain = ConversationChain(
        llm=FakeListLLM(responses=["Hello Ada!", "You are Ada."]), memory=AudreyMemory(audrey=lc_brain)
    )
    chain.invoke({"input": "Hi, I am Ada"})
    assert "Hi, I am Ada" in chain.memory.load_memory_variables({"input": "who am I?"})["history"]
    chain.invoke({"input": "Who am I?"})
    assert {m.content for m in lc_brain.list_memories(limit=10)} == {"Hi, I am Ada"}  # not the question or "Hello"
