"""The process's way in (the ``fitproof`` script and ``python -m fitproof``).

The command line's modules take milliseconds to import; Ctrl+C during that time would end
the process with Python's traceback. Here it ends it as Ctrl+C during a run does: quietly,
with exit code 130. (What runs before this function, Python's own start-up and the
package's ``__init__``, is Python's to interrupt.)
"""


def main() -> None:
    try:
        import sys

        if sys.argv[1:] == ["mcp"]:  # the MCP server alone: without the command line's modules it answers sooner
            from .mcp_server.stdio import main as run
        else:
            from .cli import main as run
    except KeyboardInterrupt:
        import signal  # not before: it imports enum, a few milliseconds more in which Ctrl+C is Python's

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # deaf to a second one while Python exits
        raise SystemExit(130) from None
    run()
