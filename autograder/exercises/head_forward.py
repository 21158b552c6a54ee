"""head_forward(backbone, head, x) -> Tensor: a frozen feature extractor run without tracking,
then a trainable head run with tracking, so that backward() reaches the head and only the head."""

from __future__ import annotations

import torch
from torch import nn

from ..verdict import Verdict, first_failure
from ._inference import IN_FEATURES, KINDS, InferenceScenario, Probe, build_batches, close, describe_tensor, seeds_for
from ._rng import seeded

NAME = "head_forward"
INFERENCE_SAVE = "Inference tensors cannot be saved for backward"
FEATURES = 6


def suite(start: str = "all", seed: int = 0) -> list[InferenceScenario]:
    """Two backbone/head pairs of different widths.  ``start`` does not apply here."""
    s = seeds_for(seed, 2)
    return [
        InferenceScenario(NAME, KINDS[seed % 2], "train", s[0], sizes=(5 + seed % 3,)),
        InferenceScenario(NAME, KINDS[(seed + 1) % 2], "train", s[1], sizes=(4 + seed % 3,)),
    ]


def build_pair(scenario: InferenceScenario) -> tuple[Probe, Probe]:
    width = IN_FEATURES[scenario.kind]
    with seeded(scenario.seed):
        backbone = nn.Sequential(nn.Linear(width, 10), nn.Tanh(), nn.Linear(10, FEATURES), nn.ReLU())
        head = nn.Linear(FEATURES, 3)
    return Probe(backbone, width), Probe(head, FEATURES)


def output_weights(scenario: InferenceScenario, rows: int) -> torch.Tensor:
    """Random weights w: run() backpropagates (output * w).sum(), so every output entry counts."""
    return torch.randn(rows, 3, generator=torch.Generator().manual_seed(scenario.seed + 77))


def _grads(module: nn.Module) -> list:
    return [None if p.grad is None else p.grad.detach().clone() for p in module.parameters()]


def run(fn, scenario: InferenceScenario) -> dict:
    backbone, head = build_pair(scenario)
    ((x, _),) = build_batches(scenario)
    returned = fn(backbone, head, x)
    out = {
        "x": x.clone(),
        "returned": describe_tensor(returned),
        "backbone_calls": list(backbone.calls),
        "head_calls": list(head.calls),
        "backbone_requires_grad": [bool(p.requires_grad) for p in backbone.parameters()],
        "head_requires_grad": [bool(p.requires_grad) for p in head.parameters()],
        "grad_after": bool(torch.is_grad_enabled()),
        "inference_after": bool(torch.is_inference_mode_enabled()),
        "backward_error": None,
    }
    torch.set_grad_enabled(True)
    if isinstance(returned, torch.Tensor) and returned.requires_grad and returned.shape == (len(x), 3):
        try:
            (returned * output_weights(scenario, len(x))).sum().backward()
        except RuntimeError as exc:
            out["backward_error"] = str(exc)[:300]
    out["backbone_grads"] = _grads(backbone)
    out["head_grads"] = _grads(head)
    return out


def explain_error(error: dict) -> Verdict | None:
    """Features made under torch.inference_mode() cannot enter a tracked head: that is inference_tensor."""
    if INFERENCE_SAVE in error["message"]:
        return Verdict(NAME, "inference_tensor", MESSAGES["inference_tensor"])
    return None


# The codes, most important first: the first names the verdict when a function makes several mistakes.
ORDER = (
    "froze_params",
    "head_not_tracked",
    "backbone_tracked",
    "detach_only",
    "inference_tensor",
    "grad_left_off",
    "wrong_output",
)


def judge(scenarios: list[InferenceScenario], observations: list[dict]) -> Verdict:
    return first_failure(NAME, scenarios, observations, _judge_one, MESSAGES["ok"], ORDER)


