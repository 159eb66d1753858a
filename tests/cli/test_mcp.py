"""``fitproof mcp`` as a process: driven by the official MCP SDK's stdio client, and by raw
lines of JSON-RPC; how it ends (end of input, Ctrl+C, a killed client) and what it writes."""

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.shared.exceptions import MCPError

from cli_calls import call_cli
from conftest import signals_as_from_a_terminal
from fitproof.mcp_server.protocol import MAX_MESSAGE_BYTES

SCRIPT = Path(sys.executable).parent / "fitproof"
SERVER = [str(SCRIPT), "mcp"] if SCRIPT.exists() else [sys.executable, "-m", "fitproof", "mcp"]
RELEVANCE = {
    "budget": 7,
    "items": [{"id": "A", "relevance": 9, "tokens": 4}, {"id": "B", "relevance": 8, "tokens": 5}, {"id": "C", "relevance": 7, "tokens": 3}],
}
HISTORY = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Where is my order?"},
    {"role": "assistant", "content": "It shipped on Friday."},
    {"role": "user", "content": "And the invoice?"},
]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
}


def server_parameters():
    """The SDK starts the server with a few safe variables only: PYTHONPATH is passed on too, so that a
    checkout run with PYTHONPATH=py (a worktree beside the editable install) serves its own code."""
    environment = get_default_environment()
    if os.environ.get("PYTHONPATH"):
        environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return StdioServerParameters(command=SERVER[0], args=SERVER[1:], env=environment)


def rpc(message):
    return (json.dumps(message) + "\n").encode()


def run_apart(main):
    """``anyio.run(main)`` in a thread of its own: a worker that ran a page test before holds
    Playwright's event loop on its main thread, and anyio cannot start a second one there."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, main).result(timeout=600)


def sdk_session(body):
    """What ``body(session, initialized)`` returns in a session with the server started by the SDK's
    stdio client; the server's standard error must stay empty."""
    with tempfile.TemporaryFile("w+") as errors:

        async def main():
            async with stdio_client(server_parameters(), errlog=errors) as (read, write):
                async with ClientSession(read, write) as session:
                    initialized = await session.initialize()
                    return await body(session, initialized)

        returned = run_apart(main)
        errors.seek(0)
        assert errors.read() == ""
    return returned


# -- with the SDK ---------------------------------------------------------------------------------


def test_the_sdk_lists_the_tools_and_calls_each():
    async def body(session, initialized):
        assert initialized.protocol_version == "2025-11-25" and initialized.server_info.name == "fitproof"
        listed = await session.list_tools()
        assert [tool.name for tool in listed.tools] == ["check", "count_tokens", "trim_messages", "verify_claim"]
        assert all(tool.output_schema and tool.input_schema["type"] == "object" for tool in listed.tools)
        await session.send_ping()
        results = {
            "check": await session.call_tool("check", {"input": RELEVANCE}),
            "count_tokens": await session.call_tool("count_tokens", {"text": "hello world", "tokenizer": "gpt-4o"}),
            "trim_messages": await session.call_tool("trim_messages", {"messages": HISTORY, "limit": 25, "tokenizer": "gpt-4o"}),
            "verify_claim": await session.call_tool("verify_claim", {"input": RELEVANCE, "claim": {"selected": ["A"]}}),
        }
        return results

    results = sdk_session(body)  # the SDK checked each structured result against the tool's output schema
    assert all(result.is_error is False for result in results.values())
    assert results["check"].structured_content["pass"] is True
    assert results["check"].structured_content["report"]["selected"] == ["A", "C"]
    assert results["check"].content[0].text == "PASS  Selected A, C within 7 tokens."
    assert results["count_tokens"].structured_content == {"tokens": 2, "tokenizer": "gpt-4o", "encoding": "o200k_base"}
    assert results["trim_messages"].structured_content["kept"] == [0, 3]
    assert results["trim_messages"].structured_content["dropped"] == [1, 2]
    assert results["verify_claim"].structured_content["holds"] is False
    assert results["verify_claim"].structured_content["failures"][0]["id"] == "C"


