"""Conversations, as both framework adapters need them: which source a speaker's words get, what of a conversation
becomes a long-term memory (:class:`Remembering`), how recalled memories are rendered into a prompt, Audrey's fields
on a document's metadata (and the rule when a key is taken), and ids for messages. The adapters translate types; the
policy lives here, once."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .config import SOURCES
from .ids import deterministic_id, new_ulid
from .models import Memory, RecallResult
from .providers.embedding import CHARS_PER_TOKEN, count_tokens
from .rules.chatter import is_non_answer, is_request, is_small_talk, restates
from .timeutil import system_clock

# Who said it decides how far it is trusted: the user's words are testimony, a tool's output an observation of the
# world, the model's own text something it generated (capped, and never evidence for itself).
ROLE_SOURCES: Mapping[str, str] = {
    "user": "told-by-user",
    "human": "told-by-user",
    "tool": "tool-result",
    "function": "tool-result",
    "assistant": "model-generated",
    "ai": "model-generated",
}
# The speaker a turn is stored with, by role, the same for every adapter (recall favours the speaker a question names).
ROLE_SPEAKERS: Mapping[str, str] = {
    "user": "user",
    "human": "user",
    "tool": "tool",
    "function": "tool",
    "assistant": "assistant",
    "ai": "assistant",
}
# Whose words the adapters remember by default: the user's. The assistant's replies are its own text (at best a
# restatement of what it was told or recalled, at worst a guess), and a tool's output is kept only for the tools the
# caller marks as lasting (a profile lookup, not today's weather).
REMEMBERED_SPEAKERS: tuple[str, ...] = ("user",)
# The prompt block's relevance floor in the adapters: a memory whose cosine to the user's message is below this
# (under all-MiniLM-L6-v2; kept at its place under another model) is left out of the prompt. Unrelated sentences meet
# at about 0.06 under that model and a fact that answers a question at 0.2 to 0.7.
PROMPT_SIMILARITY_FLOOR = 0.2
MEMORY_HEADER = "Relevant memories (most relevant first; confidence, source and date observed in brackets):"
AUDREY_FIELDS = ("confidence", "state", "memory_type", "source")

__all__ = [
    "AUDREY_FIELDS",
    "CHARS_PER_TOKEN",
    "DEFAULT_REMEMBERING",
    "MEMORY_HEADER",
    "PROMPT_SIMILARITY_FLOOR",
    "REMEMBERED_SPEAKERS",
    "ROLE_SOURCES",
    "ROLE_SPEAKERS",
    "Remembering",
    "audrey_fields",
    "count_tokens",
    "disputed",
    "is_question",
    "item_from_metadata",
    "message_id",
    "new_session_id",
    "placed_fields",
    "remembered_speakers",
    "render_memories",
    "source_for_role",
    "speaker_for_role",
    "with_fields",
]


def source_for_role(role: str) -> str | None:
    """The source of a message by its speaker's role (``None``: not remembered, e.g. a system message)."""
    return ROLE_SOURCES.get(str(role).lower())


def speaker_for_role(role: str, name: str | None = None) -> str:
    """Who said a message, as its turn is stored: the person or agent the framework names (OpenAI's ``name``: a
    LangChain message's ``name``, a LlamaIndex message's ``additional_kwargs["name"]``), else user or assistant by
    role; a tool's output is the tool's (another role as it is given). Recall favours the speaker a question names."""
    speaker = ROLE_SPEAKERS.get(str(role).lower(), str(role))
    named = name.strip() if isinstance(name, str) else ""
    return named if named and speaker in ("user", "assistant") else speaker


def remembered_speakers(speakers: Sequence[str]) -> frozenset[str]:
    """The speakers whose messages an adapter stores, checked: some of user, assistant and tool."""
    chosen = frozenset(speakers) if not isinstance(speakers, str) else frozenset((speakers,))
    unknown = sorted(chosen - {"user", "assistant", "tool"})
    if unknown:
        raise ValueError(f"remember takes user, assistant and tool; not {', '.join(map(repr, unknown))}")
    return chosen


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def is_question(text: str) -> bool:
    """Whether every sentence of ``text`` asks (ends with a question mark): a message that states nothing."""
    sentences = [s for s in _SENTENCE_END.split(text.strip()) if s.strip()]
    return bool(sentences) and all(s.rstrip().endswith(("?", "\uff1f")) for s in sentences)


