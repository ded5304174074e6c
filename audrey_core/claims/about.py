"""Whether two statements are about one thing: the same subject and the same predicate, read from their parse
(:mod:`.parse`). Only then can one repeat, update or contradict the other; "the user's sister lives in Lyon" and
"the user's brother lives in Berlin" are two facts, as are "the search API had its flags cleaned up" and "... had
its config refactored".

* Subjects agree when their heads are the same and what narrows one narrows the other or less ("the team" / "our
  team"; not "the staging cluster" / "the production cluster"); when one is the other's owner, its words all among
  the other's narrowing ones ("I" / "my home", "partners" / "the rate limit for partners"); when they have an owner
  in common and quantities in one unit ("the Stripe API throttled us at 100 requests per second" / "the Stripe rate
  limit is 25 requests per second"); or when one is named
  among the other's values ("Ben is on call" / "Priya took over on-call from Ben", "sprints are two weeks long" / "we
  went to one-week sprints"). "The user" is the speaker ("I"): a user's memories speak of them both ways.
* Predicates agree when they are the same verb (a repetition prefix aside: "rewritten" / "written"; a joined verb
  counts: "quit Google and now works at Stripe"); when one of them is a copula or possession ("is", "has": "my home
  is in Porto" / "I live in Lisbon") or a verb of report ("the scheduler shows the job every 10 minutes" / "the job
  runs every 30 minutes"); when both give a value in the same words ("supports iOS 15" / "requires iOS 16", "is
  planned for March 3" / "slipped from March 3 to April 14"); or when one is a verb of change that speaks of
  something the other says ("we switched from Postgres" / "we use Postgres"; not "had its tyres replaced" / "had
  its oil changed").
"""

from __future__ import annotations

import itertools

from .parse import SPEAKER, Reading, read

SAME_PERSON = {"user": SPEAKER}  # the user, in their own memories, is the speaker
FUNCTION_WORDS = frozenset(
    "a an the to from for of in on at with by as per and or up down now its their my our his her your it".split()
)
LIGHT_VERBS = frozenset({"be", "become", "have", "remain", "stay"})
REPORTING_VERBS = frozenset({"show", "report", "list", "say", "state", "indicate", "record", "confirm", "mention"})
# a verb of change replaces a value of any predicate: "quit Google", "went up to 25 dollars"
CHANGE_VERBS = frozenset(
    "switch move change replace migrate relocate transfer swap update upgrade downgrade convert turn shift rename "
    "raise lower increase decrease reduce cut bump drop quit leave join sell give take step stop go slip delay".split()
)


def about_one_thing(existing: str, incoming: str, parse: bool = True) -> bool | None:
    """Whether the two statements share subject and predicate; ``None`` when either cannot be read (no parser, not
    one English sentence with a subject and a verb): the caller decides without it. ``parse=False``: ``None`` too
    when either has no reading known already (:func:`~.parse.read`)."""
    a, b = read(existing, parse), read(incoming, parse)
    if a is None or b is None or not _person(a.subject) or not _person(b.subject):
        return None  # a subject of numbers alone ("2019 was a good year") names nothing to compare
    return same_subject(a, b) and same_predicate(a, b)


def same_subject(a: Reading, b: Reading) -> bool:
    """Whether two readings speak of one subject (see the module's rules)."""
    one, other = _person(a.subject), _person(b.subject)
    if one[-1] == other[-1]:
        return set(one[:-1]) <= set(other[:-1]) or set(other[:-1]) <= set(one[:-1])
    shorter, longer = sorted((one, other), key=len)
    if set(shorter) <= set(longer[:-1]):
        return True  # "I" beside "my home", "the subscription" beside "the subscription price": owner and owned
    if set(one[:-1]) & set(other[:-1]) and _units(a) & _units(b):
        return True  # one owner's, measured alike: "the Stripe API throttled us at 100 requests per second"
    return _named_in(one, b) or _named_in(other, a)


def _units(reading: Reading) -> set[str]:
    """The units of the reading's quantities: the word after each number ("100 requests per second": requests)."""
    units = set()
    for value in reading.values:
        words = value.split()
        units |= {unit for number, unit in itertools.pairwise(words) if number[:1].isdigit() and not unit[:1].isdigit()}
    return units


def same_predicate(a: Reading, b: Reading) -> bool:
    """Whether two readings say the same kind of thing of their subject (see the module's rules)."""
    ours, theirs = _predicates(a), _predicates(b)
    if ours & theirs or {_unprefixed(p) for p in ours} & {_unprefixed(p) for p in theirs}:
        return True
    if (_verbs(a) | _verbs(b)) & (LIGHT_VERBS | REPORTING_VERBS):
        return True
    if _content(a.values) & _content(b.values):
        return True  # a value of one slot in other words of the verb
    return any(_is_change(change) and _changes_what_the_other_says(change, other) for change, other in ((a, b), (b, a)))


def _named_in(subject: tuple[str, ...], reading: Reading) -> bool:
    """Whether ``subject`` is named among the reading's values or qualifiers: its words in order ("from ben",
    "replacing priya"), or its head ("to one week sprints", and for a change, "upgraded to API version v3")."""
    phrases = (*reading.values, *reading.qualifiers)
    said = " ".join(subject)
    if any(f" {said} " in f" {phrase} " for phrase in phrases):
        return True
    return subject[-1] != SPEAKER and subject[-1] in _content(phrases)


def _predicates(reading: Reading) -> set[str]:
    """The reading's predicate and those of the verbs joined to it."""
    return {reading.predicate, *reading.also}


def _verbs(reading: Reading) -> set[str]:
    """Its predicates' verbs, their particles aside ("give up": give)."""
    return {p.split()[0] for p in _predicates(reading)}


def _is_change(reading: Reading) -> bool:
    return bool(_verbs(reading) & CHANGE_VERBS)


def _changes_what_the_other_says(change: Reading, other: Reading) -> bool:
    """Whether a statement of change speaks of something the other statement says: its subject itself changed
    ("went up to 25 dollars" / "costs 20 dollars"), or what it acts on is among the other's values or subject ("I
    left Deloitte" / "I work at Deloitte"); "had its tyres replaced" changes nothing "had its oil changed" says."""
    if not change.objects:
        return True  # the subject itself changed ("moved to Berlin", "went up to 25 dollars")
    return bool(_content(change.objects) & (_content(other.values) | set(other.subject)))


def _content(phrases: tuple[str, ...]) -> set[str]:
    """The content words of some phrases, a plural's -s aside ("sprints": sprint); no numbers, no function words."""
    words = {w for p in phrases for w in p.split() if w not in FUNCTION_WORDS and not w[:1].isdigit()}
    return words | {w[:-1] for w in words if len(w) > 3 and w.endswith("s") and not w.endswith("ss")}


def _unprefixed(predicate: str) -> str:
    """The verb without a prefix of repetition ("rewrite": write, "rename": name)."""
    return predicate[2:] if predicate.startswith("re") and len(predicate) > 5 else predicate


def _person(subject: tuple[str, ...]) -> tuple[str, ...]:
    """The subject as compared: the user as the speaker, and without numbers, which are values wherever they stand
    ("version 2 of the API is live" / "version 3 of the API is live": one subject, two values)."""
    return tuple(SAME_PERSON.get(word, word) for word in subject if not word[:1].isdigit())


__all__ = ["about_one_thing", "same_predicate", "same_subject"]
