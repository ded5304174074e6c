"""Scripted users of an agent for ``benchmarks.agents``: a development set, and a blind set frozen before any run
(``tests/test_frozen_agent_cases.py`` checks its hash)."""

from .blind import BLIND_USERS
from .development import DEVELOPMENT_USERS

SETS = {"dev": DEVELOPMENT_USERS, "blind": BLIND_USERS}

__all__ = ["BLIND_USERS", "DEVELOPMENT_USERS", "SETS"]