@dataclass(frozen=True)
class Remembering:
    """What an adapter stores of a conversation as long-term memory; the conversation's own history, which a chat
    engine or an agent replays, stays whole whatever this says.

    By default: what the user states. Not their questions and requests of the moment ("Check my profile"; both kept
    with ``questions``), nor acknowledgements, greetings, thanks,
    bare non-answers and, when the assistant's replies are stored (``speakers`` with ``"assistant"``), its
    restatements of what was said and its non-answers (``chatter``); a tool's output only for the tools named in
    ``lasting_tools`` (or every tool's, with ``"tool"`` in ``speakers``). The rules of what a message says are
    :mod:`audrey_core.rules.chatter`."""

    speakers: frozenset[str] = frozenset(REMEMBERED_SPEAKERS)
    questions: bool = False
    chatter: bool = False
    lasting_tools: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        speakers: Sequence[str] = REMEMBERED_SPEAKERS,
        questions: bool = False,
        chatter: bool = False,
        lasting_tools: Sequence[str] = (),
    ) -> Remembering:
        """The policy from an adapter's options, checked (``ValueError`` / ``TypeError`` saying what is wrong)."""
        if isinstance(lasting_tools, str) or not all(isinstance(t, str) and t.strip() for t in lasting_tools):
            raise TypeError(f"lasting_tools is a sequence of tool names, e.g. ('get_profile',); not {lasting_tools!r}")
        for name, flag in (("remember_questions", questions), ("remember_chatter", chatter)):
            if not isinstance(flag, bool):
                raise TypeError(f"{name} is True or False, not {flag!r}")
        return cls(remembered_speakers(speakers), questions, chatter, frozenset(lasting_tools))

    def keeps(self, role: str, text: str, *, tool: str | None = None, said: Sequence[str] = ()) -> bool:
        """Whether a message becomes a memory: a role that is remembered at all (never system text), one of the
        chosen speakers (a tool's output: a lasting tool's), with text, not a bare question and not chatter. ``tool``:
        the tool that returned it; ``said``: what the conversation said before it (an assistant's restatement of it
        is no memory)."""
        if source_for_role(role) is None or not text.strip():
            return False
        speaker = ROLE_SPEAKERS.get(str(role).lower())
        if speaker == "tool":
            if "tool" not in self.speakers and tool not in self.lasting_tools:
                return False
        elif speaker not in self.speakers:
            return False
        if not self.questions and (is_question(text) or (speaker == "user" and is_request(text))):
            return False
        if self.chatter:
            return True
        if is_small_talk(text) or is_non_answer(text, strict=speaker == "user"):
            return False
        return not (speaker == "assistant" and restates(text, said))


def disputed(result: RecallResult) -> str:
    """The other sides of a memory's open contradictions and context-dependent pairs, each with its source and the
    day it was observed, so the model says the record disagrees (and which claim is newer) or names the context."""
    parts, seen = [], set()
    for c in result.counterclaims:
        if c.content in seen:
            continue  # a principle restating its episode says nothing new here
        seen.add(c.content)
        when = f", {c.observed_at:%Y-%m-%d}" if c.observed_at is not None else ""
        if c.relation == "context_dependent":
            context = f" ({c.conditions})" if c.conditions and c.conditions != "in general" else ""
            parts.append(f" — in another context{context}: {c.content} ({c.source}{when})")
        else:
            parts.append(f" — disputed by: {c.content} ({c.source}{when})")
    return "".join(parts)


SHARED_SHOWN = 20  # of the words an extractive principle's episodes all hold, how many a model is shown


def _backing(result: RecallResult) -> str:
    """What backs a result, when more than itself: a principle is a lesson learned from its episodes (an extractive
    one, with the words they all hold); an episode has the reports that restate it."""
    if result.evidence_count <= 1:
        return ""
    if result.memory_type == "episodic":
        return f", {result.evidence_count} reports"
    shared = str(result.metadata.get("shared_words") or "") if result.metadata.get("extractive") else ""
    common = f"; all say: {' '.join(shared.split()[:SHARED_SHOWN])}" if shared else ""
    return f", lesson learned from {result.evidence_count} episodes{common}"


