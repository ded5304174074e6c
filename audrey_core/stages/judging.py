"""Judging how a new claim relates to existing ones: the pure rules (:mod:`audrey_core.rules.judgement`) everywhere,
and the LLM, when there is one, in the zones where the rules cannot tell; if the LLM fails, the rules decide."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ..config import ValidationConfig
from ..errors import LLMError
from ..providers.llm import ask, model_name_of
from ..rules.conflict import same_words
from ..rules.judgement import Judgement, Pair, judge_offline
from ..rules.prompts import CONTRADICTION_CHECK, CONTRADICTION_CHECK_BATCH, Prompt, Relation
from .context import StageContext

log = logging.getLogger(__name__)


def judge(
    existing: str,
    incoming: str,
    similarity: float,
    llm: object,
    cfg: ValidationConfig,
    newer: bool | None = None,
    strict: bool = False,
) -> Judgement | None:
    """The verdict for two claims at ``similarity``: the LLM decides in the judged zones when there is one."""
    return judge_pairs(incoming, [Pair(existing, similarity, newer, strict)], llm, cfg)[0]


def judge_pairs(incoming: str, pairs: Sequence[Pair], llm: object, cfg: ValidationConfig) -> list[Judgement | None]:
    """The verdict for ``incoming`` against each existing claim. With an LLM, every pair in a judged zone that is not
    the same words again, and every pair from different times down to ``judge_similarity``, is asked in one call
    (one pair: :data:`CONTRADICTION_CHECK`; several: :data:`CONTRADICTION_CHECK_BATCH`); a batch reply that leaves a
    pair out is an :class:`LLMError`."""
    offline = [judge_offline(p.existing, incoming, p.similarity, cfg, p.newer, p.strict) for p in pairs]
    asked = [
        i
        for i, (pair, verdict) in enumerate(zip(pairs, offline))
        if llm is not None
        and (verdict is not None or (pair.newer is not None and pair.similarity >= cfg.judge_similarity))
        and not (verdict is not None and verdict.relation == "supports" and same_words(pair.existing, incoming))
    ]
    if not asked:
        return offline
    if len(asked) == 1:
        pair = pairs[asked[0]]
        replies = [ask(llm, CONTRADICTION_CHECK, existing=pair.existing, incoming=incoming)]
        prompt: Prompt = CONTRADICTION_CHECK
    else:
        listed = "\n".join(f"{n}. {' '.join(pairs[i].existing.split())}" for n, i in enumerate(asked, 1))
        batch = ask(llm, CONTRADICTION_CHECK_BATCH, incoming=incoming, existing=listed)
        numbered = {j.memory: j for j in batch.judgements}
        if set(numbered) != set(range(1, len(asked) + 1)):
            raise LLMError(f"{model_name_of(llm)} judged memories {sorted(numbered)} of 1..{len(asked)}")
        replies, prompt = [numbered[n] for n in range(1, len(asked) + 1)], CONTRADICTION_CHECK_BATCH
    verdicts = list(offline)
    for index, reply in zip(asked, replies):
        verdicts[index] = _from_reply(reply, offline[index], pairs[index], cfg, model_name_of(llm), prompt.hash)
    return verdicts


def _from_reply(
    reply: Relation, offline: Judgement | None, pair: Pair, cfg: ValidationConfig, model: str, prompt_hash: str
) -> Judgement:
    relation = reply.relation
    if relation == "updates" and pair.newer is None:
        relation = "contradicts"  # claims about the same time cannot replace one another
    changed = offline is not None and offline.relation in ("contradicts", "updates")
    if changed and pair.similarity >= cfg.reinforce_similarity and relation == "supports":
        relation = (
            "contradicts"  # the rules see a changed value the judge does not: a dispute, both kept, not an update
        )
    conditions = reply.conditions_existing, reply.conditions_new
    return Judgement(relation, "llm", reply.reason, *conditions, model, prompt_hash, explicit=relation == "updates")


def judge_safely(ctx: StageContext, existing: str, incoming: str, similarity: float) -> Judgement | None:
    """The verdict for one pair of claims held at the same time."""
    return judge_pairs_safely(ctx, incoming, [Pair(existing, similarity)])[0]


def judge_pairs_safely(ctx: StageContext, incoming: str, pairs: Sequence[Pair]) -> list[Judgement | None]:
    """:func:`~audrey_core.rules.judgement.judge_pairs`; the LLM failing must not lose the check: the heuristic
    decides."""
    try:
        return judge_pairs(incoming, pairs, ctx.llm, ctx.config.validation)
    except LLMError as exc:
        log.warning("LLM contradiction check failed (%s); using the offline heuristic", exc)
        ctx.emit("error", {"event": "validation", "error": exc})
        cfg = ctx.config.validation
        return [judge_offline(p.existing, incoming, p.similarity, cfg, p.newer, p.strict) for p in pairs]
