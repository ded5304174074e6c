"""Reading LoCoMo-format conversations (see ../shared/data/README.md) into turns and questions."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

_EVIDENCE = re.compile(r"D(\d+):(\d+)")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    text: str  # "speaker: text"
    when: datetime
    session: str  # "session_<n>"
    speaker: str
    said: str  # the text alone, as a chat adapter stores a message (with its speaker apart)


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    evidence: frozenset[str]
    kind: str = ""  # our conversation set's question kind (benchmarks/conversation_set); LoCoMo has none
    stale: frozenset[str] = frozenset()  # for an updated fact, the turns it replaced


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def parse_when(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' as an aware UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def normalise_evidence(raw: list[str], known: set[str]) -> frozenset[str]:
    """Split malformed entries ('D1:3; D2:5', 'D30:05'), normalise numbers, drop ids naming no turn."""
    found = {f"D{int(s)}:{int(t)}" for entry in raw for s, t in _EVIDENCE.findall(str(entry))}
    return frozenset(found & known)


def load(path: str | Path) -> list[Conversation]:
    """Every conversation with its dated turns and the questions that have evidence."""
    conversations = []
    for sample in json.loads(Path(path).read_text()):
        conv = sample["conversation"]
        turns = []
        sessions = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
        for number in sessions:
            when = parse_when(conv[f"session_{number}_date_time"])
            turns.extend(
                Turn(t["dia_id"], f"{t['speaker']}: {t['text']}", when, f"session_{number}", t["speaker"], t["text"])
                for t in conv[f"session_{number}"]
            )
        known = {t.dia_id for t in turns}
        questions = [
            Question(
                q["question"],
                int(q["category"]),
                normalise_evidence(q.get("evidence", []), known),
                q.get("kind", ""),
                normalise_evidence(q.get("stale", []), known),
            )
            for q in sample["qa"]
        ]
        conversations.append(Conversation(sample["sample_id"], tuple(turns), tuple(q for q in questions if q.evidence)))
    return conversations
