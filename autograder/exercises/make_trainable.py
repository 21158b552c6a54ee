"""make_trainable(values) -> torch.Tensor: a new float32 leaf tensor that requires grad, with
the values and shape of ``values`` (a possibly nested list of numbers, or a tensor of any dtype,
possibly part of a graph), sharing no memory with it and leaving it untouched."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..verdict import Verdict

NAME = "make_trainable"

INPUTS = ("int_list", "nested_floats", "mixed_list", "int_tensor", "float_tensor", "double_tensor", "graph_tensor")


@dataclass(frozen=True)
class InputScenario:
    """One ``values`` argument."""

    kind: str
    seed: int

    @property
    def name(self) -> str:
        return f"{self.kind} input (seed {self.seed})"


def suite(start: str = "all", seed: int = 0) -> list[InputScenario]:
    """Every kind of input once, with numbers drawn from the seed (``start`` is ignored)."""
    return [InputScenario(kind, seed=100 * seed + i) for i, kind in enumerate(INPUTS)]


def build_input(scenario: InputScenario):
    """The ``values`` argument, and the leaf it was computed from (None unless graph_tensor)."""
    gen = torch.Generator().manual_seed(scenario.seed)
    n = 3 + scenario.seed % 3
    ints = torch.randint(-9, 10, (n,), generator=gen)
    floats = (torch.randn(n, generator=gen) * 4).round(decimals=2) + 0.25
    kind = scenario.kind
    if kind == "int_list":
        return ints.tolist(), None
    if kind == "nested_floats":
        return [floats.tolist(), (floats * -0.5).tolist()], None
    if kind == "mixed_list":
        return [int(v) if i % 2 else float(v) + 0.5 for i, v in enumerate(ints.tolist())], None
    if kind == "int_tensor":
        return ints.reshape(1, n), None
    if kind == "float_tensor":
        return floats.clone(), None
    if kind == "double_tensor":
        return floats.double().reshape(n, 1), None
    if kind == "graph_tensor":
        base = floats.clone().requires_grad_()
        return base * 2.0 + 1.0, base
    raise ValueError(f"unknown input {kind!r}; choose from {INPUTS}")


def expected_tensor(scenario: InputScenario) -> torch.Tensor:
    values, _ = build_input(scenario)
    if isinstance(values, torch.Tensor):
        return values.detach().to(torch.float64)
    return torch.tensor(values, dtype=torch.float64)


def _snapshot(values):
    if isinstance(values, torch.Tensor):
        return {"values": values.detach().clone(), "requires_grad": values.requires_grad, "leaf": values.is_leaf}
    return {"list": repr(values)}


def run(fn, scenario: InputScenario) -> dict:
    values, base = build_input(scenario)
    before = _snapshot(values)
    original = values
    try:
        result = fn(values)
    except RuntimeError as exc:
        if "floating point" not in str(exc):
            raise
        return {"raised": str(exc)[:300], "type": None}
    after = _snapshot(original)
    if isinstance(values, torch.Tensor):
        input_changed = (
            not torch.equal(before["values"], after["values"])
            or before["requires_grad"] != after["requires_grad"]
            or before["leaf"] != after["leaf"]
        )
    else:
        input_changed = before["list"] != after["list"]
    record = {"raised": None, "type": type(result).__name__, "input_changed": bool(input_changed)}
    if not isinstance(result, torch.Tensor):
        return record
    record.update(
        dtype=str(result.dtype).replace("torch.", ""),
        shape=list(result.shape),
        values=result.detach().clone(),
        requires_grad=bool(result.requires_grad),
        leaf=bool(result.is_leaf),
        shares=isinstance(original, torch.Tensor)
        and (result is original or result.untyped_storage().data_ptr() == original.untyped_storage().data_ptr()),
        grad_ok=None,
        upstream_grad=False,
    )
    if result.requires_grad and result.is_leaf and result.dtype.is_floating_point:
        (result * 3.0).sum().backward()
        record["grad_ok"] = result.grad is not None and bool((result.grad == 3.0).all())
    if base is not None:
        record["upstream_grad"] = base.grad is not None
    return record


NOT_A_LEAF = "you can only change requires_grad flags of leaf variables"


def explain_error(error: dict) -> Verdict | None:
    """Switching requires_grad on for a tensor computed from others (the caller's graph tensor,
    returned as it is) raises: the function did not make a new leaf."""
    if NOT_A_LEAF in error["message"]:
        return Verdict(NAME, "not_leaf", MESSAGES["flag_on_non_leaf"])
    return None


def judge(scenarios: list[InputScenario], observations: list[dict]) -> Verdict:
    for scenario, obs in zip(scenarios, observations):
        problem = _classify(scenario, obs)
        if problem:
            return Verdict(NAME, problem, MESSAGES[problem])
    return Verdict(NAME, "ok", MESSAGES["ok"])


def _classify(scenario: InputScenario, obs: dict) -> str | None:
    if obs["raised"]:
        return "integer_requires_grad"
    if obs["type"] != "Tensor":
        return "not_a_tensor"
    want = expected_tensor(scenario)
    got = obs["values"]
    if list(got.shape) != list(want.shape) or not torch.allclose(got.double(), want, rtol=1e-6, atol=1e-6):
        return "wrong_values"
    if obs["dtype"] != "float32":
        return "wrong_dtype"
    if obs["input_changed"]:
        return "changes_input"
    if obs["shares"]:
        return "shares_input"
    if not obs["requires_grad"]:
        return "no_requires_grad"
    if not obs["leaf"] or obs["upstream_grad"] or not obs["grad_ok"]:
        return "not_leaf"
    return None


MESSAGES = {
    "ok": "Correct: a new float32 leaf that requires grad, with the same values, and the input left alone.",
    "integer_requires_grad": (
        "Your function asked an integer tensor to require grad, which PyTorch refuses: convert to a "
        "floating-point dtype (dtype=torch.float32) before turning requires_grad on."
    ),
    "not_a_tensor": "Your function did not return a tensor: return a torch.Tensor.",
    "wrong_values": (
        "The returned tensor does not hold the input's numbers in the input's shape: keep every value "
        "(no rounding, no flattening)."
    ),
    "wrong_dtype": "The returned tensor is not float32: convert with dtype=torch.float32 (or .float()).",
    "changes_input": (
        "Your function changed the caller's tensor (its values or its requires_grad flag): work on a copy, "
        "e.g. values.detach().clone()."
    ),
    "shares_input": (
        "The returned tensor shares its memory with the input, so training it would change the caller's "
        "data: make a copy with .clone() after .detach()."
    ),
    "no_requires_grad": "The returned tensor does not require grad: turn it on with .requires_grad_() at the end.",
    "flag_on_non_leaf": (
        "Your function set requires_grad on a tensor that is not a leaf (the caller's tensor, computed from "
        "others, which PyTorch refuses): make a new leaf first, values.detach().clone(), then switch it on."
    ),
    "not_leaf": (
        "The returned tensor is not a leaf (it has a grad_fn), so its .grad stays empty and gradients flow "
        "into the input's graph: detach() first, then clone and call requires_grad_()."
    ),
}
