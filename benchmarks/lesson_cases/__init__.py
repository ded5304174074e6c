"""Lessons of experience for issue 46 (consolidation learns from real experience): each met three times in other
words from three sources, beside a hard negative (another failure of the same tool or service) and the task the
agent describes before its next attempt; routine notes of the same domain as distractors. ``development`` may be
tuned on; ``frozen_blind`` is frozen by a hash and run once, when the work is done."""

from __future__ import annotations

from .case import Lesson
from .development import DEVELOPMENT_LESSONS
from .distractors import distractors
from .frozen_blind import FROZEN_BLIND_LESSONS

__all__ = ["DEVELOPMENT_LESSONS", "FROZEN_BLIND_LESSONS", "Lesson", "distractors"]
