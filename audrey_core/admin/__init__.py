"""Administration: the ``audrey`` command, store maintenance (export, import, re-embed, migrate-store), the MCP
server and the demo."""
