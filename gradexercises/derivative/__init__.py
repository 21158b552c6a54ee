# ruff: noqa: E501 - one meaning per line, as the tables of docs/codes.md show them
"""The declaration of ``derivative`` (see ``gradexercises``): lesson 2, its codes, its points."""

from gradexercises import N_, Exercise

# fmt: off
EXERCISE = Exercise(
    name="derivative",
    lesson="lesson2_backward",
    signature="derivative(f, x) -> float",
    codes={
        "finite_difference": N_("`f` was called several times and never on a tensor that requires grad: a finite difference instead of autograd"),
        "too_many_calls": N_("`f` was called more than once (e.g. once to print its value, once for `backward()`)"),
        "no_requires_grad": N_('`f` got a tensor that does not require grad, or `backward()` raised "element 0 of tensors does not require grad" (forgotten `requires_grad=True`, or `f` run under `torch.no_grad()`)'),
        "wrong_type": N_("the slope came back as a tensor (or anything else), not a Python float"),
        "wrong_value": N_("any other wrong number; the message says which: `f` never called, `f` called at another point, `f(x)` returned instead of the slope, a number close to the slope but not autograd's own (float64 to rounding, or float32 within the judge's float32 runs: a finite difference hidden from the grader's recorder), or both numbers (e.g. after two `backward()` calls)"),
    },
    revisit={
        "": "1. `backward()` fills `.grad`",
        "finite_difference": "Going deeper (optional): choosing `eps`, and `gradcheck`",
        "wrong_value": "3. The chain rule by hand",
    },
    points={"test_derivative": 2},
)
# fmt: on
