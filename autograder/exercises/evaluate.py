"""evaluate(model, loss_fn, batches) -> float: the mean of the per-batch losses, each batch weighted
equally, computed with tracking off, in eval mode, the previous mode restored afterwards."""

from __future__ import annotations

import numbers

import torch

from ..verdict import Verdict, first_failure, returned_kind
from ._inference import (
    KINDS,
    InferenceScenario,
    build_batches,
    build_loss,
    build_model,
    mode_of,
    reference_outputs,
    seeds_for,
)

NAME = "evaluate"


def suite(start: str = "all", seed: int = 0) -> list[InferenceScenario]:
    """Batches of unequal sizes (so a per-example mean differs from the per-batch mean), both kinds
    of model, starting in train and in eval mode.  ``start`` does not apply here."""
    s = seeds_for(seed, 3)
    k0, k1 = KINDS[seed % 2], KINDS[(seed + 1) % 2]
    sizes = [(2, 9, 4, 6), (7, 3, 5), (3, 8)]
    rotate = seed % 3
    sizes = sizes[rotate:] + sizes[:rotate]
    return [
        InferenceScenario(NAME, k0, "train", s[0], sizes=sizes[0]),
        InferenceScenario(NAME, k1, "eval", s[1], sizes=sizes[1]),
        InferenceScenario(NAME, k1, "train", s[2], sizes=sizes[2]),
    ]


def describe_number(value) -> dict:
    if isinstance(value, torch.Tensor):
        number = float(value.detach().reshape(-1)[0]) if value.numel() == 1 else None
        return {"type": "Tensor", "number": number}
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return {"type": type(value).__name__, "number": float(value), "is_float": isinstance(value, float)}
    return {"type": type(value).__name__, "number": None}


def run(fn, scenario: InferenceScenario) -> dict:
    model = build_model(scenario)
    loss_fn = build_loss(scenario)
    batches = build_batches(scenario)
    out = {"start": mode_of(model), "loss_calls": []}
    targets = [y for _, y in batches]

    def on_loss(module, args):  # was it called as loss_fn(target, prediction)?
        if len(args) >= 2:
            first = args[0]
            out["loss_calls"].append(any(first is y or (first.shape == y.shape and first.dtype == y.dtype
                                                        and torch.equal(first, y)) for y in targets))  # fmt: skip

    loss_fn.register_forward_pre_hook(on_loss)
    try:
        returned = fn(model, loss_fn, list(batches))
    except Exception as exc:  # noqa: BLE001 - judged with the calls recorded so far
        torch.set_grad_enabled(True)
        return {**out, "exception": exc}
    out["returned"] = describe_number(returned)
    out["calls"] = list(model.calls)
    out["mode_after"] = mode_of(model)
    out["grad_after"] = bool(torch.is_grad_enabled())
    out["inference_after"] = bool(torch.is_inference_mode_enabled())
    torch.set_grad_enabled(True)
    return out


def reference_losses(scenario: InferenceScenario) -> tuple[list[float], list[int]]:
    """Each batch's loss in eval mode without tracking, and each batch's number of examples."""
    batches = build_batches(scenario)
    loss_fn = build_loss(scenario)
    outputs = reference_outputs(scenario, [x for x, _ in batches])
    with torch.no_grad():
        losses = [float(loss_fn(o, y)) for o, (_, y) in zip(outputs, batches)]
    return losses, [len(x) for x, _ in batches]


def explain_error(error: dict) -> Verdict | None:
    """The loss called as loss_fn(target, prediction) raises with cross-entropy: name the swap."""
    if any((error.get("observation") or {}).get("loss_calls", ())):
        return Verdict(NAME, "swapped_loss_args", MESSAGES["swapped_loss_args"])
    return None


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-4 * max(1.0, abs(b))


# The codes, most important first: the first names the verdict when a function makes several mistakes.
ORDER = (
    "builds_graph",
    "not_eval",
    "grad_left_off",
    "mode_not_restored",
    "swapped_loss_args",
    "returns_tensor",
    "sum_not_mean",
    "last_batch_only",
    "weighted_by_examples",
    "wrong_value",
)


def judge(scenarios: list[InferenceScenario], observations: list[dict]) -> Verdict:
    return first_failure(NAME, scenarios, observations, _judge_one, MESSAGES["ok"], ORDER)


