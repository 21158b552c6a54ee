"""Mixed precision judged right: the GradScaler twin of every lesson-3 mistake gets the code of its
float32 twin, at four seeds; a correct GradScaler loop (with and without bfloat16 autocast) passes.

Each loop below is written once, with placeholders that make it a float32 loop or a mixed-precision
one (the PyTorch AMP recipe, on the CPU: ``torch.autocast("cpu", dtype=torch.bfloat16)`` and a
``torch.amp.GradScaler``).  Where the mixed-precision loop makes torch raise (``scaler.step`` refuses
an optimizer whose gradients are all None: no backward, or a clear between backward and step), the
judge names the mistake the error comes from.

Beside gradebox/exercises/_lesson3/amp.py (the recorder's float32 twin), through lesson 3's judge."""

from __future__ import annotations

import textwrap

import pytest
import torch

from tests.judging import verdict_of

FLOAT32 = {
    "FORWARD": "loss = loss_fn(model(x), y)",
    "BACKWARD": "{loss}.backward()",
    "UNSCALE": "pass",
    "STEP": "optimizer.step()",
}
AMP = {
    "FORWARD": 'with torch.autocast("cpu", dtype=torch.bfloat16):\n    loss = loss_fn(model(x), y)',
    "BACKWARD": "scaler.scale({loss}).backward()",
    "UNSCALE": "scaler.unscale_(optimizer)",
    "STEP": "scaler.step(optimizer)\nscaler.update()",
}
PREAMBLE = 'import torch\nscaler = torch.amp.GradScaler("cpu")\nstate = {"cleared": False}\n'

TRAIN_STEP = {
    "ok": ["optimizer.zero_grad()", "FORWARD", "BACKWARD:loss", "STEP", "return loss.item()"],
    "clears_after_step": ["FORWARD", "BACKWARD:loss", "STEP", "optimizer.zero_grad()", "return loss.item()"],
    "never_clears": ["FORWARD", "BACKWARD:loss", "STEP", "return loss.item()"],
    "clears_once": [
        "if not state['cleared']:\n    optimizer.zero_grad()\n    state['cleared'] = True",
        "FORWARD", "BACKWARD:loss", "STEP", "return loss.item()",
    ],
    "clears_after_backward": ["FORWARD", "BACKWARD:loss", "optimizer.zero_grad()", "STEP", "return loss.item()"],
    "clips_gradients": [
        "optimizer.zero_grad()", "FORWARD", "BACKWARD:loss", "UNSCALE",
        "torch.nn.utils.clip_grad_norm_(model.parameters(), 0.01)", "STEP", "return loss.item()",
    ],
    "clears_some_params": [
        "next(model.parameters()).grad = None", "FORWARD", "BACKWARD:loss", "STEP", "return loss.item()",
    ],
    "no_step": ["optimizer.zero_grad()", "FORWARD", "BACKWARD:loss", "return loss.item()"],
    "no_backward": ["optimizer.zero_grad()", "FORWARD", "STEP", "return loss.item()"],
    "wrong_gradient": ["optimizer.zero_grad()", "FORWARD", "BACKWARD:(loss * 3)", "STEP", "return loss.item()"],
}  # fmt: skip