def render_memories(
    results: Sequence[RecallResult],
    header: str | None = MEMORY_HEADER,
    *,
    show_type: bool = True,
    show_ids: bool = False,
) -> str:
    """Recalled memories as a prompt block, best first: ``- [confidence, source, type, date observed] content``
    (``N reports`` when restatements back an episode, ``lesson learned from N episodes`` for a principle, ``said by
    X`` for a named speaker's turn: a role's is
    in its source) and the other sides of any open contradiction or context
    pair with their dates. ``""`` when there is nothing to show."""
    lines = []
    for r in results:
        labels = f"{r.confidence:.2f}, {r.source}" + (f", {r.memory_type}" if show_type else "")
        labels += f", {r.observed_at:%Y-%m-%d}" + _backing(r)
        labels += f", said by {r.speaker}" if r.speaker and r.speaker not in ROLE_SPEAKERS.values() else ""
        lead = f"{r.id} " if show_ids else "- "
        lines.append(f"{lead}[{labels}] {r.content}{disputed(r)}")
    if not lines:
        return ""
    return "\n".join([header, *lines] if header else lines)


def audrey_fields(memory: Memory | RecallResult, confidence: float) -> dict[str, Any]:
    """Audrey's view of a memory (``AUDREY_FIELDS``), as document metadata."""
    return {"confidence": confidence, "state": memory.state, "memory_type": memory.memory_type, "source": memory.source}


def placed_fields(metadata: Mapping[str, Any], fields: Mapping[str, Any]) -> dict[str, Any]:
    """Where each of Audrey's ``fields`` goes beside the caller's ``metadata``: under its own key, unless the caller
    stored a different value there; then under ``audrey_<key>``, so a field never overwrites the caller's value."""
    return {key if metadata.get(key, value) == value else f"audrey_{key}": value for key, value in fields.items()}


def with_fields(metadata: Mapping[str, Any], fields: Mapping[str, Any]) -> dict[str, Any]:
    """The caller's metadata with Audrey's ``fields`` added by :func:`placed_fields`' rule."""
    return {**metadata, **placed_fields(metadata, fields)}


def item_from_metadata(
    text: str, metadata: Mapping[str, Any] | None, memory_id: str | None = None, default_source: str | None = None
) -> dict[str, Any]:
    """An ``encode_batch`` item for a document. Metadata is kept whole; its ``source`` (when it names an Audrey
    source), ``salience`` (a number in [0, 1]), ``tags`` (a list of strings), ``speaker`` and ``session`` (non-empty
    strings) and ``event_time`` (an aware datetime, or ISO 8601 text with its offset) also become Audrey's fields, so
    a document or store item that says who said it, in which conversation and when is recalled as such."""
    meta = dict(metadata or {})
    item: dict[str, Any] = {"content": text, "metadata": meta}
    for field in ("speaker", "session"):
        value = meta.get(field)
        if isinstance(value, str) and value.strip():
            item[field] = value
    moment = _aware_moment(meta.get("event_time"))
    if moment is not None:
        item["event_time"] = moment
    source = meta.get("source") if meta.get("source") in SOURCES else default_source
    if source is not None:
        item["source"] = source
    salience = meta.get("salience")
    if isinstance(salience, (int, float)) and not isinstance(salience, bool) and 0.0 <= salience <= 1.0:
        item["salience"] = salience
    tags = meta.get("tags")
    if isinstance(tags, (list, tuple)) and tags and all(isinstance(t, str) and t.strip() for t in tags):
        item["tags"] = list(tags)
    if memory_id is not None:
        item["id"] = memory_id
    return item


def _aware_moment(value: Any) -> datetime | None:
    """``value`` as a timezone-aware datetime, or None when it is not one (a naive time names no zone to read it
    in: it stays metadata only)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    return value if isinstance(value, datetime) and value.tzinfo is not None else None


def message_id(kind: str, agent: str, *parts: str) -> str:
    """A stable id for a message (or a stored item) from what identifies it, so storing it twice stores it once."""
    return deterministic_id(kind, agent, *parts)


def new_session_id() -> str:
    """A fresh, time-ordered id for a conversation."""
    return new_ulid(system_clock())


DEFAULT_REMEMBERING = Remembering()
"""What the adapters store when told nothing else."""
