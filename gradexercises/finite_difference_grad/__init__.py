# ruff: noqa: E501 - one meaning per line, as the tables of docs/codes.md show them
"""The declaration of ``finite_difference_grad`` (see ``gradexercises``): lesson 2, its codes, its points."""

from gradexercises import N_, Exercise

# fmt: off
EXERCISE = Exercise(
    name="finite_difference_grad",
    lesson="lesson2_backward",
    signature="finite_difference_grad(f, x, eps=1e-4) -> torch.Tensor",
    codes={
        "used_autograd": N_("`f` saw a tensor that requires grad, or `x` was switched to `requires_grad` / got a `.grad`"),
        "modifies_x": N_("`x` was not exactly the same after the call, compared bit for bit: nudged in place and not put back, or put back by arithmetic (`+= eps` then `-= eps`), which can round to a neighbouring number"),
        "wrong_type": N_("the result is not a tensor (a list, a float)"),
        "wrong_shape": N_("the result has another shape than `x` (typically flattened)"),
        "wrong_scale": N_("divided by `eps` instead of `2·eps`"),
        "forward_difference": N_("a one-sided difference, `(f(x + eps) − f(x)) / eps` (or the backward one)"),
        "ignores_eps": N_("the `eps` argument was ignored: the result is the central difference of another step (1e-2 … 1e-8), or much closer to the exact gradient than the given `eps` allows"),
        "wrong_dtype": N_("the estimate is right but has another dtype than `x` (typically `torch.zeros(x.shape)`, always float32, for a float64 `x`); with a wrong estimate too, the message adds the dtype to that code"),
        "wrong_value": N_("any other wrong estimate (e.g. the sign flipped), or in float64 one close to the central difference but not that difference to rounding (the exact gradient from autograd hidden from the grader's recorder)"),
    },
    revisit={
        "": "2. What a gradient means: a nudge",
        "ignores_eps": "Going deeper (optional): choosing `eps`, and `gradcheck`",
    },
    points={"test_finite_difference_grad": 2},
)
# fmt: on
