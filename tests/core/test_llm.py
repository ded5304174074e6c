"""The LLM layer: parsing replies, the OpenAI-compatible provider against a loopback server, the scripted fake."""

from __future__ import annotations

import json

import pytest

from audrey_core import ConfigurationError, LLMError, OpenAICompatibleLLM
from audrey_core.providers.llm import as_llm, ask, parse_reply
from audrey_core.rules.prompts import CONTRADICTION_CHECK, PRINCIPLE_EXTRACTION, PROMPTS
from audrey_core.testing import ScriptedLLM

from ..fake_openai import FakeOpenAIServer, requires_openai

SUPPORTS = json.dumps({"relation": "supports", "reason": "same"})


@pytest.mark.parametrize(
    "text",
    [SUPPORTS, f"```json\n{SUPPORTS}\n```", f"Sure! Here it is: {SUPPORTS} Hope that helps."],
)
def test_replies_are_parsed_through_fences_and_prose(text):
    assert parse_reply(text, CONTRADICTION_CHECK, "m").relation == "supports"


@pytest.mark.parametrize(
    "text,message",
    [
        ("no json here", "no JSON object"),
        ('{"relation": "maybe"}', "does not fit"),
        ("{broken", "no JSON object"),
        (None, "instead of text"),
    ],
)
def test_bad_replies_raise_llm_error(text, message):
    with pytest.raises(LLMError, match=message):
        parse_reply(text, CONTRADICTION_CHECK, "m")


def test_prompts_are_hashed_and_marked():
    assert len({p.hash for p in PROMPTS.values()}) == len(PROMPTS) and len(CONTRADICTION_CHECK.hash) == 64
    messages = PRINCIPLE_EXTRACTION.render(observations="- a", causal="(none)")
    assert messages[0]["content"].startswith("[audrey:principle_extraction]")
    assert '"principle"' in messages[0]["content"]  # the JSON schema is part of the request


def test_callables_and_bad_llms():
    llm = as_llm(lambda messages: SUPPORTS)
    assert ask(llm, CONTRADICTION_CHECK, existing="a", incoming="b").relation == "supports"
    assert as_llm(None) is None
    with pytest.raises(ConfigurationError, match="complete"):
        as_llm(42)
    with pytest.raises(LLMError, match="boom"):
        ask(
            as_llm(lambda m: (_ for _ in ()).throw(RuntimeError("boom"))),
            CONTRADICTION_CHECK,
            existing="a",
            incoming="b",
        )


def test_scripted_llm_replies_in_turn_and_records_calls():
    llm = ScriptedLLM({"contradiction_check": [{"relation": "contradicts"}, {"relation": "unrelated"}]})
    answers = [ask(llm, CONTRADICTION_CHECK, existing="a", incoming="b").relation for _ in range(3)]
    assert answers == ["contradicts", "unrelated", "unrelated"]
    assert len(llm.calls_for("contradiction_check")) == 3
    with pytest.raises(LLMError, match="no reply for prompt 'principle_extraction'"):
        ask(llm, PRINCIPLE_EXTRACTION, observations="x", causal="y")


@requires_openai
def test_openai_compatible_llm_against_a_loopback_server():
    with FakeOpenAIServer(chat=lambda messages: SUPPORTS) as server:
        llm = OpenAICompatibleLLM("local-model", base_url=server.base_url, retry_base_delay=0.001)
        server.failures = [(429, "slow down"), (500, "hiccup")]
        assert ask(llm, CONTRADICTION_CHECK, existing="a", incoming="b").relation == "supports"
        request = server.requests[-1]
        assert request["model"] == "local-model" and request["response_format"] == {"type": "json_object"}
        assert request["temperature"] == 0.0 and request["messages"][1]["content"].startswith("Existing memory: a")
        assert len(server.requests) == 3
        server.failures = [(400, "model does not support json mode")]
        with pytest.raises(LLMError, match="does not support json mode"):
            llm.complete([{"role": "user", "content": "hi"}])
        plain = OpenAICompatibleLLM("local-model", base_url=server.base_url, json_mode=False)
        plain.complete([{"role": "user", "content": "hi"}])
        assert "response_format" not in server.requests[-1]


@requires_openai
def test_openai_compatible_llm_needs_a_key_or_a_server(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        OpenAICompatibleLLM()
