"""One exception tree: every exception class the package defines derives from FitproofError,
so ``except fitproof.FitproofError`` catches whatever the package raises on purpose
(PatternUnsupported, TemplateError, WorkerLost and the plugin's CaseFailed stood outside it)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import fitproof
from fitproof import FitproofError


def package_modules():
    for info in pkgutil.walk_packages(fitproof.__path__, "fitproof."):
        if info.name != "fitproof.__main__":  # importing it runs the command line
            yield importlib.import_module(info.name)


def exception_classes():
    for module in package_modules():
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", value


def test_every_exception_the_package_defines_derives_from_the_root():
    found = dict(exception_classes())
    assert len(found) >= 20, sorted(found)  # the walk reached every layer (tokenizers, templates, cli, _site...)
    for expected in (
        "fitproof.tokenizers.regex.PatternUnsupported",
        "fitproof.templates._common.TemplateError",
        "fitproof.batch.WorkerLost",
        "fitproof.pytest_plugin.CaseFailed",
    ):
        assert expected in found
    outside = sorted(name for name, kind in found.items() if not issubclass(kind, FitproofError))
    assert outside == []


def test_bad_input_errors_are_value_errors_too():
    """Callers who catch ValueError keep working: each bad-input error is both."""
    from fitproof.templates import TemplateError
    from fitproof.tokenizers.regex import PatternUnsupported

    for kind in (
        fitproof.InvalidInputError,
        fitproof.MessagesError,
        fitproof.PackError,
        fitproof.TokenizerUnavailable,
        TemplateError,
        PatternUnsupported,
    ):
        assert issubclass(kind, ValueError) and issubclass(kind, FitproofError), kind


# ------------------------------------------------------------------ an argument a call cannot take

import ast  # noqa: E402
import pickle  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402

from conftest import ROOT  # noqa: E402
from fitproof import ArgumentError, ArgumentTypeError, TokenizerRegistry, count_tokens, register_tokenizer  # noqa: E402


def test_an_unknown_tokenizer_is_an_argument_error_that_says_what_the_typo_meant():
    with pytest.raises(ArgumentError) as raised:
        count_tokens("hi", "o200k")
    error = raised.value
    assert isinstance(error, FitproofError) and isinstance(error, ValueError) and not isinstance(error, TypeError)
    assert (error.argument, error.value, error.suggestion) == ("tokenizer", "o200k", "o200k_base")
    assert "did you mean 'o200k_base'?" in str(error) and "o200k_base, cl100k_base, estimate, o200k_harmony" in str(error)


def test_a_name_close_to_nothing_gets_no_suggestion_and_a_model_counted_otherwise_says_why():
    with pytest.raises(ArgumentError) as raised:
        count_tokens("hi", "zzzzzzzz")
    assert raised.value.suggestion is None and "did you mean" not in str(raised.value)
    with pytest.raises(ArgumentError) as raised:
        count_tokens("hi", "text-davinci-003")
    assert (raised.value.argument, raised.value.suggestion) == ("tokenizer", None)
    assert "p50k_base" in str(raised.value)


def test_a_name_registered_in_the_registry_in_use_is_known_and_suggested():
    from fitproof import named_tokenizer, using_tokenizers

    registry = TokenizerRegistry()
    registry.register("my-model", named_tokenizer("o200k_harmony"))
    with using_tokenizers(registry), pytest.raises(ArgumentError) as raised:
        count_tokens("hi", "my-modle")
    assert raised.value.suggestion == "my-model" and "my-model" in str(raised.value).split("; did you mean")[0]


def test_a_text_or_tokenizer_of_the_wrong_type_is_a_type_error_and_still_a_value_error():
    for call, argument in (
        (lambda: count_tokens(5), "text"),
        (lambda: count_tokens(b"x", "estimate"), "text"),
        (lambda: count_tokens("hi", None), "tokenizer"),
        (lambda: count_tokens("hi", 3), "tokenizer"),
    ):
        with pytest.raises(ArgumentTypeError) as raised:
            call()
        error = raised.value
        assert isinstance(error, FitproofError) and isinstance(error, ValueError) and isinstance(error, TypeError)
        assert isinstance(error, ArgumentError) and error.argument == argument


def test_register_tokenizer_refuses_a_malformed_name_and_a_built_in_one_as_argument_errors():
    from fitproof import named_tokenizer

    harmony = named_tokenizer("o200k_harmony")
    for bad in ("bad name!", "", "o200k_base", "estimate", "o200k_harmony"):
        with pytest.raises(ArgumentError) as raised:
            register_tokenizer(bad, harmony, TokenizerRegistry())
        assert (raised.value.argument, raised.value.value) == ("name", bad) and not isinstance(raised.value, TypeError)
    with pytest.raises(ArgumentError, match="is a built-in tokenizer name"):
        TokenizerRegistry().register("o200k_base", harmony)
    with pytest.raises(ArgumentTypeError) as raised:
        register_tokenizer(None, harmony, TokenizerRegistry())
    assert raised.value.argument == "name" and raised.value.value is None


def test_load_tokenizer_refuses_a_path_that_is_no_file_name_as_an_argument_error():
    from fitproof import load_tokenizer

    for bad in (5, None, b"tokenizer.json"):
        with pytest.raises(ArgumentTypeError) as raised:
            load_tokenizer(bad)
        assert (raised.value.argument, raised.value.value) == ("path", bad)
    with pytest.raises(ArgumentError) as raised:
        load_tokenizer("")
    assert raised.value.argument == "path" and not isinstance(raised.value, TypeError)


def test_batch_refuses_one_text_a_bad_start_and_a_line_that_is_no_text_as_argument_errors():
    from fitproof import batch

    with pytest.raises(ArgumentTypeError) as raised:
        batch.checked_lines("text")
    assert (raised.value.argument, raised.value.value) == ("lines", "text")
    for start, wrong_type in ((0, False), (-1, False), ("1", True), (True, True)):
        with pytest.raises(ArgumentError) as raised:
            batch.checked_lines([b"{}"], start)
        assert (raised.value.argument, raised.value.value) == ("start", start) and isinstance(raised.value, ValueError)
        assert isinstance(raised.value, TypeError) is wrong_type
    with pytest.raises(ArgumentTypeError) as raised:
        list(batch.check_lines([b"{}", 1]))
    assert (raised.value.argument, raised.value.value) == ("lines", 1)


def test_fixtures_refuse_an_empty_path_or_a_folder_without_cases_as_argument_errors(tmp_path):
    from fitproof.fixtures import case_files, check_case

    for call, argument in ((lambda: case_files(""), "where"), (lambda: check_case(""), "path")):
        with pytest.raises(ArgumentError) as raised:
            call()
        assert (raised.value.argument, raised.value.value) == (argument, "")
    with pytest.raises(ArgumentTypeError) as raised:
        case_files(None)
    assert raised.value.argument == "where"
    for where in (tmp_path / "none", tmp_path):
        with pytest.raises(ArgumentError) as raised:
            case_files(where)
        assert raised.value.argument == "where" and raised.value.value == where


def test_an_argument_error_survives_pickling_whole():
    """A worker process sends it back to the caller (batch.write_checked with jobs)."""
    error = ArgumentTypeError("line 2 must be bytes or str, got int", "lines", 1)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is ArgumentTypeError and str(copy) == str(error)
    assert (copy.argument, copy.value, copy.suggestion) == ("lines", 1, None)


# The public modules whose deliberate errors are ArgumentErrors now: a plain ValueError, TypeError or
# RuntimeError raised there again would escape ``except FitproofError``. A function name limits the
# check to it (the rest of _fixtures/case.py raises ValueError that judge() turns into a failed case).
FIXED = {
    "tokenizers/__init__.py": None,
    "tokenizers/registry.py": None,
    "tokenizers/files.py": "load_tokenizer",
    "batch.py": None,
    "fixtures.py": None,
    "_fixtures/case.py": "case_files",
}
BUILT_IN = {"ValueError", "TypeError", "RuntimeError"}


def built_in_raises(tree: ast.AST) -> list[int]:
    """The lines of every ``raise ValueError(...)`` / ``raise TypeError`` (called or not) in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(raised, ast.Name) and raised.id in BUILT_IN:
                found.append(node.lineno)
    return found


