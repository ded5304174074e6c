"""Every example runs as shipped (offline), and tells its story."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from audrey_core.testing import lesson_pairs

from .fake_openai import FakeOpenAIServer, requires_openai

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name: str, *args: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.slow
def test_quickstart():
    out = run_example("quickstart.py")
    assert "confidence" in out and "top memory is still there" in out and "corrects 1 older observation" in out


@pytest.mark.slow
def test_stripe_demo_offline(tmp_path):
    db = tmp_path / "demo.db"
    out = run_example("stripe_demo.py", "--db", str(db))
    assert "principle (extractive, offline): what every report says: Stripe API returned HTTP 429" in out
    assert "learned from 2 independent reports (direct-observation, tool-result)" in out
    assert "recalled principle" in out and "evidence [direct-observation]" in out and "evidence [tool-result]" in out
    assert "~ replaces the principle" in out and "the principle is now superseded" in out
    # the test-mode detail meets both reports and their principle: each holds beside it, in its context
    detail = out.split("5. Days later")[1].split("the principle is context_dependent")[0]
    met = [line.split(",")[0] for line in detail.splitlines() if "= holds beside" in line]
    assert len(met) == len(set(met)) == 3 and "contradiction" not in detail and "!" not in detail, detail
    assert "['" not in out  # no Python list in what a person reads
    shown = out.split("what a model is shown:")[1].split("6. Weeks later")[0]
    assert "— in another context" in shown and "In test mode the Stripe API rate limit is 25" in shown
    assert "recall now answers: Stripe lowered the live API rate limit from 100 to 80" in out
    assert "dispute open" in out and "flagged for review" in out
    resolution = next(line for line in out.splitlines() if "confidence before -> after the dispute" in line)
    user, guess = (float(side.split("-> ")[1]) for side in resolution.split(": ", 2)[2].split("; "))
    assert "told-by-user" in resolution and "inference" in resolution and user > guess  # the guess outweighs nothing
    assert "live memories went dormant" in out and "still there, dormant: Stripe lowered" in out
    assert "an ordinary recall returns 0 of them" in out
    again = run_example("stripe_demo.py", "--db", str(db))  # into the same store: a telling of its own
    assert "scope: stripe-demo/telling-2" in again and "no cluster qualified" not in again


@pytest.mark.slow
def same_lesson_when_both_say(word: str, messages) -> str:
    """A model's grouping reply: two observations are one lesson when both say ``word`` (the 429 reports)."""
    import json

    same = [{"pair": n, "same": word in a and word in b} for n, a, b in lesson_pairs(messages)]
    return json.dumps({"judgements": same})


def test_stripe_demo_with_an_openai_compatible_llm():
    import json

    def chat(messages):
        if messages[0]["content"].startswith("[audrey:same_lesson]"):
            return same_lesson_when_both_say("429", messages)
        if messages[0]["content"].startswith("[audrey:principle_extraction]"):
            return json.dumps(
                {
                    "principle": "Stripe throttles clients above 100 requests per second",
                    "evidence_diverse": True,
                    "mechanism": "a per-account rate limiter",
                    "link_type": "causal",
                }
            )
        return json.dumps(
            {
                "relation": "context_dependent",
                "reason": "live and test keys differ",
                "conditions_existing": "live mode",
                "conditions_new": "test mode",
            }
        )

    with FakeOpenAIServer(chat=chat) as server:
        out = run_example("stripe_demo.py", "--llm-model", "fake-model", env={"AUDREY_LLM_BASE_URL": server.base_url})
    assert "extracted by fake-model" in out and "Stripe throttles clients above 100" in out
    assert "causal link (causal)" in out and "= holds beside the told-by-user report" in out.split("7. The agent")[1]


@pytest.mark.slow
def test_langchain_agent():
    out = run_example("langchain_agent.py")
    assert "I'm allergic to peanuts" in out.split("what the model was shown by the middleware:")[1]
    assert "what the store gave the read_preferences tool: diet: vegetarian" in out
    assert "remembered across threads: True" in out


@pytest.mark.slow
def test_llamaindex_chat():
    out = run_example("llamaindex_chat.py")
    shown = out.split("what the LLM was shown")[1]
    assert re.search(r"\[0\.82, told-by-user, \d{4}-\d\d-\d\d\] My sister Ines moved to Lisbon", shown)
    assert "recalled from the earlier session: True" in out


def test_openai_provider_without_a_key_says_so():
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "openai_provider.py")], capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode == 0 and "OPENAI_API_KEY is not set" in result.stdout


@requires_openai
def test_openai_provider_against_a_compatible_server():
    import json

    def chat(messages):
        if messages[0]["content"].startswith("[audrey:principle_extraction]"):
            return json.dumps({"principle": "Stripe throttles above 100 requests per second", "evidence_diverse": True})
        if messages[0]["content"].startswith("[audrey:same_lesson]"):
            return same_lesson_when_both_say("429", messages)
        return json.dumps(
            {
                "relation": "context_dependent",
                "reason": "test mode differs",
                "conditions_existing": "live mode",
                "conditions_new": "test mode",
            }
        )

    with FakeOpenAIServer(dimensions=1536, chat=chat) as server:
        out = run_example("openai_provider.py", env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.base_url})
    assert "consolidation with gpt-4o-mini: 1 principle(s)" in out
    assert "principle: Stripe throttles above 100 requests per second" in out
    assert "contradiction (llm, context_dependent)" in out


@pytest.mark.slow
def test_mcp_agent():
    pytest.importorskip("langchain_mcp_adapters")
    out = run_example("mcp_agent.py")
    assert "MCP tools: remember, recall, supersede, forget, consolidate, contradictions, status" in out
    assert "tool recall -> [told-by-user, active] Ada is allergic to peanuts" in out
    assert "Python Audrey on the same file recalls: Ada is allergic to peanuts" in out