def test_the_sdk_reads_the_slim_definitions_and_the_full_schemas_behind_them():
    async def body(session, initialized):
        assert initialized.capabilities.resources is not None
        listed = await session.list_tools()
        resources = await session.list_resources()
        full = await session.read_resource("fitproof://schema/trim_messages")
        trimmed = await session.call_tool(
            "trim_messages",
            {"messages": HISTORY[1:], "limit": 100, "format": "anthropic", "system": "Be brief.", "strategy": "stable"},
        )
        again = await session.call_tool(
            "trim_messages",
            {"messages": HISTORY[1:], "limit": 100, "format": "anthropic", "previous": trimmed.structured_content["as_previous"]},
        )
        missing = None
        try:
            await session.read_resource("fitproof://schema/nope")
        except MCPError as error:
            missing = error
        return listed, resources, full, trimmed, again, missing

    listed, resources, full, trimmed, again, missing = sdk_session(body)
    slim = next(tool for tool in listed.tools if tool.name == "trim_messages").input_schema
    schema = json.loads(full.contents[0].text)
    assert list(slim["properties"]) == list(schema["properties"]) and "oneOf" in schema["properties"]["clear"]
    assert "fitproof://schema/trim_messages" in [resource.uri for resource in resources.resources]
    assert trimmed.is_error is False and trimmed.structured_content["format"] == "anthropic"  # the SDK checked it against outputSchema
    assert trimmed.structured_content["strategy"] == "stable" and trimmed.structured_content["kept"] == [0, 1, 2]
    assert again.is_error is False and again.structured_content["previous"] == trimmed.structured_content["as_previous"]
    assert missing is not None and missing.code == -32602 and "Resource not found" in missing.message


def test_the_sdk_gets_a_tool_error_for_bad_input_and_an_error_for_an_unknown_tool():
    async def body(session, initialized):
        bad = await session.call_tool("check", {"input": {"budget": 7, "items": [{"id": "A", "relevance": 9, "tokens": "4"}]}})
        with pytest.raises(MCPError) as unknown:
            await session.call_tool("count", {"text": "x"})
        after = await session.call_tool("count_tokens", {"text": "still here"})
        return bad, unknown.value, after

    bad, unknown, after = sdk_session(body)
    assert bad.is_error is True and '$.input.items[0].tokens: expected an integer from 0 to 2^53-1, got "4"' in bad.content[0].text
    assert unknown.code == -32602 and "Unknown tool" in unknown.message
    assert after.is_error is False and after.structured_content["tokens"] == 2


def test_a_thousand_calls_in_one_session():
    async def body(session, initialized):
        await session.list_tools()
        counts = []
        for index in range(1000):
            if index % 4 == 0:
                result = await session.call_tool("check", {"input": {**RELEVANCE, "budget": index % 13}})
                counts.append(result.structured_content["report"]["used"])
            else:
                result = await session.call_tool("count_tokens", {"text": " ".join(["word"] * index)})
                counts.append(result.structured_content["tokens"])
            assert result.is_error is False
        return counts

    counts = sdk_session(body)
    assert len(counts) == 1000 and counts[1] == 1 and counts[999] == 999


def test_the_sdk_high_level_client_falls_back_from_its_probe():
    # mcp.Client probes server/discover (the 2026-07-28 stateless era) first; this server answers -32601
    # and the client goes on with the initialize handshake.
    from mcp import Client

    async def main():
        async with Client(server_parameters()) as client:
            return await client.call_tool("count_tokens", {"text": "hello world"})

    result = run_apart(main)
    assert result.is_error is False and result.structured_content["tokens"] == 2


# -- raw lines ------------------------------------------------------------------------------------


def serve_lines(data, **options):
    """(exit code, answers, stderr) of the server given ``data`` on standard input, then its end."""
    done = subprocess.run(SERVER, input=data, capture_output=True, timeout=120, **options)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def test_raw_lines_get_their_json_rpc_errors_and_the_server_goes_on():
    data = b"".join(
        [
            rpc(INITIALIZE),
            rpc({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            b"this is not json\n",
            b'{"jsonrpc": "2.0", "id": 1, "method": "ping"\n',
            rpc([1, 2]),
            rpc({"jsonrpc": "2.0", "id": 2}),
            rpc({"jsonrpc": "2.0", "id": 3, "method": "prompts/list"}),
            rpc({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "trim"}}),
            rpc({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "count_tokens", "arguments": {"text": 5}}}),
            b"\xff\xfe\n",
            rpc({"jsonrpc": "2.0", "id": 6, "method": "ping"}),
        ]
    )
    code, answers, stderr = serve_lines(data)
    assert code == 0 and stderr == b""
    assert [(answer["id"], answer.get("error", {}).get("code")) for answer in answers] == [
        (0, None),
        (None, -32700),
        (None, -32700),
        (None, -32600),
        (2, -32600),
        (3, -32601),
        (4, -32602),
        (5, None),
        (None, -32700),
        (6, None),
    ]
    assert answers[7]["result"]["isError"] is True and "$.text: expected a string, got 5" in answers[7]["result"]["content"][0]["text"]


