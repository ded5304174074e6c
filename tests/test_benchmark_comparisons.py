"""Comparing two retrieval runs question by question, and the docstring known-item set they are compared on."""

from __future__ import annotations

import pytest

from audrey_core.testing import DeterministicEmbedder
from benchmarks.docstrings import embedded, known_items, ranks
from benchmarks.paired import compare, compare_ranks, mcnemar_exact


def test_the_exact_mcnemar_p_is_the_two_sided_binomial_tail_of_the_split():
    assert mcnemar_exact(0, 0) == 1.0  # nothing differs
    assert mcnemar_exact(0, 2) == mcnemar_exact(2, 0) == 0.5  # 2 x (1/4)
    assert mcnemar_exact(2, 4) == pytest.approx(2 * (1 + 6 + 15) / 64)
    assert mcnemar_exact(5, 5) == 1.0  # capped: both tails overlap in the middle
    assert mcnemar_exact(0, 10) == pytest.approx(2 / 1024)


def test_runs_are_compared_question_by_question():
    first = [True, True, False, False, True]
    second = [True, False, True, False, False]
    assert compare(first, second) == {"first": 3, "second": 2, "only_first": 2, "only_second": 1, "p": 1.0}
    with pytest.raises(ValueError, match="different numbers of questions"):
        compare(first, second[:-1])


def test_ranks_compare_every_question_and_a_missing_answer_counts_as_last():
    # ranks 1-based, 0 = not found: q1 equal, q2 and q4 better in the first run, q3 better in the second
    assert compare_ranks([1, 2, 0, 3], [1, 5, 4, 0]) == {"better_first": 2, "better_second": 1, "p": 1.0}
    assert compare_ranks([0, 0], [0, 0]) == {"better_first": 0, "better_second": 0, "p": 1.0}


def _module(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_known_items_pair_a_prose_summary_with_its_prose_body(tmp_path):
    body = "It reads every record of the ledger and sums the amounts owed by each customer of the shop."
    _module(
        tmp_path / "ledger.py",
        f'''
def total(ledger):
    """Return what each customer owes the shop in total.

    {body}

    >>> total([])
    """

def again(ledger):
    """Return what each customer owes the shop in total.

    A second function with the same summary is left out, as the first of it is kept.
    """

def short():
    """Too short.

    {body}
    """

class Ledger:
    """A ledger of the sales made by the shop to its customers.

    Entries are appended in the order the sales were made and never removed from the ledger afterwards.
    """
''',
    )
    left_out = f'def test_x():\n    """Check the totals of the ledger twice.\n\n    {body} Again.\n    """\n'
    _module(tmp_path / "tests" / "test_ledger.py", left_out)  # tests are not documentation
    items = known_items(tmp_path)
    assert items == [
        ("Return what each customer owes the shop in total.", body),  # the doctest paragraph dropped
        (
            "A ledger of the sales made by the shop to its customers.",
            "Entries are appended in the order the sales were made and never removed from the ledger afterwards.",
        ),
    ]


def test_each_summary_is_ranked_against_every_body_through_both_keyword_paths():
    pytest.importorskip("tantivy")
    items = [
        ("Parse the crontab schedule of a job.", "Reads minute hour day month weekday fields of a crontab line."),
        ("Compress a folder into a zip archive.", "Walks the folder and writes each file into the zip archive."),
        ("Send an email through the SMTP relay.", "Opens a connection to the relay and sends the email message."),
    ]
    embedder = DeterministicEmbedder()
    vectors = embedded(items, embedder)
    for through_fts5 in (False, True):
        found = ranks(items, embedder, vectors, limit=10, fts5=through_fts5)
        assert set(found) == {"hybrid", "keyword", "dense"}
        assert found["keyword"] == [1, 1, 1]  # each summary shares its rare words with its own body only
        assert all(1 <= rank <= 3 for rank in found["hybrid"] + found["dense"])  # three bodies: all returned


def test_the_benchmarks_refuse_a_limit_below_the_deepest_k_and_two_keyword_paths_at_once(tmp_path, capsys):
    from benchmarks.docstrings import main as docstrings
    from benchmarks.retrieval import main as retrieval

    with pytest.raises(SystemExit):
        docstrings(["--limit", "5"])
    assert "--limit must be at least 10" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        retrieval(["--data", str(tmp_path / "none.json"), "--fts5", "--compare-paths"])
    assert "not allowed with argument" in capsys.readouterr().err
