"""Code decides on data, never on a message's words (docs/design.md, "Problems and errors"):
no module of the package searches, tests or rewrites the text of an exception or a problem.
An error or a problem carries its place (``at``) and its kind (``code``), and a message that
must read otherwise is built that way in the first place (a keyword of the reader, a field
of the error), never patched afterwards.

The check reads every module with ``ast`` and looks for what such a decision looks like: a
``"..." in str(error)``, a ``str(error).startswith(...)`` or ``.replace(...)``, the same on a
message, detail or summary (a variable so named, an attribute ``.message``, a key
``["summary"]``), or a regular expression run over one. Text that is not a message (a
tokenizer's input, a URL, a file's bytes) is not looked at.
"""

from __future__ import annotations

import ast

import pytest

from conftest import ROOT

PACKAGE = ROOT / "py" / "fitproof"

# Names and keys under which the package keeps a message's words.
MESSAGE_WORDS = {"message", "detail", "summary", "said"}
# Names an exception is conventionally bound to (besides every ``except ... as NAME``).
ERROR_NAMES = {"error", "err", "exc", "exception", "e", "invalid", "problem"}
TEXT_METHODS = {"startswith", "endswith", "replace", "removeprefix", "removesuffix", "find", "index", "count"}
REGEX_METHODS = {"search", "match", "fullmatch", "sub", "subn", "findall", "finditer"}

# Found and left, each with its reason: (module, line's code).
KNOWN = {
    # The check tool's text adds "first failure: ..." unless the summary already says it. A
    # failed check's detail is in no summary by construction, but a coincidence cannot be ruled
    # out without the report saying which failure its summary names.
    ("mcp_server/tools.py", 'failure.partition(": ")[2] not in report["summary"]'),
}


def _message_like(node: ast.AST, error_names: set[str]) -> bool:
    """``str(anything)``, or a message by its name, attribute or key; an error's own text."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str" and len(node.args) == 1:
        return True
    if isinstance(node, ast.Name):
        return node.id in MESSAGE_WORDS
    if isinstance(node, ast.Attribute):
        return node.attr in MESSAGE_WORDS or (node.attr == "args" and isinstance(node.value, ast.Name) and node.value.id in error_names)
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and key.value in MESSAGE_WORDS:
            return True
        return _message_like(node.value, error_names) and isinstance(node.value, ast.Attribute) and node.value.attr == "args"
    return False


def _key_in_record(left: ast.AST, right: ast.AST) -> bool:
    """``"tool_calls" in message``: a key looked up in a chat or JSON-RPC message (an object), not
    words searched in a text; a message's words are no identifier."""
    return isinstance(right, ast.Name) and isinstance(left, ast.Constant) and isinstance(left.value, str) and left.value.isidentifier()


def text_decisions(source: str) -> list[tuple[int, str]]:
    """(line, code) of each place in ``source`` that tests or rewrites a message's text."""
    tree = ast.parse(source)
    error_names = set(ERROR_NAMES)
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.name:
            error_names.add(node.name)
    found = []
    for node in ast.walk(tree):
        hit = False
        if isinstance(node, ast.Compare):
            lefts = [node.left, *node.comparators]
            hit = any(
                isinstance(op, (ast.In, ast.NotIn)) and _message_like(right, error_names) and not _key_in_record(left, right)
                for op, left, right in zip(node.ops, lefts, node.comparators)
            )
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in TEXT_METHODS:
                hit = _message_like(node.func.value, error_names)
            elif node.func.attr in REGEX_METHODS:
                hit = any(_message_like(argument, error_names) for argument in node.args)
        if hit:
            found.append((node.lineno, ast.get_source_segment(source, node) or ""))
    return found


def test_no_module_decides_on_a_message_s_words():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        for line, code in text_decisions(path.read_text(encoding="utf-8")):
            if (relative, code) not in KNOWN:
                found.append(f"{relative}:{line}: {code}")
    assert found == []


def test_every_known_exception_is_still_there():
    """A place fixed leaves the list too, so that the list never hides a new one."""
    seen = {
        (path.relative_to(PACKAGE).as_posix(), code)
        for path in PACKAGE.rglob("*.py")
        for _, code in text_decisions(path.read_text(encoding="utf-8"))
    }
    assert KNOWN <= seen


@pytest.mark.parametrize(
    "code",
    [
        'at = ("tokenizer",) if "does not have" in str(error) else ("template",)',
        'if "listed in errors" not in str(invalid): pass',
        "name = str(error).replace(preview(value), described)",
        'ok = str(problem).startswith("expected")',
        'problem = problem._replace(message=problem.message.replace("an integer", "an index", 1))',
        'if detail and detail.endswith(" listed in errors)"): pass',
        'end = "" if message.endswith("?") else "."',
        'if "fails" in report["summary"]: pass',
        'if "x" in check["detail"]: pass',
        'text = re.sub("an integer", "an index", str(error))',
        "first = PATTERN.search(problem.message)",
        'try:\n    pass\nexcept ValueError as oops:\n    wanted = "missing" in str(oops)',
        'try:\n    pass\nexcept ValueError as oops:\n    wanted = oops.args[0].startswith("missing")',
        'said = f"{path}: {value}"\nif "…, got " in said: pass',
    ],
)
def test_the_checker_flags_a_planted_decision_on_text(code):
    assert len(text_decisions(code)) == 1, code


@pytest.mark.parametrize(
    "code",
    [
        'text = text.replace("\\r\\n", "\\n")',  # a tokenizer's or a terminal's text, not a message
        'if piece.text.startswith("<|"): pass',
        'if "tool_calls" in message: pass',  # a key of a chat message
        'if "id" not in message and "method" in message: pass',
        'head = summary.rfind(", ", 0, 202)',  # where a long summary is cut for the screen
        'if error.at[:1] == ("claim",) or error.code == "missing_key": pass',
        "if message in seen: pass",  # the message as a value, not searched
        'line = f"{problem.path}: {problem.message}"',
        'if url.startswith("data:"): pass',
    ],
)
def test_the_checker_leaves_other_text_alone(code):
    assert text_decisions(code) == [], code
