"""``audrey ui``: a local web page to look at what the agent remembers (see :mod:`audrey_core.ui`)."""

from __future__ import annotations

import errno
import socket

import click

from ..audrey import Audrey
from ..config import AudreyConfig, ValidationConfig
from ..rules.arguments import parse_scope_path
from ..rules.serving import needs_token
from .cli_settings import EXIT_FAILED, EXIT_USAGE, CliError, Settings, parse_address

DEFAULT_ADDRESS = "127.0.0.1:8787"
READ_ONLY = AudreyConfig(validation=ValidationConfig(background=False, resume=False))


def require_ui() -> None:
    try:
        import jinja2  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        needed = "audrey ui needs the ui extra: pip install 'audrey-agent-memory[ui]'"
        raise CliError(f"{needed} ({exc})", EXIT_USAGE) from exc


@click.command("ui")
@click.option("--http", "address", default=DEFAULT_ADDRESS, show_default=True, metavar="HOST:PORT")
@click.option("--scope", default=None, metavar="PATH", help="Show only this scope and below, e.g. user/alice.")
@click.option("--allow-writes", is_flag=True, help="Allow forgetting, correcting, settling disputes and rollbacks.")
@click.option("--token", envvar="AUDREY_UI_TOKEN", default=None, help="Access token (required off localhost).")
@click.pass_obj
def ui_cmd(s: Settings, address: str, scope: str | None, allow_writes: bool, token: str | None) -> None:
    """A local web page to look at this memory: search with the score's parts, a memory's history and evidence,
    disputes, consolidation runs, the timeline and status. Read-only unless --allow-writes."""
    require_ui()
    host, port = parse_address(address, DEFAULT_ADDRESS)
    from ..ui.app import build_app

    if needs_token(host, token):
        raise CliError(
            f"serving on {host} needs a token (--token or AUDREY_UI_TOKEN): anyone who reaches the port could read "
            "this memory; use 127.0.0.1 to serve this machine only",
            EXIT_USAGE,
        )
    labels = parse_scope_path(scope, "--scope") if scope else None
    import uvicorn

    listening = bound(host, port)  # before anything says "at": a busy port is reported, not served
    # Read-only, the page writes nothing: no validation left by others is taken over, nothing runs in the background
    # (recall there reinforces nothing). With --allow-writes, a correction is validated as any encode.
    config = AudreyConfig() if allow_writes else READ_ONLY
    with listening, s.audrey(scope=labels, config=config) as brain:

        def open_agent(agent: str) -> Audrey:  # the picker: another agent of this store, as this one is opened
            return Audrey(s.db, agent=agent, embedder=brain.embedder, config=config)

        picking = open_agent if labels is None else None  # a page confined to a scope never shows another tenant
        app = build_app(brain, host=host, port=port, allow_writes=allow_writes, token=token, open_agent=picking)
        where = f"http://{host}:{port}/" + (f"?token={token}" if token else "")
        click.echo(f"audrey ui for {s.name} (agent {brain.agent}) at {where}", err=True)
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listening])


def bound(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (uvicorn serves on it), or a one-line error naming the way out."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: a restart reuses the port
    try:
        listening.bind((host, port))
        listening.listen(128)
    except OSError as exc:
        listening.close()
        taken = exc.errno == errno.EADDRINUSE
        reason = "is in use (another audrey ui?)" if taken else f"cannot be used: {exc.strerror or exc}"
        raise CliError(f"{host}:{port} {reason}; pick another with --http HOST:PORT", EXIT_FAILED) from exc
    return listening
