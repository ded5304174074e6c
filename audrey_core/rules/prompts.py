"""Prompts, each paired with the pydantic model its JSON reply must satisfy.

Every derived record stores the model name and :attr:`Prompt.hash` (SHA-256 of the template), so a changed prompt is
visible in the data it produced.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel, Field

from ..states import Relation as RelationName

T = TypeVar("T", bound=BaseModel)
MARKER = "[audrey:{name}]"  # first line of every system message; lets fakes and logs tell prompts apart


@dataclass(frozen=True)
class Prompt(Generic[T]):
    """A named template (``str.format`` fields in ``user``) and the response model of its reply."""

    name: str
    system: str
    user: str
    response_model: type[T]

    @property
    def hash(self) -> str:
        """SHA-256 of the template (name, system and user text)."""
        return hashlib.sha256(f"{self.name}\n{self.system}\n{self.user}".encode()).hexdigest()

    def render(self, **values: str) -> list[dict[str, str]]:
        """OpenAI-style messages asking for one JSON object that matches the response model."""
        schema = json.dumps(self.response_model.model_json_schema(), separators=(",", ":"))
        system = (
            f"{MARKER.format(name=self.name)}\n{self.system}\n\n"
            f"Reply with one JSON object and nothing else. It must match this JSON schema:\n{schema}"
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": self.user.format(**values)}]


class Relation(BaseModel):
    """How a new observation relates to an existing memory; for an update, what changed, typed."""

    relation: RelationName
    reason: str = ""
    conditions_existing: str | None = Field(None, description="when the existing memory holds (context_dependent)")
    conditions_new: str | None = Field(None, description="when the new observation holds (context_dependent)")
    subject: str | None = Field(None, description="updates: whose or what attribute changed (e.g. 'the user')")
    attribute: str | None = Field(None, description="updates: the attribute that changed (e.g. 'home city')")
    old_value: str | None = Field(None, description="updates: the value the existing memory states")
    new_value: str | None = Field(None, description="updates: the value the new observation states")
    single_valued: bool | None = Field(
        None,
        description="updates: true only if the attribute holds one value at a time (a home city, a manager); false "
        "if it can hold several at once (pets, allergies, languages, hobbies, uses of a tool)",
    )


CONTRADICTION_CHECK = Prompt(
    name="contradiction_check",
    system=(
        "You compare a new observation with an existing memory of an AI agent. Decide whether the observation "
        "supports the memory (same claim), updates it (the same subject now has a new value or state: the memory "
        "was true but no longer is), contradicts it (both cannot be true at the same time), is unrelated, or is "
        "context_dependent (both can be true under different conditions: then state the condition for each). "
        "A changed number, quantity or a negation is an update when the observation says things changed, a "
        "contradiction when both claim to hold at once, unless the conditions differ. For an update, name the "
        "subject, the attribute, the old and the new value, and say whether the attribute holds a single value at "
        "a time: a second pet, allergy, language, hobby or use of a tool is no update of the first (unrelated)."
    ),
    user="Existing memory: {existing}\nNew observation: {incoming}",
    response_model=Relation,
)


class Principle(BaseModel):
    """A generalisation drawn from a cluster of episodes."""

    principle: str = Field(min_length=1, description="the general rule the observations support, one sentence")
    boundary_conditions: str | None = Field(None, description="when the principle does not apply")
    evidence_diverse: bool = Field(description="whether the observations come from independent, diverse sources")
    kind: Literal["semantic", "procedural"] = Field("semantic", description="procedural if it is a how-to")
    trigger_conditions: str | None = Field(None, description="for a procedure: when to apply it")
    mechanism: str | None = Field(None, description="why the triggers lead to the consequences, if known")
    link_type: Literal["causal", "correlational", "temporal"] | None = Field(
        None, description="causal only with a mechanism; correlational or temporal otherwise"
    )


PRINCIPLE_EXTRACTION = Prompt(
    name="principle_extraction",
    system=(
        "You consolidate an AI agent's episodic memories into one general principle, as sleep consolidates "
        "experience. State the principle and its boundary conditions; say whether the evidence is diverse; say "
        "whether it is a how-to procedure (then give its trigger conditions). If causal context is given, explain "
        "the mechanism from trigger to consequence and classify the link: causal (only with a mechanism), "
        "correlational or temporal. Do not invent facts the observations do not support."
    ),
    user=(
        "Observations (source, confidence, text):\n{observations}\n\nCausal context (trigger -> consequence):\n{causal}"
    ),
    response_model=Principle,
)


class NumberedRelation(Relation):
    """How the new observation relates to one of several numbered memories."""

    memory: int = Field(description="the number of the existing memory this judges")


class Relations(BaseModel):
    """One judgement per numbered existing memory."""

    judgements: list[NumberedRelation]


CONTRADICTION_CHECK_BATCH = Prompt(
    name="contradiction_check_batch",
    system=(
        CONTRADICTION_CHECK.system
        + " Several existing memories are numbered: judge the observation against each of them on its own, and give "
        "one judgement per memory with its number."
    ),
    user="New observation: {incoming}\nExisting memories:\n{existing}",
    response_model=Relations,
)


class TypedClaim(BaseModel):
    """What one numbered statement states, typed."""

    statement: int = Field(description="the number of the statement")
    subject: str = Field(min_length=1, description="whose or what attribute it states (e.g. 'the user', 'Stripe API')")
    attribute: str = Field(min_length=1, description="the attribute (e.g. 'home city', 'rate limit', 'pet')")
    value: str = Field(min_length=1, description="the value stated (e.g. 'York', '100 requests per second', 'a cat')")
    single_valued: bool = Field(
        description="true only if the attribute holds one value at a time (a home city, a manager, a limit); false if "
        "it can hold several at once (pets, allergies, languages, hobbies, uses of a tool)"
    )
    qualifiers: str | None = Field(None, description="the context it holds in, if the statement narrows it")
    valid_from: str | None = Field(None, description="the date it started holding (YYYY-MM-DD), if the text says")


class TypedClaims(BaseModel):
    """The typed claims of the numbered statements that state one fact; the others are left out."""

    claims: list[TypedClaim]


CLAIM_EXTRACTION = Prompt(
    name="claim_extraction",
    system=(
        "You read an AI agent's new memories and say what each one states as a typed claim: its subject, the "
        "attribute, the value, whether the attribute holds a single value at a time, the context it holds in and the "
        "date it started holding if the text gives one. Leave out a statement that states no single fact (a "
        "question, a greeting, several facts at once). Do not invent what the text does not say."
    ),
    user="Statements:\n{statements}",
    response_model=TypedClaims,
)


class SameLesson(BaseModel):
    """Whether the two observations of one numbered pair report the same lesson."""

    pair: int = Field(description="the number of the pair")
    same: bool = Field(description="true only if both report the same failure or fact with the same cause")
    reason: str = ""


class SameLessons(BaseModel):
    """One answer per numbered pair."""

    judgements: list[SameLesson]


SAME_LESSON = Prompt(
    name="same_lesson",
    system=(
        "You group an AI agent's observations by the lesson they teach before its memories are consolidated into "
        "principles. Two observations report the same lesson when they describe the same failure or fact with the "
        "same cause, however differently worded and whoever reported it (the agent seeing a symptom, a tool's error "
        "message, the user explaining). Two failures of one tool or service with different causes (a revoked key and "
        "a rate limit, a size limit and a timeout) are different lessons; so are two routine events that merely look "
        "alike. For each numbered pair, say whether both observations report the same lesson; when unsure, say false."
    ),
    user="Pairs of observations:\n{pairs}",
    response_model=SameLessons,
)

PROMPTS: dict[str, Prompt] = {
    p.name: p
    for p in (CONTRADICTION_CHECK, CONTRADICTION_CHECK_BATCH, PRINCIPLE_EXTRACTION, CLAIM_EXTRACTION, SAME_LESSON)
}
