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
