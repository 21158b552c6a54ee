# ruff: noqa: E501 - one meaning per line, as the tables of docs/codes.md show them
"""The declaration of ``predict`` (see ``gradexercises``): lesson 4, its codes, its points."""

from gradexercises import N_, Exercise

# fmt: off
EXERCISE = Exercise(
    name="predict",
    lesson="lesson4_no_grad",
    signature="predict(model, x) -> torch.Tensor",
    codes={
        "ok": N_("correct"),
        "builds_graph": N_("the forward pass ran with tracking on and the output has a `grad_fn` (e.g. `eval()` without `no_grad()`)"),
        "detach_only": N_("tracking was on during the forward pass, the output was detached afterwards"),
        "not_eval": N_("the forward pass ran in training mode (dropout active), e.g. `no_grad()` without `eval()`, or `model.training = False` set by hand"),
        "mode_not_restored": N_("left in eval mode after a call that started in train mode, or switched to train mode after a call that started in eval mode"),
        "not_restored_on_error": N_("when the forward pass raised, the model stayed in eval mode (no `finally`)"),
        "swallows_error": N_("the forward pass's exception did not reach the caller"),
        "grad_left_off": N_("tracking was still off (or inference mode still on) after the call (`torch.set_grad_enabled(False)` as a statement)"),
        "wrong_output": N_("not the model's eval-mode output (argmax, softmax, a list, the model never called)"),
    },
    revisit={
        "": "4. `model.eval()` is not `no_grad()`",
        "builds_graph": "2. `torch.no_grad()`",
        "detach_only": "6. `detach()` or `no_grad()`: a frozen backbone",
        "mode_not_restored": "5. Switching to eval and back: `try` / `finally`",
        "not_restored_on_error": "5. Switching to eval and back: `try` / `finally`",
        "swallows_error": "5. Switching to eval and back: `try` / `finally`",
        "grad_left_off": "Going deeper (optional): `torch.set_grad_enabled(False)` as a statement",
    },
    points={"test_predict": 2},
)
# fmt: on
