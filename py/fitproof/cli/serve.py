"""``fitproof serve``: the web page on 127.0.0.1, from this checkout."""

from __future__ import annotations

from typing import IO

from ._exits import EXIT_FAIL, EXIT_PASS, UsageError
from ._streams import one_line


def run(port: int, verbose: bool, stdout: IO[str], stderr: IO[str]) -> int:
    from .._site import bundle, server  # ~30 ms of imports (http.server, socketserver, subprocess) only this command needs

    try:
        listening = server.make_server(port, verbose=verbose)
    except bundle.SiteError as error:  # the checkout lacks what the page needs
        stderr.write(f"fitproof: {one_line(error)}\n")
        return EXIT_FAIL
    except OSError as error:
        hint = " (try --port 0 for a free port)" if port else ""
        raise UsageError(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}{hint}") from None
    host, bound = listening.server_address[:2]
    stdout.write(f"Serving the fitproof page at http://{host!s}:{bound}/ (Ctrl+C to stop)\n")
    stdout.flush()
    try:
        listening.serve_forever()
    except KeyboardInterrupt:
        stdout.write("Stopped.\n")
    finally:
        listening.server_close()
    return EXIT_PASS
