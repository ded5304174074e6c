"""PostgreSQL URLs and driver messages: a password never reaches a message; the shared SQL's placeholders."""

from __future__ import annotations

import pytest

from audrey_core.storage.postgres.connection import driver_error, is_postgres_url, redact, to_pyformat


@pytest.mark.parametrize(
    "url,shown",
    [
        ("postgresql://me:s3cret@db.internal/memory", "postgresql://me:***@db.internal/memory"),
        ("postgres://me@db.internal/memory", "postgres://me@db.internal/memory"),
        (
            "postgresql://db/memory?sslmode=require&password=s3cret",
            "postgresql://db/memory?sslmode=require&password=***",
        ),
        ("postgresql://me:@/postgres?host=/tmp/x", "postgresql://me:***@/postgres?host=/tmp/x"),
    ],
)
def test_redact_hides_the_password_wherever_the_url_carries_it(url, shown):
    assert redact(url) == shown


def test_driver_errors_come_on_one_line_without_the_url_or_its_password():
    url = "postgresql://me:s3cret@db.internal/memory"
    error = RuntimeError(f'connection to {url} failed:\n  FATAL:  password "s3cret" rejected\n')
    message = driver_error(error, url)
    assert "\n" not in message and "s3cret" not in message
    assert "postgresql://me:***@db.internal/memory" in message and "FATAL: password" in message


def test_paths_and_placeholders():
    assert is_postgres_url("postgresql://db/x") and is_postgres_url("postgres://db/x")
    assert not is_postgres_url("audrey.db") and not is_postgres_url(None)
    assert to_pyformat("SELECT ? WHERE a = ? AND b LIKE '5%'") == "SELECT %s WHERE a = %s AND b LIKE '5%%'"


def test_the_pools_connections_send_lists_as_postgresql_reads_them():
    """Flat lists of text or of integers take a quicker way to the server than psycopg's own: what arrives is what
    was sent, quotes, backslashes, empty strings and the word NULL included; other lists go psycopg's way."""
    import psycopg

    from audrey_core.storage.postgres.connection import open_pool

    from ..postgres_server import fresh_database_url

    url = fresh_database_url()
    pool = open_pool(url, max_size=1)
    texts = ["01HZX", 'say "hi"', "back\\slash", "", "NULL", "a,b", "{x}", " spaced ", "é ü 東京"]
    try:
        with pool.connection() as connection:
            assert connection.execute("SELECT %s::text[]", [texts]).fetchone()[0] == texts
            assert connection.execute("SELECT %s = ANY(%s)", ["a,b", texts]).fetchone()[0] is True
            assert connection.execute("SELECT %s = ANY(%s)", ["a", texts]).fetchone()[0] is False
            numbers = [3, -(2**40), 0, 2**62]
            assert connection.execute("SELECT %s::bigint[]", [numbers]).fetchone()[0] == numbers
            assert connection.execute("SELECT 7 = ANY(%s), 8 = ANY(%s)", [[1, 7], [1, 7]]).fetchone() == (True, False)
            connection.execute("SET client_encoding TO 'LATIN1'")  # a server may speak another encoding
            latin = [*texts[:-1], "café"]
            assert connection.execute("SELECT %s::text[]", [latin]).fetchone()[0] == latin
            connection.execute("SET client_encoding TO 'UTF8'")
            with psycopg.connect(url) as plain:  # psycopg's own dumpers
                for other in ([None, "a"], [True, False], [[1, 2], [3, 4]], [1.5, 2.5], [], [1, None]):
                    ours = connection.execute("SELECT %s", [other]).fetchone()[0]
                    assert ours == plain.execute("SELECT %s", [other]).fetchone()[0]
    finally:
        pool.close()


def test_the_pools_connections_read_vectors_in_binary_as_float32_arrays():
    import numpy as np

    from audrey_core.storage.postgres.connection import open_pool

    from ..postgres_server import fresh_database_url

    pool = open_pool(fresh_database_url(), max_size=1)
    sent = np.array([0.25, -1.5, 3.0e-8, 1234.5, 0.0], dtype=np.float32)
    try:
        with pool.connection() as connection:
            got = connection.execute("SELECT %s::vector", [sent], binary=True).fetchone()[0]
            assert isinstance(got, np.ndarray) and got.dtype == np.float32 and got.flags.writeable
            assert np.array_equal(got, sent)
            as_text = connection.execute("SELECT %s::vector", [sent]).fetchone()[0]  # pgvector's own, in text
            assert np.array_equal(as_text.to_numpy(), sent)
    finally:
        pool.close()
