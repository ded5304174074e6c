"""A document in pieces: paragraphs end at a blank line, lines at their end, sentences within a paragraph."""

import io

import pytest

from audrey_core.rules.documents import pieces

TEXT = (
    "The cache (e.g. Redis) holds sessions. Version v2.1 ships Friday!\n"
    "It replaces v2.0.\n"
    "   \n"
    'Ask "who owns it?" Then file a ticket.\n'
)


def test_paragraphs_lines_and_sentences():
    assert list(pieces(io.StringIO(TEXT), "paragraph")) == [
        "The cache (e.g. Redis) holds sessions. Version v2.1 ships Friday! It replaces v2.0.",
        'Ask "who owns it?" Then file a ticket.',
    ]
    assert list(pieces(io.StringIO(TEXT), "line"))[1] == "It replaces v2.0."
    assert list(pieces(io.StringIO(TEXT), "sentence")) == [
        "The cache (e.g. Redis) holds sessions.",
        "Version v2.1 ships Friday!",
        "It replaces v2.0.",
        'Ask "who owns it?"',
        "Then file a ticket.",
    ]
    assert list(pieces(io.StringIO(""), "paragraph")) == []
    with pytest.raises(ValueError, match="paragraph, line, sentence"):
        list(pieces(io.StringIO(TEXT), "word"))


def test_a_stream_is_read_as_it_comes():
    def lines():
        yield "first paragraph\n"
        yield "\n"
        raise AssertionError("read past the paragraph that was asked for")

    assert next(pieces(lines(), "paragraph")) == "first paragraph"
