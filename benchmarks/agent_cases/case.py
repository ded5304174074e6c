"""A scripted user of an agent, for ``benchmarks.agents``: sessions of messages, each with what it is (a fact worth
remembering, a question, chatter) and the reply the agent gives (an echo, a non-answer, an answer), the tool it calls
first and what the tool returns, and the questions of later sessions that a remembered fact answers."""

from __future__ import annotations

from dataclasses import dataclass

# What a user message is.
FACT, QUESTION, CHATTER = "fact", "question", "chatter"
# What the agent's reply is.
ECHO, NON_ANSWER, ANSWER, SMALL_TALK = "echo", "non-answer", "answer", "small-talk"
# The tools: a lasting one (the user's profile: what it returns holds) and a transient one (today's weather).
PROFILE, WEATHER = "get_profile", "get_weather"


@dataclass(frozen=True)
class Tool:
    """A tool the agent calls before replying, and what it returns; ``fact``: the key of the lasting fact it returns
    (a lasting tool's output), None for transient output."""

    name: str
    output: str
    fact: str | None = None


@dataclass(frozen=True)
class Message:
    """One user message and the agent's turn after it. ``fact``: the key of the fact it states (``kind`` FACT) or
    asks about (``kind`` QUESTION, answered by a fact of an earlier session); ``repeats``: a fact stated in an earlier
    session, said again (an independent second report)."""

    text: str
    kind: str
    reply: str
    reply_kind: str
    fact: str | None = None
    tool: Tool | None = None
    repeats: bool = False


@dataclass(frozen=True)
class User:
    """A user of the agent, the facts they state (key -> the words that say it) and their sessions, in order."""

    name: str
    sessions: tuple[tuple[Message, ...], ...]