def _judge_one(scenario: InferenceScenario, obs: dict) -> Verdict | None:
    calls, returned = obs["calls"], obs["returned"]
    if not calls:
        return Verdict(NAME, "wrong_value", MESSAGES["no_call"])
    if any(call["grad"] for call in calls):
        return Verdict(NAME, "builds_graph", MESSAGES["builds_graph"])
    if any(call["any_training"] for call in calls):
        return Verdict(NAME, "not_eval", MESSAGES["not_eval"])
    if not obs["grad_after"] or obs["inference_after"]:
        return Verdict(NAME, "grad_left_off", MESSAGES["grad_left_off"])
    if obs["mode_after"] != obs["start"]:
        key = "left_in_eval" if obs["start"] == "train" else "forced_train"
        return Verdict(NAME, "mode_not_restored", MESSAGES[key])
    if returned["type"] == "Tensor":
        return Verdict(NAME, "returns_tensor", MESSAGES["returns_tensor"])
    if returned["number"] is None or not returned.get("is_float"):
        return Verdict(NAME, "wrong_value", MESSAGES["not_float"].format(kind=returned_kind(returned["type"])))
    losses, sizes = reference_losses(scenario)
    value = returned["number"]
    mean = sum(losses) / len(losses)
    if _near(value, mean):
        return None
    hypotheses = [
        ("sum_not_mean", sum(losses)),
        ("last_batch_only", losses[-1]),
        ("weighted_by_examples", sum(loss * n for loss, n in zip(losses, sizes)) / sum(sizes)),
    ]
    for code, expected in hypotheses:
        if _near(value, expected):
            return Verdict(NAME, code, MESSAGES[code])
    return Verdict(NAME, "wrong_value", MESSAGES["wrong_value"])


MESSAGES = {
    "ok": (
        "Correct: the mean of the per-batch losses as a float, computed in eval mode without a graph, "
        "with the model's mode restored."
    ),
    "builds_graph": (
        "The forward passes ran with gradient tracking on, so every batch built a graph it never "
        "needed: wrap the loop in `with torch.no_grad():`."
    ),
    "not_eval": (
        "The forward passes ran with modules in training mode, so dropout was active and batch norm used each "
        "batch's statistics: call model.eval() first; it switches every submodule (no_grad alone does not, and "
        "model.training = False changes the outer module only)."
    ),
    "left_in_eval": (
        "The model was in training mode before the call and your function left it in eval mode, so "
        "the next training step would run without dropout: restore it with model.train(was_training)."
    ),
    "forced_train": (
        "The model was in eval mode before the call and your function switched it to training mode: "
        "restore the mode it had (model.train(was_training)), do not always call model.train()."
    ),
    "grad_left_off": (
        "After your function returned, gradient tracking was still off for the whole program: use "
        "`with torch.no_grad():` (it switches back on its own), not torch.set_grad_enabled(False)."
    ),
    "returns_tensor": (
        "Your function returned a tensor (for example the mean of a tensor of losses), not a Python float: "
        "turn the final value into a number with .item() or float() before returning it."
    ),
    "swapped_loss_args": (
        "Your code calls the loss as loss_fn(y, output): PyTorch's losses take the prediction first and the "
        "target second, loss_fn(model(x), y). With cross-entropy the swapped call fails (the class labels are "
        "not a prediction); with MSE it happens to give the same number."
    ),
    "not_float": "Your function returned {kind}: return one Python float, the mean of the batch losses.",
    "sum_not_mean": "You returned the sum of the batch losses: divide by the number of batches.",
    "last_batch_only": (
        "You returned the loss of the last batch only: add up the loss of every batch and divide by "
        "the number of batches."
    ),
    "weighted_by_examples": (
        "You weighted each batch by its number of examples; the task asks for the plain mean of the "
        "per-batch losses, every batch counting once (the batches have different sizes)."
    ),
    "no_call": "Your function never called the model: compute loss_fn(model(x), y) for every batch.",
    "wrong_value": (
        "The value is not the mean of the per-batch losses loss_fn(model(x), y): check that every "
        "batch is used once and that you divide by the number of batches."
    ),
}
