"""The scripted agent users of ``benchmarks.agents``: the blind part is frozen (its hash), and every user is what the
benchmark needs: facts among questions and chatter, a fact said last in a session, a later question for each fact, a
lasting and a transient tool."""

from __future__ import annotations

import dataclasses
import hashlib
import json

from benchmarks.agent_cases import BLIND_USERS, DEVELOPMENT_USERS
from benchmarks.agent_cases.case import CHATTER, FACT, PROFILE, QUESTION, WEATHER

FROZEN_SHA256 = "1f75b2765eef32b51009c4819cef3e8cd56d8f943bb22010f5baddaae4d174bd"


def test_the_blind_users_are_frozen():
    text = json.dumps([dataclasses.asdict(user) for user in BLIND_USERS], sort_keys=True).encode()
    assert hashlib.sha256(text).hexdigest() == FROZEN_SHA256, "the frozen blind agent users changed"


def test_every_user_mixes_facts_questions_chatter_and_tools_and_asks_later_about_each_fact():
    for user in (*DEVELOPMENT_USERS, *BLIND_USERS):
        messages = [m for session in user.sessions for m in session]
        kinds = {m.kind for m in messages}
        assert {FACT, QUESTION, CHATTER} <= kinds and len(user.sessions) >= 3, user.name
        assert {m.tool.name for m in messages if m.tool} == {PROFILE, WEATHER}, user.name
        stated = {m.fact for m in messages if m.kind == FACT}
        stated |= {m.tool.fact for m in messages if m.tool and m.tool.fact}
        for n, session in enumerate(user.sessions):
            asked = {m.fact for m in session if m.kind == QUESTION and m.fact}
            before = {m.fact for s in user.sessions[:n] for m in s if m.kind == FACT}
            before |= {m.tool.fact for s in user.sessions[:n] for m in s if m.tool and m.tool.fact}
            assert asked <= before | {m.tool.fact for m in session if m.tool and m.tool.fact}, (user.name, n)
        later = {m.fact for s in user.sessions[1:] for m in s if m.kind == QUESTION and m.fact}
        assert stated <= later, (user.name, stated - later)
    assert any(session[-1].kind == FACT for user in DEVELOPMENT_USERS + BLIND_USERS for session in user.sessions)
