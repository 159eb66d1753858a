"""`fitproof mcp`: what its tool definitions cost an agent's context, against the full schemas.

An MCP client puts `tools/list` into the model's context before anything is asked, on every
conversation. This starts `fitproof mcp`, reads `tools/list` as the server writes it and counts
each tool's definition (its compact JSON, as it is on the line) in o200k_base tokens; then it
reads each tool's full input schema (`resources/read fitproof://schema/<tool>`, served on request)
from the same server in the same run and counts the same definition with that schema in place of
the slim one: what `tools/list` would cost if it carried the full schemas. The ratio is the
slim listing against that peer. Counting is exact (o200k_base), so the figures do not depend on
the machine's load.

Loopback only (pipes to one child), bounded (one session, nine requests).
Run: .venv/bin/python bench/mcp_tools.py [--version 2025-11-25]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).parent / "fitproof"
VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")


def compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Server:
    """One `fitproof mcp` session over pipes: ``ask`` sends a request and returns its answer's line."""

    def __init__(self, version: str) -> None:
        command = [str(SCRIPT), "mcp"] if SCRIPT.exists() else [sys.executable, "-m", "fitproof", "mcp"]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0
        answer = json.loads(
            self.ask("initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
        )
        assert answer["result"]["protocolVersion"] == version, answer

    def ask(self, method: str, params: dict | None = None) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}}
        self.next_id += 1
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()
        return self.process.stdout.readline().decode("utf-8")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--version", choices=VERSIONS, default=VERSIONS[0], help="the protocol version the session speaks")
    arguments = options.parse_args()
    sys.path.insert(0, str(ROOT / "py"))
    from fitproof import count_tokens

    def tokens(text: str) -> int:
        return count_tokens(text, "o200k_base")

    server = Server(arguments.version)
    try:
        line = server.ask("tools/list")
        tools = json.loads(line)["result"]["tools"]
        texts = {}
        for tool in tools:
            answer = json.loads(server.ask("resources/read", {"uri": f"fitproof://schema/{tool['name']}"}))
            texts[tool["name"]] = answer["result"]["contents"][0]["text"]
        full_schemas = {name: json.loads(text) for name, text in texts.items()}
    finally:
        server.close()

    print(f"tools/list of `fitproof mcp`, protocol {arguments.version}, in o200k_base tokens")
    print(f"  {'tool':<14} {'sent':>6} {'of it inputSchema':>18} {'with the full schema':>21} {'sent / full':>12}")
    sent_total = full_total = 0
    for tool in tools:
        sent = tokens(compact(tool))
        full = tokens(compact({**tool, "inputSchema": full_schemas[tool["name"]]}))
        sent_total, full_total = sent_total + sent, full_total + full
        print(f"  {tool['name']:<14} {sent:>6} {tokens(compact(tool['inputSchema'])):>18} {full:>21} {sent / full:>11.2f}x")
    print(f"  {'total':<14} {sent_total:>6} {'':>18} {full_total:>21} {sent_total / full_total:>11.2f}x")
    print(f"  the whole tools/list line as written (the JSON-RPC envelope too): {tokens(line)} tokens")
    print(f"  the four full schemas as resources/read serves them: {sum(map(tokens, texts.values()))} tokens")


if __name__ == "__main__":
    main()
