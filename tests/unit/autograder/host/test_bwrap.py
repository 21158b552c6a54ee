"""The sandbox every student job runs in, the same for ``diagnose`` and for grading, tried here through
``diagnose``'s API (``diagnose_files``, what ``python -m autograder diagnose`` calls and prints, in this
process: one warm server for every test) and, where the command itself matters, the command: time,
memory and process limits, no network, nothing written or deleted outside the job's own folder, no
privileges (as root and as an ordinary user), one clear refusal without bubblewrap, and torch kept
as installed (the tamper watch and the code lock).

Beside autograder/host/bwrap.py, the sandbox's confinement."""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

from autograder.host import bwrap
from tests.conftest import requires_bwrap
from tests.course_copy import copy_working_tree
from tests.labelled import diagnose_here


def diagnose(tmp_path, body, **limits):
    source = tmp_path / "student.py"
    source.write_text(
        "import os, socket, time, torch\n"
        "def train_step(model, optimizer, loss_fn, x, y):\n"
        f"{body}\n"
        "    optimizer.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.item()\n"
    )
    return diagnose_here("train_step", [str(source)], **limits)[str(source)]


@requires_bwrap
def test_no_writes_outside_scratch(tmp_path):
    target = tmp_path / "outside.txt"
    row = diagnose(tmp_path, f"    open({str(target)!r}, 'w').write('x')")
    assert row["code"] == "error"
    assert not target.exists()


@requires_bwrap
def test_no_deletes_outside(tmp_path):
    victim = tmp_path / "gradebook.db"
    victim.write_text("precious")
    row = diagnose(tmp_path, f"    os.remove({str(victim)!r})")
    assert row["code"] == "error"
    assert victim.read_text() == "precious"


@requires_bwrap
def test_wiper_still_gets_verdict(tmp_path):
    # Everything writable from the job (its folder, its parent, the record it writes to) is removed
    # at every call; the grader reads the record from a descriptor it holds, outside the job's folder.
    wipe = (
        "    import shutil\n"
        "    for top in ('.', '..', '../..', '../../..'):\n"
        "        try:\n"
        "            names = os.listdir(top)\n"
        "        except OSError:\n"
        "            continue\n"
        "        for name in names:\n"
        "            path = os.path.join(top, name)\n"
        "            shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else None\n"
        "            try:\n"
        "                os.remove(path)\n"
        "            except OSError:\n"
        "                pass"
    )
    row = diagnose(tmp_path, wipe)
    assert (row["code"], row["passed"]) == ("ok", True), row


@requires_bwrap
def test_no_network(tmp_path):
    body = (
        "    try:\n"
        "        socket.create_connection(('127.0.0.1', 22), timeout=1)\n"
        "    except OSError as exc:\n"
        "        raise RuntimeError('no network: ' + str(exc))"
    )
    row = diagnose(tmp_path, body)
    assert row["code"] == "error"
    assert "no network" in row["message"]


def test_memory_hog_stopped(tmp_path):
    row = diagnose(tmp_path, "    junk = torch.ones(2_000_000_000)", memory_mb=1500)
    assert row["code"] == "error"
    assert "memory" in row["message"]


@requires_bwrap
def test_split_memory_hog_stopped(tmp_path):
    body = (
        "    for _ in range(4):\n"
        "        if os.fork() == 0:\n"
        "            block = b'x' * (500 * 2**20)\n"
        "            time.sleep(60)\n"
        "            os._exit(0)\n"
        "    time.sleep(60)"
    )
    row = diagnose(tmp_path, body, memory_mb=1500, timeout=40)
    assert row["code"] == "error", row
    assert "memory" in row["message"], row


def test_hang_hits_time_limit(tmp_path):
    row = diagnose(tmp_path, "    time.sleep(1000)", timeout=4)
    assert row["code"] == "timeout"


def test_scratch_files_allowed(tmp_path):
    row = diagnose(tmp_path, "    open('notes.txt', 'a').write('fine')")
    assert row["code"] == "ok"


