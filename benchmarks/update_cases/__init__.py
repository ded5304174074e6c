"""Knowledge-update cases, written for Audrey's own evaluation (not drawn from any benchmark's data).

``CASES`` (70) is the development set: the offline heuristic of ``audrey_core.rules.conflict`` was built while looking at
it, so its figures there are optimistic. ``HELDOUT_CASES`` (30) was written afterwards; after its first run, the
rules were revised for the kinds of misses it showed, so it too is a development set now. ``BLIND_CASES`` (30) was
written before that revision and judged it; the next revision looked at its misses, so it is a development set now
too. ``FRESH_CASES`` (44) was written before that next revision and judged it; a last revision (the first person as
a subject, number words, more cue verbs) looked at its misses. ``UNSEEN_CASES`` (30) was written after that last
revision and never changed a rule. ``TRAP_CASES`` (47) and ``BLIND_TRAP_CASES`` (34) were written together before the
rules were changed to supersede on evidence (issue 31): the first was looked at while changing them; the second
judged that change once, and its misses were looked at for the next revision, so it is a development set now too.
``SECOND_BLIND_TRAP_CASES`` (30) was written before that revision and judged it; its misses were looked at for a
last revision. ``THIRD_BLIND_TRAP_CASES`` (30) was written before that last revision and never changed a rule: its
figures are the honest ones for the trap rules.

``COEXIST_DEV_CASES`` (24), facts that hold together in one frame, was written after the first frozen blind set
below and looked at while issue 43's rule was built: a development set.

``FROZEN_BLIND_CASES`` (116) was written for issue 43 before any of its rules changed: facts that hold together in
the same frame, updates without cue words, Spanish / German / French pairs and restatements. It judged that work once
before and once after it; then, with a second blind set written, its misses were looked at for a revision of the
rules: a development set now (its file still frozen by a hash, so its figures stay comparable).
``SECOND_FROZEN_BLIND_CASES`` (118), the same kinds, was written before that revision and is never looked at case by
case: frozen by a hash, run once at its end, only when named (``--sets "second frozen blind"``).

``CLAIMS_DEV_CASES`` (26), routine notes and look-alike subjects, was written for issue 73 after its blind set
``CLAIMS_BLIND_CASES`` (62: updates without cue words, facts that hold together, routine notes, look-alikes,
restatements) was frozen; the first is looked at while the claims parser is built, the second run once at its end,
only when named (``--sets "claims blind"``).

Each case is a short history: statements told weeks apart, and a question whose answer is the newest statement.

* ``update``: a fact replaced later (a new address, manager, limit, schedule, tool, diet, ...): the newest statement
  must be recalled first and the older one flagged (superseded, or in a recorded contradiction);
* ``chain``: two updates in a row (A -> B -> C): C first, A and B flagged;
* ``restatement``: the same fact said again in other words: nothing may be flagged;
* ``unrelated``: a similar-sounding statement about another subject or attribute, both true: nothing flagged;
* ``weaker``: a change claimed by a less reliable source (inference, model-generated) than the told or observed
  fact: it must not supersede it (a recorded contradiction is right; silently replacing the fact is wrong);
* ``qualified``: a later statement that narrows its context ("in test mode", "for hotfixes", "on weekends"): both
  stay recallable, recorded as context-dependent;
* ``evidence``: three independent observations, then one statement of another value: they stay recallable, in a
  recorded contradiction;
* ``coexist``: two facts that hold together, said in the same frame with another value (a second pet): both stay
  recallable;
* ``routine``: three compatible notes about one subject (its config refactored, its flags cleaned up): none in a
  contradiction, and a question about the first recalls it first;
* ``lookalike``: the same frame about another subject ("the user's sister lives in Lyon" / "the user's brother lives
  in Berlin"): neither flagged, and a question about the first recalls it first though the second is newer.
"""

from .blind import BLIND_CASES
from .case import KEPT_KINDS, Case, sources_of
from .claims_blind import CLAIMS_BLIND_CASES
from .claims_dev import CLAIMS_DEV_CASES
from .coexist_dev import COEXIST_DEV_CASES
from .development import CASES
from .fresh import FRESH_CASES
from .frozen_blind import FROZEN_BLIND_CASES
from .heldout import HELDOUT_CASES
from .restatements_dev import RESTATEMENT_DEV_CASES
from .second_frozen_blind import SECOND_FROZEN_BLIND_CASES
from .traps import TRAP_CASES
from .traps_blind import BLIND_TRAP_CASES
from .traps_blind2 import SECOND_BLIND_TRAP_CASES
from .traps_blind3 import THIRD_BLIND_TRAP_CASES
from .unseen import UNSEEN_CASES

__all__ = [
    "BLIND_CASES",
    "BLIND_TRAP_CASES",
    "CASES",
    "CLAIMS_BLIND_CASES",
    "CLAIMS_DEV_CASES",
    "COEXIST_DEV_CASES",
    "FRESH_CASES",
    "FROZEN_BLIND_CASES",
    "HELDOUT_CASES",
    "KEPT_KINDS",
    "RESTATEMENT_DEV_CASES",
    "SECOND_BLIND_TRAP_CASES",
    "SECOND_FROZEN_BLIND_CASES",
    "THIRD_BLIND_TRAP_CASES",
    "TRAP_CASES",
    "UNSEEN_CASES",
    "Case",
    "sources_of",
]
