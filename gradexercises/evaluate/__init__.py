# ruff: noqa: E501 - one meaning per line, as the tables of docs/codes.md show them
"""The declaration of ``evaluate`` (see ``gradexercises``): lesson 4, its codes, its points."""

from gradexercises import N_, Exercise

# fmt: off
EXERCISE = Exercise(
    name="evaluate",
    lesson="lesson4_no_grad",
    signature="evaluate(model, loss_fn, batches) -> float",
    codes={
        "ok": N_("correct"),
        "builds_graph": N_("a forward pass ran with tracking on (also `total += loss` without `no_grad()`)"),
        "not_eval": N_("a forward pass ran in training mode"),
        "mode_not_restored": N_("the model's previous mode was not restored"),
        "grad_left_off": N_("tracking still off after the call"),
        "returns_tensor": N_("returned a tensor instead of a Python float"),
        "sum_not_mean": N_("the sum of the per-batch losses"),
        "last_batch_only": N_("the loss of the last batch only"),
        "weighted_by_examples": N_("the per-example mean (each batch weighted by its size) instead of the per-batch mean"),
        "swapped_loss_args": N_("the loss is called as `loss_fn(y, output)` (fails with cross-entropy; harmless with MSE)"),
        "wrong_value": N_("any other value, a non-float, or the model never called"),
    },
    revisit={
        "": "7. Validation loops: keep numbers, not loss tensors",
        "not_eval": "4. `model.eval()` is not `no_grad()`",
        "mode_not_restored": "5. Switching to eval and back: `try` / `finally`",
        "grad_left_off": "Going deeper (optional): `torch.set_grad_enabled(False)` as a statement",
    },
    points={"test_evaluate": 2},
)
# fmt: on
