"""Typed claims (issue 43): what an episode states as subject, attribute and value. A claim key names the subject and
the attribute (``"user.home_city"``: the part before the last dot is the subject); an LLM reads the rest during
validation. Two typed claims of one single-valued attribute with other values are an explicit update: the older no
longer holds. Pure; no I/O."""

from __future__ import annotations

from datetime import datetime, timezone

from ..models import Claim, ClaimUpdate
from .prompts import TypedClaim


def claim_from_key(key: str | None, content: str) -> Claim | None:
    """The claim a claim key gives: its subject and attribute, the whole text as the value. A key names one fact,
    so its attribute holds one value at a time (the same key again replaces it)."""
    if not key:
        return None
    subject, _, attribute = key.rpartition(".")
    return Claim(subject=subject, attribute=attribute, value=content, single_valued=True, method="key")


def claim_from_reply(typed: TypedClaim) -> Claim:
    """An LLM's reading of a statement as a claim (a ``valid_from`` that is no date is left out)."""
    return Claim(
        subject=typed.subject.strip(),
        attribute=typed.attribute.strip(),
        value=typed.value.strip(),
        single_valued=typed.single_valued,
        method="llm",
        qualifiers=typed.qualifiers or None,
        valid_from=_date(typed.valid_from),
    )


def _date(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def claim_update(older: Claim | None, newer: Claim | None) -> ClaimUpdate | None:
    """The typed update two claims make when they state other values of one single-valued attribute of one subject
    (both say so), else ``None``."""
    if older is None or newer is None or not (older.single_valued and newer.single_valued):
        return None
    if not older.same_attribute(newer) or older.same_value(newer):
        return None
    return ClaimUpdate(newer.subject, newer.attribute, older.value, newer.value, single_valued=True)


__all__ = ["claim_from_key", "claim_from_reply", "claim_update"]