def test_the_public_modules_raise_no_built_in_exception_of_their_own():
    package = ROOT / "py" / "fitproof"
    for relative, function in FIXED.items():
        tree = ast.parse((package / relative).read_text(encoding="utf-8"))
        if function is not None:
            [tree] = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == function]
        assert built_in_raises(tree) == [], relative
    assert built_in_raises(ast.parse("def f():\n    raise ValueError('x')\n")) == [2]  # the check itself finds one


def test_every_name_the_package_exports_imports_from_the_top():
    for name in fitproof.__all__:
        namespace: dict = {}
        exec(f"from fitproof import {name}", namespace)
        assert namespace[name] is getattr(fitproof, name)
    assert set(fitproof.__all__) <= set(dir(fitproof))
    from fitproof.tokenizers import Tokenizer, base, load_tokenizer

    assert fitproof.load_tokenizer is load_tokenizer and fitproof.Tokenizer is Tokenizer is base.Tokenizer
    assert fitproof.TokenizerFileError is base.TokenizerFileError
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        fitproof.nope  # noqa: B018


def test_importing_the_package_reads_no_tokenizer_file_code_until_load_tokenizer_is_asked_for():
    """``load_tokenizer`` and ``Tokenizer`` are exported lazily: importing the package is the page's start-up."""
    probe = (
        "import sys\nimport fitproof\nbefore = sorted({'fitproof.tokenizers.base', 'fitproof.tokenizers.files'} & set(sys.modules))\n"
        "from fitproof import load_tokenizer\nprint(before, 'fitproof.tokenizers.files' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT / 'py')!r})\n{probe}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "[] True", done.stderr