ACCUMULATE = "for i, (x, y) in enumerate(micro_batches):"
TRAIN_ACCUMULATED = {
    "ok": [
        "losses = []", ACCUMULATE, "    if i % accum_steps == 0:\n        optimizer.zero_grad()", "    FORWARD",
        "    BACKWARD:(loss / accum_steps)", "    losses.append(loss.item())",
        "    if (i + 1) % accum_steps == 0:\n        STEP", "return losses",
    ],
    "clears_after_step": [
        "losses = []", ACCUMULATE, "    FORWARD", "    BACKWARD:(loss / accum_steps)", "    losses.append(loss.item())",
        "    if (i + 1) % accum_steps == 0:\n        STEP\n        optimizer.zero_grad()", "return losses",
    ],
    "never_clears": [
        "losses = []", ACCUMULATE, "    FORWARD", "    BACKWARD:(loss / accum_steps)", "    losses.append(loss.item())",
        "    if (i + 1) % accum_steps == 0:\n        STEP", "return losses",
    ],
    "clears_once": [
        "losses = []", "optimizer.zero_grad()", ACCUMULATE, "    FORWARD", "    BACKWARD:(loss / accum_steps)",
        "    losses.append(loss.item())", "    if (i + 1) % accum_steps == 0:\n        STEP", "return losses",
    ],
    "clears_every_micro_batch": [
        "losses = []", ACCUMULATE, "    optimizer.zero_grad()", "    FORWARD", "    BACKWARD:(loss / accum_steps)",
        "    losses.append(loss.item())", "    if (i + 1) % accum_steps == 0:\n        STEP", "return losses",
    ],
    "loss_not_scaled": [
        "losses = []", ACCUMULATE, "    if i % accum_steps == 0:\n        optimizer.zero_grad()", "    FORWARD",
        "    BACKWARD:loss", "    losses.append(loss.item())", "    if (i + 1) % accum_steps == 0:\n        STEP",
        "return losses",
    ],
    "steps_every_micro_batch": [
        "losses = []", ACCUMULATE, "    if i % accum_steps == 0:\n        optimizer.zero_grad()", "    FORWARD",
        "    BACKWARD:(loss / accum_steps)", "    losses.append(loss.item())", "    STEP", "return losses",
    ],
    "clips_gradients": [
        "losses = []", ACCUMULATE, "    if i % accum_steps == 0:\n        optimizer.zero_grad()", "    FORWARD",
        "    BACKWARD:(loss / accum_steps)", "    losses.append(loss.item())",
        "    if (i + 1) % accum_steps == 0:\n        UNSCALE\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.01)\n        STEP", "return losses",
    ],
}  # fmt: skip
SIGNATURES = {
    "train_step": "def train_step(model, optimizer, loss_fn, x, y):",
    "train_accumulated": "def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):",
}


def source(exercise: str, lines: list[str], words: dict[str, str]) -> str:
    """One loop, in float32 or mixed precision: each placeholder replaced, indented where it stands."""
    body = []
    for line in lines:
        for chunk in line.split("\n"):
            indent = chunk[: len(chunk) - len(chunk.lstrip())]
            text = chunk.strip()
            key, _, loss = text.partition(":")
            if key in words:
                text = words[key].format(loss=loss or "loss")
            body += [indent + t for t in text.split("\n")]
    return PREAMBLE + SIGNATURES[exercise] + "\n" + textwrap.indent("\n".join(body), "    ") + "\n"


def loop(exercise: str, lines: list[str], words: dict[str, str]):
    namespace: dict = {}
    exec(source(exercise, lines, words), namespace)
    return namespace[exercise]


CASES = [("train_step", code, lines) for code, lines in TRAIN_STEP.items()] + [
    ("train_accumulated", code, lines) for code, lines in TRAIN_ACCUMULATED.items()
]


@pytest.mark.parametrize("exercise, code, lines", CASES, ids=[f"{e}-{c}" for e, c, _ in CASES])
def test_same_code_as_float32_twin(exercise, code, lines):
    for seed in range(4):
        # Each scenario loads the loop afresh, as a job loads a student's file: its scaler and its state too.
        float32 = verdict_of(exercise, seed=seed, load=lambda: loop(exercise, lines, FLOAT32))
        amp = verdict_of(exercise, seed=seed, load=lambda: loop(exercise, lines, AMP))
        assert float32.code == code, (seed, float32.message)
        assert amp.code == code, (seed, amp.message, source(exercise, lines, AMP))
        assert "rescaling" not in amp.message  # the scaler's own unscale is no mistake of the student's


def test_scaler_only_loop_passes():
    words = {**AMP, "FORWARD": FLOAT32["FORWARD"]}
    assert verdict_of("train_step", loop("train_step", TRAIN_STEP["ok"], words)).code == "ok"


def test_watch_leaves_scaler_working():
    from gradebox.exercises._lesson3 import recorder  # noqa: F401  (installs the watch)

    scaler = torch.amp.GradScaler("cpu")
    w = torch.nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([w], lr=0.5)
    scaler.scale((w * 3).sum()).backward()
    assert torch.equal(w.grad, torch.full((2,), 3.0 * 65536))
    scaler.step(optimizer)
    scaler.update()
    assert torch.allclose(w.detach(), torch.full((2,), -0.5))
