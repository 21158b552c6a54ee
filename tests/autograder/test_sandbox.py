"""The sandbox of the diagnose CLI: limits, no network, nothing writable outside scratch."""

import json
import subprocess
import sys

from tests.conftest import requires_bwrap


def diagnose(tmp_path, body, *options):
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
    command = [sys.executable, "-m", "autograder", "diagnose", "train_step", str(source), *options]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@requires_bwrap
def test_student_code_cannot_write_outside_its_scratch_folder(tmp_path):
    target = tmp_path / "outside.txt"
    row = diagnose(tmp_path, f"    open({str(target)!r}, 'w').write('x')")
    assert row["code"] == "error"
    assert not target.exists()


@requires_bwrap
def test_student_code_cannot_delete_files_outside(tmp_path):
    victim = tmp_path / "gradebook.db"
    victim.write_text("precious")
    row = diagnose(tmp_path, f"    os.remove({str(victim)!r})")
    assert row["code"] == "error"
    assert victim.read_text() == "precious"


@requires_bwrap
def test_student_code_has_no_network(tmp_path):
    body = (
        "    try:\n"
        "        socket.create_connection(('127.0.0.1', 22), timeout=1)\n"
        "    except OSError as exc:\n"
        "        raise RuntimeError('no network: ' + str(exc))"
    )
    row = diagnose(tmp_path, body)
    assert row["code"] == "error"
    assert "no network" in row["message"]


def test_a_memory_hog_is_stopped_by_the_memory_limit(tmp_path):
    row = diagnose(tmp_path, "    junk = torch.ones(2_000_000_000)", "--memory-mb", "1500")
    assert row["code"] == "error"
    assert "memory" in row["message"]


def test_a_hang_is_stopped_by_the_time_limit(tmp_path):
    row = diagnose(tmp_path, "    time.sleep(1000)", "--timeout", "4")
    assert row["code"] == "timeout"


def test_scratch_files_the_student_writes_are_allowed(tmp_path):
    row = diagnose(tmp_path, "    open('notes.txt', 'a').write('fine')")
    assert row["code"] == "ok"
