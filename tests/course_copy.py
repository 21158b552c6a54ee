"""A clean copy of the course (what an instructor clones), for nbgrader end-to-end tests."""

import json
import os
import re
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_course(target: str) -> str:
    os.makedirs(target, exist_ok=True)
    shutil.copytree(os.path.join(ROOT, "notebooks"), os.path.join(target, "notebooks"))
    shutil.copy(os.path.join(ROOT, "nbgrader_config.py"), target)
    return target


def copy_working_tree(target: str, untracked: bool = False) -> str:
    """Copy the files git knows (as they are in the working tree, edits included) into ``target``.

    untracked: also new files git does not ignore yet (what the next commit would hold)."""
    command = ["git", "ls-files", "-z", "--cached"] + (["--others", "--exclude-standard"] if untracked else [])
    listed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, listed):
        source = os.path.join(ROOT, name)
        if not os.path.isfile(source):  # deleted in the working tree, not yet committed
            continue
        destination = os.path.join(target, name)
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        shutil.copy2(source, destination)
    return target


def nbgrader(course: str, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    done = subprocess.run(["nbgrader", *args], cwd=course, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"nbgrader {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def read(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write(path: str, nb: dict) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(nb, f, indent=1)


def grade_id(cell: dict) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def solutions(source_nb: dict) -> dict[str, str]:
    """The instructor's answer for every solution cell, without the solution markers."""
    found = {}
    for cell in source_nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution") and cell["cell_type"] == "code":
            text = "".join(cell["source"])
            found[meta["grade_id"]] = re.sub(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n?", "", text, flags=re.M)
    return found


def answered(release_nb: dict, answers: dict[str, str]) -> dict:
    """The release notebook with the given solution cells filled in, as a student would."""
    nb = json.loads(json.dumps(release_nb))
    for cell in nb["cells"]:
        if grade_id(cell) in answers:
            cell["source"] = answers[grade_id(cell)]
    return nb


def problems(notebook: dict) -> list[str]:
    """What a run of the notebook shows that a clean run must not: errors, and anything on stderr."""
    found = []
    for index, cell in enumerate(notebook["cells"]):
        for output in cell.get("outputs", []):
            if output["output_type"] == "error":
                found.append(f"cell {index}: {output['ename']}: {output['evalue']}")
            elif output["output_type"] == "stream" and output["name"] == "stderr":
                found.append(f"cell {index} wrote to stderr: {''.join(output['text'])[:300]}")
    return found


def points(source_nb: dict) -> dict[str, float]:
    return {
        grade_id(c): float(c["metadata"]["nbgrader"]["points"])
        for c in source_nb["cells"]
        if c.get("metadata", {}).get("nbgrader", {}).get("grade")
    }


# Lesson 3 answers: the correct train_step and the classic mistakes (shared by the tests and benchmarks/).
CORRECT_TRAIN_STEP = """def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""
NEVER_CLEARS = """def train_step(model, optimizer, loss_fn, x, y):
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""
CLEARS_AFTER_STEP = """def train_step(model, optimizer, loss_fn, x, y):
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
"""
LOSS_NOT_SCALED = """def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        loss.backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return losses
"""
NO_CLEAR = """def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
"""
CLEARS_EVERY_MICRO_BATCH = """def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    for i, (x, y) in enumerate(micro_batches):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
    return losses
"""
# A syntax error on line 4 of the cell (a missing closing parenthesis).
SYNTAX_ERROR = """def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y
    loss.backward()
    optimizer.step()
    return loss.item()
"""
# A debug print left in: 50 MB of output, past the sandbox's output limit, so the notebook stops there.
DEBUG_PRINT = 'print("x" * 50_000_000)  # debugging\n'


def class_of_eight(release_nb: dict, good: dict[str, str]) -> dict[str, dict]:
    """The instructor's hand-made lesson 3 class (issue 22): student id -> submitted notebook.

    Two correct students, one who clears after the step, one who never clears, one who clears every
    micro-batch, a blank notebook, a syntax error, and a correct student with a 50 MB debug print."""
    return {
        "ada": answered(release_nb, good),
        "ben": answered(release_nb, good),
        "cai": answered(release_nb, {**good, "train_step": CLEARS_AFTER_STEP}),
        "dee": answered(release_nb, {**good, "train_step": NEVER_CLEARS}),
        "eve": answered(release_nb, {**good, "train_accumulated": CLEARS_EVERY_MICRO_BATCH}),
        "fay": release_nb,
        "gus": answered(release_nb, {**good, "train_step": SYNTAX_ERROR}),
        "hal": answered(release_nb, {**good, "train_step": good["train_step"] + DEBUG_PRINT}),
    }
