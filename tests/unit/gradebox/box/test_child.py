"""The in-notebook checks on a machine without fork and resource (Windows; macOS, where forking a
process that loaded torch is unsafe): the student's function goes by value to a fresh Python."""

import subprocess
import sys
import textwrap

from tests.conftest import ROOT

WITHOUT_FORK = """
import os, sys
sys.modules["resource"] = None  # as on Windows: importing it fails
del os.fork                     # as on Windows: no fork at all
from gradebox.box.child import forking_is_safe
assert not forking_is_safe()
from autograder.checks import check, check_train_step

def helper(optimizer):          # a helper in the notebook, used by the answer
    optimizer.zero_grad()

def train_step(model, optimizer, loss_fn, x, y):
    helper(optimizer)
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()

def never_clears(model, optimizer, loss_fn, x, y):
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()

def hangs(params, lr):
    while True:
        pass

def dies(t):
    os._exit(3)
"""


def run(script: str) -> subprocess.CompletedProcess:
    code = textwrap.dedent(WITHOUT_FORK) + textwrap.dedent(script)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=600)


# A fresh Python imports torch before it runs anything (seconds on a slow machine, more on a busy
# one): the checks below get time for that, so that they test what a function does, not how fast
# an interpreter starts.
STARTUP = 120


def test_correct_function_passes():
    done = run(f"""
        check_train_step(train_step, timeout={STARTUP})
        check_train_step(train_step, start="dirty", seed=12, timeout={STARTUP})
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("✅ train_step") == 2


def test_mistake_named_as_with_fork():
    done = run(f"""
        try:
            check_train_step(never_clears, timeout={STARTUP})
        except AssertionError as exc:
            print("failed:", exc)
    """)
    assert "❌ train_step [never_clears]" in done.stdout, done.stderr
    assert "never_clears means: gradients pile up across updates" in done.stdout  # the self-check explains it


def test_survives_hang_and_crash():
    done = run(f"""
        # The crash gets time for Python's start, so that it is told from a hang by what it does.
        for name, fn, seconds in (("manual_sgd_step", hangs, 5), ("graph_ops", dies, {STARTUP})):
            try:
                check(name, fn, timeout=seconds)
            except AssertionError as exc:
                print("failed:", exc)
        print("still here")
    """)
    assert "[timeout]" in done.stdout and "graph_ops [error]" in done.stdout, done.stdout + done.stderr
    assert "still here" in done.stdout
