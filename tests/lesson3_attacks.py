"""Lesson 3 answers that try to choose their own tolerance (issue 33): one throw-away forward pass
under ``torch.autocast`` made the judge compare the whole run with a bfloat16 reference at 2e-2
instead of 1e-4, because it read from the record whether the run used autocast.  Behind that loose
comparison a training step could get its update or its gradient a little wrong and pass.  And the
correct neighbours: the float32 loop, and the PyTorch AMP recipe (autocast and a GradScaler), which
must keep passing.  Each is a Python source defining the exercise's function, usable by
``python -m autograder diagnose`` or in a notebook's answer cell.

Before the judge chose its references itself, each attack passed at the seeds ``PASSED_BEFORE``
lists (of 0-39, measured with the judge of commit 96d9f4f), the visible seed 0 among them for two;
now each fails at every one of them.
"""

from __future__ import annotations

# One forward pass under autocast whose output is thrown away: the record then said "autocast".
THROW_AWAY = """    with torch.autocast("cpu", dtype=torch.bfloat16):
        model(x)
"""

TRAIN_STEP_CORRECT = """import torch

def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""

# The PyTorch AMP recipe on the CPU ("Typical Mixed Precision Training"): its forward pass and loss
# really are computed in bfloat16, and the judge's own autocast replay gives the same numbers.
TRAIN_STEP_AMP_CORRECT = """import torch

scaler = torch.amp.GradScaler("cpu")

def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
"""


def train_step_lr_off(factor: float) -> str:
    """The learning rate multiplied by ``factor`` in every call, after a throw-away autocast forward."""
    return f"""import torch

def train_step(model, optimizer, loss_fn, x, y):
{THROW_AWAY}    for group in optimizer.param_groups:
        group["lr"] = group.setdefault("initial_lr", group["lr"]) * {factor!r}
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""


TRAIN_STEP_LR_OFF = train_step_lr_off(0.9)  # the attack: 10% off
TRAIN_STEP_LR_SLIGHTLY_OFF = train_step_lr_off(0.98)  # passed the visible check (seed 0) too

# The update pulled back by 10% outside step(), after a throw-away autocast forward.
TRAIN_STEP_UPDATE_SHRUNK = f"""import torch

def train_step(model, optimizer, loss_fn, x, y):
{THROW_AWAY}    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    before = [p.detach().clone() for p in model.parameters()]
    optimizer.step()
    with torch.no_grad():
        for p, b in zip(model.parameters(), before):
            p -= 0.1 * (p - b)
    return loss.item()
"""

# A gradient 1% too large (the loss scaled before backward), after a throw-away autocast forward.
TRAIN_STEP_GRADIENT_OFF = f"""import torch

def train_step(model, optimizer, loss_fn, x, y):
{THROW_AWAY}    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    (loss * 1.01).backward()
    optimizer.step()
    return loss.item()
"""

TRAIN_ACCUMULATED_LR_OFF = """import torch

def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        model(micro_batches[0][0])
    for group in optimizer.param_groups:
        group["lr"] = group["lr"] * 0.9
    losses = []
    for i, (x, y) in enumerate(micro_batches):
        if i % accum_steps == 0:
            optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
    return losses
"""

TRAIN_ACCUMULATED_AMP_CORRECT = """import torch

scaler = torch.amp.GradScaler("cpu")

def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    for i, (x, y) in enumerate(micro_batches):
        if i % accum_steps == 0:
            optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            scaler.step(optimizer)
            scaler.update()
    return losses
"""

#: The seeds (of 0-39) at which each attack passed when the record chose the tolerance.
PASSED_BEFORE = {
    "train_step_lr_off": (2, 29, 32),
    "train_step_lr_slightly_off": (0, 2, 5, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 20, 23, 24, 25, 26, 28, 29,
                                   32, 35, 37, 38),
    "train_step_update_shrunk": (2, 29, 32),
    "train_step_gradient_off": (0, 2, 3, 4, 5, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18, 22, 23, 24, 25, 26, 28, 29,
                                33, 35, 36, 37, 38),
    "train_accumulated_lr_off": (2, 10, 11, 13, 14, 16, 20, 25, 26, 29, 32, 35, 38),
}  # fmt: skip

#: name -> (exercise, source)
CASES = {
    "train_step_correct": ("train_step", TRAIN_STEP_CORRECT),
    "train_step_amp_correct": ("train_step", TRAIN_STEP_AMP_CORRECT),
    "train_step_lr_off": ("train_step", TRAIN_STEP_LR_OFF),
    "train_step_lr_slightly_off": ("train_step", TRAIN_STEP_LR_SLIGHTLY_OFF),
    "train_step_update_shrunk": ("train_step", TRAIN_STEP_UPDATE_SHRUNK),
    "train_step_gradient_off": ("train_step", TRAIN_STEP_GRADIENT_OFF),
    "train_accumulated_lr_off": ("train_accumulated", TRAIN_ACCUMULATED_LR_OFF),
    "train_accumulated_amp_correct": ("train_accumulated", TRAIN_ACCUMULATED_AMP_CORRECT),
}
CORRECT = {"train_step_correct", "train_step_amp_correct", "train_accumulated_amp_correct"}
ATTACKS = set(CASES) - CORRECT


def function_of(name: str):
    """The function a case's source defines, compiled here (as a job loads a file: afresh each time)."""
    exercise, source = CASES[name]
    namespace: dict = {}
    exec(compile(source, f"<{name}>", "exec"), namespace)
    return namespace[exercise]
