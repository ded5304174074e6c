"""Property tests over the ``audrey`` command: any argument text (NUL, lone surrogates as a shell's undecodable bytes
arrive) gives an exit code and one error line, never a traceback, and the same exit code on both backends."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from audrey_core.admin.cli import cli

from ..postgres_server import fresh_database_url
from ..properties import PROPERTY_SETTINGS, texts


@pytest.fixture
def stores(tmp_path):
    return [str(tmp_path / "cli.db"), fresh_database_url()]


def run(db, agent, *args):
    result = CliRunner().invoke(cli, ["--db", db, "--agent", agent, "--embedder", "deterministic", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.exit_code not in (0,):
        assert result.output.count("error:") <= 1
    return result.exit_code


numbers = st.one_of(st.integers(-3, 10).map(str), st.sampled_from(["1e400", "nan", "-0", "9" * 30]), texts)


@PROPERTY_SETTINGS
@given(
    agent=st.one_of(st.just("cli"), texts),
    text=texts,
    tag=texts,
    source=st.one_of(st.sampled_from(["tool-result", "told-by-user"]), texts),
    salience=numbers,
    limit=numbers,
)
def test_the_command_takes_any_arguments_safely(stores, agent, text, tag, source, salience, limit):
    for args in (
        ("encode", text, "--tag", tag, "--source", source, "--salience", salience),
        ("recall", text, "--limit", limit),
        ("--json", "recall", text, "--type", tag),
        ("rollback", text),
        ("status",),
    ):
        codes = [run(db, agent, *args) for db in stores]
        assert codes[0] == codes[1], args