def test_a_line_over_the_limit_is_answered_and_the_next_one_too():
    big = rpc(
        {
            "jsonrpc": "2.0",
            "id": "big",
            "method": "tools/call",
            "params": {"name": "count_tokens", "arguments": {"text": "x" * MAX_MESSAGE_BYTES}},
        }
    )
    code, answers, stderr = serve_lines(rpc(INITIALIZE) + big + rpc({"jsonrpc": "2.0", "id": 7, "method": "ping"}))
    assert code == 0 and stderr == b""
    assert answers[1]["id"] == "big" and answers[1]["error"]["code"] == -32600
    assert answers[2] == {"jsonrpc": "2.0", "id": 7, "result": {}}


def test_nothing_but_protocol_messages_on_standard_output():
    # A tool that prints (a stray print() in some library): it lands on standard error, not among the messages.
    noisy = textwrap.dedent("""
        import sys
        sys.argv = ["fitproof", "mcp"]
        from fitproof.mcp_server import tools
        counted = tools.TOOLS["count_tokens"]
        def noisy(arguments):
            print("stray output")
            return counted(arguments)
        tools.TOOLS["count_tokens"] = noisy
        from fitproof._launch import main
        main()
    """)
    data = rpc(INITIALIZE) + rpc(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "count_tokens", "arguments": {"text": "a b"}}}
    )
    done = subprocess.run([sys.executable, "-c", noisy], input=data, capture_output=True, timeout=120)
    assert done.returncode == 0
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()] == [0, 1]
    assert done.stderr == b"stray output\n"


def test_with_standard_error_on_standard_output_still_nothing_but_messages():
    noisy = textwrap.dedent("""
        import sys
        sys.argv = ["fitproof", "mcp"]
        from fitproof.mcp_server import tools
        def noisy(arguments):
            print("stray output")
            sys.stderr.write("stray error\\n")
            raise KeyError("a bug")  # logged on standard error, which is standard output here
        tools.TOOLS["count_tokens"] = noisy
        from fitproof._launch import main
        main()
    """)
    data = rpc(INITIALIZE) + rpc({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "count_tokens", "arguments": {}}})
    done = subprocess.run([sys.executable, "-c", noisy], input=data, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    assert done.returncode == 0
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [answer["id"] for answer in answers] == [0, 1] and answers[1]["error"]["code"] == -32603


def test_the_end_of_input_ends_it_after_the_answers():
    requests = b"".join(
        rpc({"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": {"name": "check", "arguments": {"input": RELEVANCE}}})
        for index in range(50)
    )
    code, answers, stderr = serve_lines(rpc(INITIALIZE) + requests[:-1])  # the last line without its newline
    assert code == 0 and stderr == b""
    assert [answer["id"] for answer in answers] == [0, *range(50)]


def started():
    """A server past its first answer (it is in its loop), and that answer."""
    server = subprocess.Popen(
        SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=signals_as_from_a_terminal
    )  # the Ctrl+C test's signal arrives
    server.stdin.write(rpc(INITIALIZE))
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    assert answer["id"] == 0 and answer["result"]["protocolVersion"] == "2025-06-18"
    return server


def test_ctrl_c_ends_it_quietly():
    server = started()
    try:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=60) == 130
        assert server.stdout.read() == b"" and server.stderr.read() == b""
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=60)
        for stream in (server.stdin, server.stdout, server.stderr):
            stream.close()


def test_a_client_that_stops_reading_ends_it_quietly():
    server = started()
    try:
        server.stdout.close()  # gone: the next answer cannot be written
        server.stdin.write(
            rpc({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "check", "arguments": {"input": RELEVANCE}}})
        )
        server.stdin.close()
        assert server.wait(timeout=60) == 0
        assert b"Traceback" not in server.stderr.read()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=60)
        server.stderr.close()


CLIENT = textwrap.dedent("""
    import sys, anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import get_default_environment, stdio_client

    async def main():
        async with stdio_client(StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("count_tokens", {"text": "ready"})
                print("ready", result.structured_content["tokens"], flush=True)
                await anyio.Event().wait()  # until it is killed

    anyio.run(main)
""")


def _children(pid):
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