def _reference(scenario: InferenceScenario, x: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The head's output and the gradients of (output * w).sum() for the head's parameters."""
    backbone, head = build_pair(scenario)
    with torch.no_grad():
        features = backbone.net(x)
    output = head.net(features)
    weights = output_weights(scenario, len(x))
    grads = torch.autograd.grad((output * weights).sum(), list(head.parameters()))
    return output.detach(), list(grads)


def _judge_one(scenario: InferenceScenario, obs: dict) -> Verdict | None:
    returned = obs["returned"]
    if not obs["backbone_calls"] or not obs["head_calls"]:
        return Verdict(NAME, "wrong_output", MESSAGES["no_call"])
    if not all(obs["backbone_requires_grad"]) or not all(obs["head_requires_grad"]):
        return Verdict(NAME, "froze_params", MESSAGES["froze_params"])
    if any(call["inference"] for call in obs["head_calls"]):
        return Verdict(NAME, "head_not_tracked", MESSAGES["head_inference"])
    head_tracked = all(call["grad"] for call in obs["head_calls"])
    if not head_tracked or returned["type"] != "Tensor" or not returned["has_grad_fn"]:
        return Verdict(NAME, "head_not_tracked", MESSAGES["head_not_tracked"])
    if any(call["grad"] for call in obs["backbone_calls"]):
        if any(g is not None for g in obs["backbone_grads"]):
            return Verdict(NAME, "backbone_tracked", MESSAGES["backbone_tracked"])
        return Verdict(NAME, "detach_only", MESSAGES["detach_only"])
    if not obs["grad_after"] or obs["inference_after"]:
        return Verdict(NAME, "grad_left_off", MESSAGES["grad_left_off"])
    expected, expected_grads = _reference(scenario, obs["x"])
    if not close(returned["values"], expected):
        return Verdict(NAME, "wrong_output", MESSAGES["wrong_output"])
    if obs["backward_error"] is not None or any(g is None for g in obs["head_grads"]):
        return Verdict(NAME, "head_not_tracked", MESSAGES["head_not_tracked"])
    if not all(close(g, e) for g, e in zip(obs["head_grads"], expected_grads)):
        return Verdict(NAME, "wrong_output", MESSAGES["wrong_gradient"])
    return None


MESSAGES = {
    "ok": (
        "Correct: the backbone ran without a graph, the head with one, so backward() reaches the "
        "head's parameters and only those."
    ),
    "froze_params": (
        "Your function changed requires_grad of the parameters, which changes the models for good: "
        "leave the parameters alone and run the backbone inside `with torch.no_grad():`."
    ),
    "head_inference": (
        "The head ran inside inference mode, so its output can never be backpropagated: run only the "
        "backbone untracked and call the head outside the block."
    ),
    "head_not_tracked": (
        "The head's output has no graph (no grad_fn), so loss.backward() cannot train the head: only "
        "the backbone call belongs inside `with torch.no_grad():`, the head call goes after it."
    ),
    "backbone_tracked": (
        "The backbone ran with tracking on, so backward() also computed gradients for the frozen "
        "backbone and its activations were kept: call the backbone inside `with torch.no_grad():`."
    ),
    "detach_only": (
        "You detached the features, so the backbone gets no gradient, but its forward pass still built "
        "a graph first: call the backbone inside `with torch.no_grad():` instead of detaching."
    ),
    "inference_tensor": (
        "Features made under torch.inference_mode() are inference tensors, which a tracked head cannot "
        "save for backward: use torch.no_grad() for the backbone (or clone the features)."
    ),
    "grad_left_off": (
        "After your function returned, gradient tracking was still off for the whole program: use "
        "`with torch.no_grad():` (it switches back on its own), not torch.set_grad_enabled(False)."
    ),
    "no_call": "Your function must call both models: features = backbone(x), then head(features).",
    "wrong_output": "The returned tensor is not head(backbone(x)): return the head's output as it is.",
    "wrong_gradient": (
        "backward() through your output gave the head other gradients than head(backbone(x)) would: "
        "return the head's output itself, unscaled."
    ),
}
