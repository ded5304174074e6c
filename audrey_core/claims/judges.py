"""Asking the judges how a new claim relates to existing ones, the only entry to them: the offline English rules
(:mod:`audrey_core.rules.english`, unless ``ValidationConfig.offline_rules`` is off or no parser is installed)
everywhere, and the LLM, when there is one, in the zones where the rules cannot tell. The verdicts are given as they
are; what follows from them is decided in one place, :func:`audrey_core.claims.decide.decide`. If the LLM fails (an
error, a refusal, malformed JSON, a timeout), the rules' verdicts stand and an ``error`` event says so."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, NamedTuple

from ..config import ValidationConfig
from ..errors import LLMError
from ..models import ClaimUpdate, Memory
from ..providers.llm import ask, model_name_of
from ..rules.english.answers import answer_groups, asks_how_things_are
from ..rules.english.conflict import different_things as english_different_things
from ..rules.english.conflict import same_words
from ..rules.english.judge import judge_offline
from ..rules.prompts import CONTRADICTION_CHECK, CONTRADICTION_CHECK_BATCH, Prompt, Relation
from ..stages.context import StageContext
from ..states import UpdateSignal
from ..storage import Storage
from .decide import Judgement, Pair
from .parse import parser_available
from .readings import stored_readings_known

log = logging.getLogger(__name__)


class Verdicts(NamedTuple):
    """The judges' verdicts on one pair: the offline rules' and, when it judged, the LLM's."""

    rules: Judgement | None
    llm: Judgement | None = None


def judge_pairs(incoming: str, pairs: Sequence[Pair], llm: object, cfg: ValidationConfig) -> list[Verdicts]:
    """The verdicts for ``incoming`` against each existing claim. With an LLM, every pair in a judged zone that is not
    the same words again, and every pair from different times down to ``judge_similarity``, is asked in one call
    (one pair: :data:`CONTRADICTION_CHECK`; several: :data:`CONTRADICTION_CHECK_BATCH`); a batch reply that leaves a
    pair out is an :class:`LLMError`."""
    offline = [offline_verdict(p, incoming, cfg) for p in pairs]
    asked = [
        i
        for i, (pair, verdict) in enumerate(zip(pairs, offline))
        if llm is not None
        and (verdict is not None or pair.similarity >= cfg.conflict_similarity or _judged_update_zone(pair, cfg))
        and not (verdict is not None and verdict.relation == "supports" and same_words(pair.existing, incoming))
    ]
    if not asked:
        return [Verdicts(v) for v in offline]
    if len(asked) == 1:
        pair = pairs[asked[0]]
        replies = [ask(llm, CONTRADICTION_CHECK, existing=pair.existing, incoming=incoming)]
        prompt: Prompt[Any] = CONTRADICTION_CHECK
    else:
        listed = "\n".join(f"{n}. {' '.join(pairs[i].existing.split())}" for n, i in enumerate(asked, 1))
        batch = ask(llm, CONTRADICTION_CHECK_BATCH, incoming=incoming, existing=listed)
        numbered = {j.memory: j for j in batch.judgements}
        if set(numbered) != set(range(1, len(asked) + 1)):
            raise LLMError(f"{model_name_of(llm)} judged memories {sorted(numbered)} of 1..{len(asked)}")
        replies, prompt = [numbered[n] for n in range(1, len(asked) + 1)], CONTRADICTION_CHECK_BATCH
    verdicts = [Verdicts(v) for v in offline]
    for index, reply in zip(asked, replies):
        verdicts[index] = Verdicts(offline[index], from_reply(reply, model_name_of(llm), prompt.hash))
    return verdicts


def _judged_update_zone(pair: Pair, cfg: ValidationConfig) -> bool:
    return pair.newer is not None and pair.similarity >= cfg.judge_similarity


def offline_verdict(pair: Pair, incoming: str, cfg: ValidationConfig) -> Judgement | None:
    """The offline rules' verdict, or ``None`` when they are turned off or no parser can read the claims (then only
    explicit signals change anything: :func:`~audrey_core.claims.parse.say_once_without_parser`)."""
    if not _rules_on(cfg):
        return None
    return judge_offline(pair.existing, incoming, pair.similarity, cfg, pair.newer, pair.strict)


def _rules_on(cfg: ValidationConfig) -> bool:
    """Whether the offline rules judge: turned on, and a parser installed to read the claims."""
    return cfg.offline_rules and parser_available()


def repeats(existing: str, incoming: str, similarity: float, cfg: ValidationConfig) -> bool:
    """Whether the offline rules read ``incoming`` as saying what ``existing`` says (support for a claim a dispute
    set aside counts only so). Without them, nothing counts: no guess reopens a dispute."""
    verdict = offline_verdict(Pair(existing, similarity), incoming, cfg)
    return verdict is not None and verdict.relation == "supports"


def different_things(one: str, other: str, cfg: ValidationConfig) -> bool:
    """Whether the offline rules read two statements as about different things ("The admin site passed the drill" /
    "The search API passed the drill"); without them, nothing is told apart."""
    return _rules_on(cfg) and english_different_things(one, other)


def answers_alike(
    storage: Storage, memories: Sequence[Memory], question: str, cfg: ValidationConfig
) -> list[list[int]]:
    """The groups of ``memories`` (indexes) the offline rules read as answering ``question`` alike at different
    times (:func:`~audrey_core.rules.english.answers.answer_groups`: recall puts the newest of each first); none when
    the rules are off. Statements are read as validation stored them (:mod:`.readings`), so a process that has not
    loaded the parser tells "the user's sister" from "the user's brother" all the same."""
    if not cfg.offline_rules or not asks_how_things_are(question):
        return []
    stored_readings_known(storage, memories)
    return answer_groups([m.content for m in memories], question)


def from_reply(reply: Relation, model: str, prompt_hash: str) -> Judgement:
    """The LLM's reply as a verdict. An ``updates`` carries the explicit signal only when it is typed: subject,
    attribute, old and new value named, and the attribute single-valued; otherwise it is a guess like any other."""
    update = None
    if reply.relation == "updates" and all((reply.subject, reply.attribute, reply.old_value, reply.new_value)):
        update = ClaimUpdate(
            subject=str(reply.subject),
            attribute=str(reply.attribute),
            old_value=str(reply.old_value),
            new_value=str(reply.new_value),
            single_valued=reply.single_valued is True,
        )
    signal: UpdateSignal | None = "llm_structured" if update is not None and update.single_valued else None
    conditions = reply.conditions_existing, reply.conditions_new
    return Judgement(reply.relation, "llm", reply.reason, *conditions, model, prompt_hash, signal, update)


def judge_safely(ctx: StageContext, existing: str, incoming: str, similarity: float) -> Verdicts:
    """The verdicts on one pair of claims held at the same time."""
    return judge_pairs_safely(ctx, incoming, [Pair(existing, similarity)])[0]


def judge_pairs_safely(ctx: StageContext, incoming: str, pairs: Sequence[Pair]) -> list[Verdicts]:
    """:func:`judge_pairs`; the LLM failing must not lose the check: the rules' verdicts stand."""
    cfg = ctx.config.validation
    try:
        return judge_pairs(incoming, pairs, ctx.llm, cfg)
    except LLMError as exc:
        log.warning("LLM contradiction check failed (%s); using the offline rules", exc)
        ctx.emit("error", {"event": "validation", "error": exc})
        return [Verdicts(offline_verdict(p, incoming, cfg)) for p in pairs]
