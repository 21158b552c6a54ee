"""The grader's ``ast.parse`` survives CPython 3.11's shared AST depth counter (cpython#106905)."""

import subprocess
import sys
import textwrap

import pytest

# Threads parse a long module while the cyclic collector calls finalizers that parse too: the
# interpreter's shared depth counter is moved under the first parse, which then raises.
STORM = textwrap.dedent(
    """
    import ast, gc, sys, threading
    if sys.argv[1] == "guarded":
        import autograder.grading  # installs the guard
    source = "\\n".join(f"def f{i}(a):\\n    return [x * {i} for x in a if x]" for i in range(200))
    spoiled = []

    class Cycle:
        def __init__(self):
            self.me = self
        def __del__(self):
            try:
                ast.parse("a + (b * c)")
            except SystemError as error:
                spoiled.append(error)

    def work():
        for _ in range(40):
            try:
                for _ in range(50):
                    Cycle()
                ast.parse(source)
            except SystemError as error:
                spoiled.append(error)

    gc.set_threshold(50)
    sys.setswitchinterval(1e-6)
    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(len(spoiled))
    """
)


def _spoiled_parses(mode):
    done = subprocess.run([sys.executable, "-c", STORM, mode], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_guarded_parses_survive_storm():
    assert _spoiled_parses("guarded") == 0


def test_storm_spoils_plain_parses():
    spoiled = _spoiled_parses("plain")
    if spoiled == 0:
        pytest.skip(f"Python {sys.version.split()[0]} keeps the AST depth per call: nothing to guard against")
    assert spoiled > 0


def test_same_tree_and_syntax_errors():
    import ast

    import autograder.grading.ast_guard as guard

    assert ast.parse is guard.parse
    assert ast.dump(ast.parse("x = [i for i in y]")) == ast.dump(guard.parse.__wrapped__("x = [i for i in y]"))
    with pytest.raises(SyntaxError):
        ast.parse("def (")


def test_other_errors_not_retried(monkeypatch):
    import autograder.grading.ast_guard as guard

    calls = []

    def broken(*args, **kwargs):
        calls.append(args)
        raise SystemError("something else")

    monkeypatch.setattr(guard, "_unguarded", broken)
    with pytest.raises(SystemError, match="something else"):
        guard.parse("x")
    assert len(calls) == 1


def test_spoiled_parse_is_retried(monkeypatch):
    import ast

    import autograder.grading.ast_guard as guard

    real = guard._unguarded
    outcomes = iter([SystemError("AST constructor recursion depth mismatch (before=66, after=61)")])

    def spoiled_once(*args, **kwargs):
        for error in outcomes:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(guard, "_unguarded", spoiled_once)
    assert isinstance(guard.parse("x = 1"), ast.Module)