def test_no_bubblewrap_refuses_to_run(tmp_path):
    from autograder.host.bwrap import NO_BUBBLEWRAP

    source = tmp_path / "student.py"
    source.write_text("open('ran.txt', 'w').write('x')\ndef manual_sgd_step(params, lr):\n    pass\n")
    env = {**os.environ, "AUTOGRADER_BWRAP": "no-such-bwrap-binary"}
    command = [sys.executable, "-m", "autograder", "diagnose", "manual_sgd_step", str(source)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip() == f"autograder: {NO_BUBBLEWRAP}"
    assert done.stdout == "" and not (tmp_path / "ran.txt").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only as root does student code run as other users")
def test_private_copy_refused(tmp_path):
    """A copy of the course made under umask 077: student code, run as other users, could not import
    the job-side package or the lessons' helpers."""
    previous = os.umask(0o077)
    try:
        course = copy_working_tree(str(tmp_path / "copy"))
    finally:
        os.umask(previous)
    source = tmp_path / "student.py"
    source.write_text("open('ran.txt', 'w').write('x')\ndef manual_sgd_step(params, lr):\n    pass\n")
    command = [sys.executable, "-m", "autograder", "diagnose", "manual_sgd_step", str(source)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=course, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "umask 077" in done.stderr and f"chmod -R a+rX {course}/gradebox" in done.stderr, done.stderr
    assert f"{course}/gradexercises" in done.stderr, done.stderr  # the exercises' job sides are read too
    assert done.stdout == "" and not (tmp_path / "ran.txt").exists()


def test_unreadable_files_found(tmp_path):
    package = tmp_path / "package"
    (package / "inner").mkdir(parents=True)
    (package / "open.py").write_text("")
    (package / "private.py").write_text("")
    (package / "private.py").chmod(0o600)
    (package / "inner").chmod(0o700)
    environment = tmp_path / "environment"
    (environment / "lib").mkdir(parents=True)
    (environment / "lib" / "private.py").write_text("")
    (environment / "lib" / "private.py").chmod(0o600)  # not looked at: only the environment's top
    found = bwrap.unreadable_by_jobs(packages=[str(package)], folders=[str(environment)])
    assert sorted(found) == [str(package / "inner"), str(package / "private.py")]
    environment.chmod(0o700)
    assert bwrap.unreadable_by_jobs(packages=[], folders=[str(environment)]) == [str(environment)]


def test_bad_arguments_exit_nonzero(tmp_path):
    command = [sys.executable, "-m", "autograder", "diagnose", "no_such_exercise", "x.py"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    assert "unknown exercise" in done.stderr and "train_step" in done.stderr
    assert done.stdout == ""


def test_missing_file_spares_others(tmp_path):
    good = tmp_path / "good.py"
    good.write_text(
        "import torch\n"
        "def manual_sgd_step(params, lr):\n"
        "    with torch.no_grad():\n"
        "        for p in params:\n"
        "            if p.grad is not None:\n"
        "                p -= lr * p.grad\n"
        "                p.grad = None\n"
    )
    command = [sys.executable, "-m", "autograder", "diagnose", "manual_sgd_step", "missing.py", str(good)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["code"] for r in rows] == ["error", "ok"]
    assert rows[0]["file"] == "missing.py" and "no file" in rows[0]["message"]


def status_probe(tmp_path, name="probe.py"):
    """A graph_ops whose error message reports what the process is allowed to do."""
    source = tmp_path / name
    source.write_text(
        "import os\n"
        "def graph_ops(t):\n"
        "    status = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines() if ':' in l)\n"
        "    try:\n"
        "        open('/etc/shadow').read(1)\n"
        "        shadow = 'readable'\n"
        "    except OSError:\n"
        "        shadow = 'denied'\n"
        "    nnp, capeff, capbnd = (status[k].strip() for k in ('NoNewPrivs', 'CapEff', 'CapBnd'))\n"
        "    raise RuntimeError(f'uid={os.getuid()} pid={os.getpid()} nnp={nnp} capeff={capeff} capbnd={capbnd} '\n"
        "                       f'shadow={shadow}')\n"
    )
    source.chmod(0o644)
    return source


def probe_fields(row) -> dict:
    # The probe raises with its fields as the message; the verdict adds the case it was seen with.
    fields = row["message"].split(": ", 1)[1].split(" (seen with")[0].split(" Also,")[0]
    return dict(part.split("=", 1) for part in fields.split())


@requires_bwrap
def test_child_has_no_privileges(tmp_path):
    probe = str(status_probe(tmp_path))
    fields = probe_fields(diagnose_here("graph_ops", [probe])[probe])
    assert (fields["nnp"], fields["capeff"], fields["capbnd"], fields["pid"]) == ("1", "0" * 16, "0" * 16, "1")
    if os.geteuid() == 0:
        assert int(fields["uid"]) >= 61000 and fields["shadow"] == "denied"


@requires_bwrap
def test_unprivileged_locked_too(unprivileged_user):
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="autograder-probe-"))  # pytest's folders are private
    tmp_path.chmod(0o755)
    source = status_probe(tmp_path)
    command = [sys.executable, "-m", "autograder", "diagnose", "graph_ops", str(source)]
    done = subprocess.run(["runuser", "-u", unprivileged_user, "--", *command], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    fields = probe_fields(json.loads(done.stdout))
    shutil.rmtree(tmp_path, ignore_errors=True)
    assert (fields["nnp"], fields["capeff"], fields["capbnd"]) == ("1", "0" * 16, "0" * 16)
    assert fields["shadow"] == "denied"


@requires_bwrap
def test_fork_bomb_hits_limit(tmp_path):
    body = (
        "    pids = []\n"
        "    try:\n"
        "        for _ in range(300):\n"
        "            pid = os.fork()\n"
        "            if pid == 0:\n"
        "                time.sleep(30)\n"
        "                os._exit(0)\n"
        "            pids.append(pid)\n"
        "    except OSError as exc:\n"
        "        raise RuntimeError(f'stopped after {len(pids)} forks: {exc}')"
    )
    row = diagnose(tmp_path, body)
    assert row["code"] == "error", row
    # Stopped by the process limit (fork fails), or by the watch over the job's processes first.
    if "stopped after" in row["message"]:
        assert int(row["message"].split("stopped after ")[1].split()[0]) < 128
    else:
        assert "more than 128 processes" in row["message"], row["message"]


@requires_bwrap
def test_reshaped_torch_cannot_pass(tmp_path):
    # The two forgeries of the adversarial table, as diagnose files: each got "Correct" before the
    # watch went one module deeper and torch's code was locked.
    from tests.adversarial import CODE_IN_PLACE, TORCH_INTERNALS
    from tests.course_copy import NEVER_CLEARS

    files = []
    for name, forgery in (("code_in_place.py", CODE_IN_PLACE), ("torch_internals.py", TORCH_INTERNALS)):
        files.append(tmp_path / name)
        files[-1].write_text(forgery + "\n" + NEVER_CLEARS)
    code_in_place, torch_internals = diagnose_here("train_step", [str(f) for f in files]).values()
    assert code_in_place["code"] == "error" and "Tensor.backward.__code__" in code_in_place["message"]
    assert torch_internals["code"] == "tampered" and "torch.autograd.graph.Variable" in torch_internals["message"]