@pytest.mark.skipif(
    not Path(f"/proc/self/task/{os.getpid()}/children").exists() or not hasattr(os, "pidfd_open"),
    reason="needs Linux's /proc and pidfd_open to follow the server",
)
def test_a_killed_client_leaves_no_server_behind():
    client = subprocess.Popen([sys.executable, "-c", CLIENT, *SERVER], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    servers = []
    try:
        assert client.stdout.readline() == b"ready 1\n"  # the session is open: the server answered a call
        servers = _children(client.pid)
        assert len(servers) == 1
        handle = os.pidfd_open(servers[0])  # held before the kill: the pid cannot be reused under it
        try:
            client.kill()
            assert client.wait(timeout=60) == -signal.SIGKILL
            # The server's standard input ends with its client: it exits (the pidfd is readable).
            readable, _, _ = select.select([handle], [], [], 60)
            assert readable == [handle], "the server outlived its killed client"
        finally:
            os.close(handle)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait(timeout=60)
        client.stdout.close()
        for pid in servers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_it_starts_without_the_command_line_modules():
    # `fitproof mcp` answers sooner for not importing argparse and the other commands (bench/mcp_stdio.py times it).
    probe = textwrap.dedent("""
        import json, sys
        sys.argv = ["fitproof", "mcp"]
        from fitproof.mcp_server import stdio
        stdio.serve_process = lambda stderr=None: print(json.dumps(sorted(sys.modules))) or 0
        from fitproof._launch import main
        main()
    """)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=120, check=True)
    loaded = set(json.loads(done.stdout))
    assert "fitproof.mcp_server.stdio" in loaded
    assert loaded.isdisjoint({"fitproof.cli", "argparse", "fitproof.mcp_server.tools", "difflib", "http.client", "ssl"})


def test_the_server_loads_only_the_standard_library():
    probe = textwrap.dedent("""
        import json, sys
        sys.path.insert(0, sys.argv[1])
        from fitproof.mcp_server import protocol, stdio, tools
        opened = protocol.Session()
        for name, arguments in json.loads(sys.argv[2]).items():
            assert opened.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}})["result"]
        print(json.dumps(sorted(sys.modules)))
    """)
    calls = {
        "check": {"input": RELEVANCE},
        "count_tokens": {"text": "x", "tokenizer": "nope"},
        "trim_messages": {"messages": HISTORY, "limit": 5},
        "verify_claim": {"input": RELEVANCE, "claim": {"selected": ["A"]}},
    }
    source = str(Path(__file__).resolve().parent.parent.parent / "py")
    done = subprocess.run([sys.executable, "-I", "-c", probe, source, json.dumps(calls)], capture_output=True, timeout=120, check=True)
    outside = [
        name
        for name in json.loads(done.stdout)
        if name.split(".")[0] not in sys.stdlib_module_names and name.split(".")[0] not in ("fitproof", "__main__", "_distutils_hack")
    ]  # (setuptools' .pth hook)
    assert outside == []


# -- the command line -----------------------------------------------------------------------------


def test_mcp_is_a_command():
    code, out, err = call_cli(["mcp"], rpc(INITIALIZE) + rpc({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
    assert code == 0 and err == ""
    assert [json.loads(line)["id"] for line in out.splitlines()] == [0, 1]
    code, out, err = call_cli(["--help"])
    assert code == 0 and "mcp" in out and "fitproof mcp" in out
    code, out, err = call_cli(["mcp", "--prot", "1"])
    assert code == 2 and "unknown option --prot" in err


QWEN = Path(__file__).resolve().parent.parent / "data" / "models" / "qwen3" / "tokenizer.json"


@pytest.mark.skipif(not QWEN.exists(), reason="needs the test suite's model tokenizers (scripts/fetch_model_tokenizers)")
def test_a_models_own_tokenizer_by_name():
    from fitproof import count_messages, count_tokens
    from fitproof.tokenizers import TokenizerRegistry, load_tokenizer, using_tokenizers

    text = "Order ORD-884120 shipped 2026-03-09 and arrived four days late."
    calls = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "count_tokens", "arguments": {"text": text, "tokenizer": "qwen3"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "trim_messages",
                "arguments": {"messages": HISTORY, "limit": 1000, "tokenizer": "qwen3", "template": "qwen3"},
            },
        },
    ]
    code, out, err = call_cli(["mcp", "--tokenizer-file", f"qwen3={QWEN}"], rpc(INITIALIZE) + b"".join(map(rpc, calls)))
    assert code == 0 and err == ""
    answers = [json.loads(line) for line in out.splitlines()]
    qwen = load_tokenizer(QWEN)
    assert answers[1]["result"]["structuredContent"]["tokens"] == count_tokens(text, qwen)
    trimmed = answers[2]["result"]["structuredContent"]
    registry = TokenizerRegistry()
    registry.register("qwen3", str(QWEN))
    with using_tokenizers(registry):
        assert trimmed["tokens"] == count_messages(HISTORY, "qwen3", template="qwen3") and trimmed["dropped"] == []
    code, out, err = call_cli(["mcp", "--tokenizer-file", "qwen3"], rpc(INITIALIZE))
    assert code == 2 and out == "" and "expected NAME=PATH" in err
