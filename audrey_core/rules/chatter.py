"""What a message of a conversation says, as far as a long-term memory cares: nothing lasting (an acknowledgement, a
greeting, thanks), that the speaker does not know (a non-answer), or only what the conversation said already (a
restatement). Pure rules on closed-class words: interjections, function words and the phrases of not knowing.

``"ok thanks"``, ``"Great, see you tomorrow!"`` and ``"Sure."`` say nothing to remember; ``"Thanks! I'm flying to
Lisbon tomorrow."`` does (flying, Lisbon, tomorrow). ``"Noted: you are vegetarian and allergic to peanuts."`` after
the user's ``"I'm vegetarian, and I'm allergic to peanuts."`` restates it: every word it carries was said.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Interjections and the small talk of a chat: acknowledgements, thanks, greetings, farewells, agreement.
SMALL_TALK = frozenset(
    """ok okay okey k kk alright right sure yes yeah yep yup ya no nope nah thanks thank thx ty cheers great good
    cool nice perfect awesome excellent fine wonderful lovely amazing brilliant fantastic noted understood got gotcha
    roger hi hello hey hiya greetings bye goodbye later morning afternoon evening night welcome please sorry oh ah
    aha hmm hm um uh wow lol haha hehe yay indeed absolutely definitely totally exactly agreed agree sounds see care
    np problem worries appreciate appreciated glad happy help helpful helps done set works worked sense course
    congrats congratulations enjoy bless today tonight tomorrow soon""".split()
)
# Function words: pronouns, determiners, auxiliaries and modals, prepositions, conjunctions, a few adverbs, and the
# pieces contractions split into ("i'm" -> i m, "don't" -> don t).
FUNCTION_WORDS = frozenset(
    """i me my mine myself you your yours yourself we us our ours he him his she her hers it its they them their
    this that these those a an the some any all both each every no not nor and or but so if then than as too also
    very really much many more most just only still again already even well there here now
    is am are was were be been being do does did doing have has had having will would shall should can could may
    might must s m re ve ll d t don doesn didn isn aren wasn weren haven hasn hadn won wouldn can't couldn shouldn
    of to in on at by for with about from into onto over under up down out off through after before
    one lot bit what which who whom whose when where why how""".split()
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SENTENCES = re.compile(r"(?<=[.!?;:\n])\s+")
# How a sentence opens when its speaker does not know, on its words joined by spaces ("don't" is "don t"):
# "I don't know", "I'm not sure", "no idea", "I couldn't find", "I have no information", "I'm afraid I can't say".
_NOT_KNOWING = re.compile(
    r"^(?:(?:sorry|hmm|well|honestly|unfortunately|oh) )*(?:(?:i|we) )?"
    r"(?:(?:do not|don t|did not|didn t|can t|cannot|could not|couldn t|am not|m not|have no|ve no|haven t|"
    r"am unable to|m unable to|am afraid i (?:can t|don t|do not)) "
    r"(?:know|recall|remember|find|say|tell|sure|idea|information|record|access|have|see)\b"
    r"|not sure\b|no idea\b|no clue\b|dunno\b|beats me\b)"
)
_NOT_KNOWING_WORDS = frozenset({"know", "recall", "remember", "sure", "idea", "clue", "dunno"})
# How a request to the agent opens, on a sentence's words joined by spaces: "Check my profile", "Can you look up the
# weather", "Let me see my calendar", "Please book a table". It asks for something done now and states nothing, unless
# it sets a standing rule (_STANDING: "Always give me distances in kilometres").
_REQUEST = re.compile(
    r"^(?:(?:ok|okay|so|now|please|pls|hey|hi|then|and) )*(?:(?:can|could|would|will) you (?:please )?|let me |let s )?"
    r"(?:check|look|open|find|show|see|plan|book|search|get|fetch|pull|list|tell|give|send|read|summari[sz]e|"
    r"translate|help|compare|calculate|convert|draft|write|order|email|text|call|play)\b"
)
_STANDING = re.compile(r"\b(?:always|never|every|whenever|from now on|in future|each time|usually)\b")


def words(text: str) -> list[str]:
    """The lowercase words of ``text`` (a contraction in its pieces: "i'm" is i, m)."""
    return [w.casefold() for w in _WORD.findall(text.replace("\u2019", "'"))]


def content_words(text: str) -> set[str]:
    """The words of ``text`` that carry something: not small talk, not function words (a plural as its singular)."""
    found = set()
    for word in words(text):
        if word in SMALL_TALK or word in FUNCTION_WORDS:
            continue
        found.add(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return found


def is_small_talk(text: str) -> bool:
    """Whether ``text`` says nothing lasting: only acknowledgements, greetings, thanks and function words."""
    return bool(words(text)) and not content_words(text)


def _sentences(text: str) -> list[str]:
    return [s.strip(" \t\"'*-") for s in _SENTENCES.split(text.strip()) if s.strip(" \t\"'*-.!?")]


def opens_by_not_knowing(sentence: str) -> bool:
    """Whether a sentence begins by saying the speaker does not know ("I don't know of any allergy of yours")."""
    return bool(_NOT_KNOWING.match(" ".join(words(sentence))))


def is_non_answer(text: str, strict: bool = True) -> bool:
    """Whether ``text`` only says that its speaker does not know. ``strict`` (for what a user says): each sentence is
    a bare not-knowing ("I don't know.", "Not sure, sorry") or small talk, since "I don't know anyone in Lisbon" is a
    fact about the user; otherwise (an assistant, a tool) each sentence opens by not knowing, asks, or is small talk,
    and one of them does not know."""
    sentences = _sentences(text)
    if not any(opens_by_not_knowing(s) for s in sentences):
        return False
    for sentence in sentences:
        if is_small_talk(sentence) or (not strict and sentence.endswith("?")):
            continue  # thanks, or the question that follows the not knowing ("Could you tell me?")
        if not opens_by_not_knowing(sentence):
            return False
        if strict and content_words(sentence) - _NOT_KNOWING_WORDS:
            return False
    return True


def is_request(text: str) -> bool:
    """Whether every sentence of ``text`` asks the agent to do something now ("Check my profile.", "Let me see the
    weather") or asks a question, setting no standing rule: like a question, it states nothing to remember."""
    sentences = _sentences(text)
    if not sentences or _STANDING.search(" ".join(words(text))):
        return False
    requests = [s for s in sentences if not s.endswith("?")]
    return bool(requests) and all(_REQUEST.match(" ".join(words(s))) for s in requests)


def restates(text: str, said: Iterable[str]) -> bool:
    """Whether ``text`` carries no word that what was ``said`` before did not: an echo, not news."""
    mine = content_words(text)
    if not mine:
        return False
    before: set[str] = set()
    for earlier in said:
        before |= content_words(earlier)
    return mine <= before
