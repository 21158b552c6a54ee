# ruff: noqa: E501 - one meaning per line, as the tables of docs/codes.md show them
"""The declaration of ``make_trainable`` (see ``gradexercises``): lesson 1, its codes, its points."""

from gradexercises import N_, Exercise

# fmt: off
EXERCISE = Exercise(
    name="make_trainable",
    lesson="lesson1_requires_grad",
    signature="make_trainable(values) -> torch.Tensor",
    codes={
        "ok": N_("correct"),
        "integer_requires_grad": N_("asked an integer tensor to require grad (PyTorch raises)"),
        "not_a_tensor": N_("did not return a tensor"),
        "wrong_values": N_("values or shape differ from the input (rounded through an integer dtype, flattened)"),
        "wrong_dtype": N_("not `float32`"),
        "changes_input": N_("the caller's tensor was changed (values, or its `requires_grad` flag flipped because `as_tensor` returned it)"),
        "shares_input": N_("the result shares memory with the input (`detach()` without `clone()`, or the input itself)"),
        "no_requires_grad": N_("the result does not require grad"),
        "not_leaf": N_("the result has a `grad_fn` (cloned without `detach()`, or computed after `requires_grad_()`)"),
    },
    revisit={
        "": "1. A tensor that requires grad",
        "not_leaf": "4. Leaves",
        "no_requires_grad": "7. Switching tracking on and off",
        "shares_input": "7. Switching tracking on and off",
    },
    points={"test_make_trainable": 2},
)
# fmt: on
