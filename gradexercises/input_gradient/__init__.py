# ruff: noqa: E501 - one meaning per line, as the tables of docs/codes.md show them
"""The declaration of ``input_gradient`` (see ``gradexercises``): lesson 2, its codes, its points."""

from gradexercises import N_, Exercise

# fmt: off
EXERCISE = Exercise(
    name="input_gradient",
    lesson="lesson2_backward",
    signature="input_gradient(model, x) -> torch.Tensor",
    codes={
        "touches_param_grad": N_("a parameter's `.grad` changed: `backward()` was used, or `zero_grad()` wiped the stale gradients"),
        "modifies_input": N_("the caller's `x` now requires grad, has a `.grad`, or other values"),
        "non_scalar_output": N_('autograd was started from the non-scalar `model(x)`: "grad can be implicitly created only for scalar outputs"'),
        "no_requires_grad": N_("the differentiated tensor had no graph: the input did not require grad, or the forward ran under `torch.no_grad()`"),
        "not_in_graph": N_("the gradient was asked with respect to a tensor the model never saw (a leaf copy made, but the model run on the original `x`)"),
        "wrong_type": N_("not a tensor"),
        "wrong_shape": N_("not shaped like `x` (e.g. only the first example)"),
        "wrong_reduction": N_("the gradient of the mean of the outputs instead of their sum"),
        "wrong_value": N_("any other wrong gradient (also: the parameters were changed; a result close to the gradient but not, row by row, autograd's own float32 numbers, or made while no `autograd.grad` or `backward()` ran: a finite difference on a float64 copy of the model)"),
    },
    revisit={
        "": "7. `torch.autograd.grad`: gradients without `.grad`",
        "non_scalar_output": "4. A vector output needs a reduction",
        "wrong_reduction": "4. A vector output needs a reduction",
        "no_requires_grad": "1. `backward()` fills `.grad`",
    },
    points={"test_input_gradient": 2},
)
# fmt: on
