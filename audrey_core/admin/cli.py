"""The ``audrey`` command.

``--db`` (or AUDREY_DB) is an SQLite file or a ``postgresql://`` URL. Exit codes: 0 done; 1 failed (the message
says why); 2 bad usage or input; 3 no database at the path; 4 not found (a memory or consolidation run); 5 refused (an
import or migration into a database that is not empty, a model or dimension mismatch, a run already rolled back).
Errors go to stderr in one line that says what to do; messages never show a URL's password.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import Any

import click

from ..config import AudreyConfig
from ..errors import AudreyError, InvalidInputError, StorageError
from ..rules.arguments import parse_scope_path, scope_path
from ..rules.inputs import check_text
from .cli_memory import consolidate, decay, encode, history, recall, reindex, rollback, status, sweep
from .cli_settings import (
    DEFAULT_DB,
    EXIT_FAILED,
    EXIT_REFUSED,
    CliError,
    Settings,
    exit_code,
    json_option,
    parse_address,
)
from .cli_store import backfill_cmd, export_cmd, import_cmd, migrate_store_cmd, reembed_cmd
from .cli_ui import ui_cmd

# -- the command group ----------------------------------------------------------------------------------------------


class AudreyGroup(click.Group):
    """Turns Audrey's errors into one line on stderr and a meaningful exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CliError as exc:
            code, message = exc.code, str(exc)
        except StorageError as exc:
            refusal = ("already holds memories", "already uses", "in progress", "incomplete")
            code, message = (EXIT_REFUSED if any(r in str(exc) for r in refusal) else EXIT_FAILED), str(exc)
        except AudreyError as exc:
            code, message = exit_code(exc), str(exc)
        except OSError as exc:  # a file the command was pointed at: a missing folder, no permission, a full disk
            code, message = EXIT_FAILED, f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc)
        click.echo(f"error: {message}", err=True)
        ctx.exit(code)


@click.group(cls=AudreyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    envvar="AUDREY_DB",
    default=DEFAULT_DB,
    show_default=True,
    help="SQLite file or postgresql:// URL (or AUDREY_DB).",
)
@click.option("--agent", envvar="AUDREY_AGENT", default="default", show_default=True, help="Whose memories.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts instead of tables.")
@click.option("--embedder", default=None, help="local | deterministic | openai:MODEL (default: the store's own).")
@click.pass_context
def cli(ctx: click.Context, db: str, agent: str, as_json: bool, embedder: str | None) -> None:
    """Audrey: a memory for LLM agents. Exit codes: 0 ok, 1 failed, 2 usage, 3 no database, 4 not found,
    5 refused."""
    if not agent.strip():
        raise InvalidInputError("--agent must name an agent")
    ctx.obj = Settings(db, check_text("--agent", agent), as_json, embedder)


@cli.command()
@json_option
@click.option("--llm-model", default=None, help="An OpenAI-compatible model for the demo (default: none, offline).")
@click.option("--llm-base-url", default=None, help="A compatible server's URL.")
@click.pass_context
def demo(ctx: click.Context, llm_model: str | None, llm_base_url: str | None) -> None:
    """Tell the Stripe rate-limit story (offline by default) to the default agent, into --db when given (else a new
    file), and print how to look at it."""
    from .demo import main as run_demo

    given = ctx.parent is not None and ctx.parent.get_parameter_source("db") != click.core.ParameterSource.DEFAULT
    args = [
        *(["--llm-model", llm_model] if llm_model else []),
        *(["--llm-base-url", llm_base_url] if llm_base_url else []),
        *(["--db", str(ctx.find_object(Settings).db)] if given else []),
    ]
    code = run_demo(args)
    if code:
        raise CliError("the demo did not complete", EXIT_FAILED)


@cli.command("mcp")
@click.option("--http", "address", default=None, metavar="HOST:PORT", help="Streamable HTTP at /mcp, not stdio.")
@click.option("--scope", default=None, metavar="PATH", help="Serve only this scope and below, e.g. user/alice.")
@click.option("--token", envvar="AUDREY_MCP_TOKEN", default=None, help="Bearer token (required off localhost).")
@click.pass_obj
def mcp_cmd(s: Settings, address: str | None, scope: str | None, token: str | None) -> None:
    """Serve this memory to MCP clients (Claude Desktop, Cursor, agents) over stdio or HTTP."""
    from .mcp_server import check_http, require_mcp, serve

    require_mcp()
    http = None
    if address is not None:
        http = parse_address(address, "127.0.0.1:8765")
        check_http(http[0], token)
    labels = parse_scope_path(scope, "--scope") if scope else None
    with s.audrey(create=True, scope=labels, config=AudreyConfig()) as brain:  # a server validates in the background
        if http is not None:  # stdout is the protocol over stdio: only HTTP says where it listens (on stderr)
            host, port = http
            shown = f"[{host}]" if ":" in host else host
            where = f"scope {scope_path(brain.scope)}" if brain.scope else "every scope"
            guard = ", bearer token required" if token else ", this machine only"
            click.echo(
                f"audrey mcp: serving {s.name} (agent {s.agent}, {where}) at http://{shown}:{port}/mcp{guard}",
                err=True,
            )
        serve(brain, http, token)


for command in (encode, recall, consolidate, decay, sweep, rollback, history, status, reindex):
    cli.add_command(command)
for command in (export_cmd, import_cmd, reembed_cmd, backfill_cmd, migrate_store_cmd, ui_cmd):
    cli.add_command(command)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``audrey`` console script."""
    if sys.stderr.isatty():  # a person is watching: say why the first embedding takes seconds
        notice = logging.StreamHandler(sys.stderr)
        notice.setFormatter(logging.Formatter("%(message)s..."))
        logging.getLogger("audrey_core.providers.embedding").addHandler(notice)
        logging.getLogger("audrey_core.providers.embedding").setLevel(logging.INFO)
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="audrey")
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["cli", "main"]
