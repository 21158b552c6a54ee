# ruff: noqa: E501 - one meaning per line, as the tables of docs/codes.md show them
"""The declaration of ``head_forward`` (see ``gradexercises``): lesson 4, its codes, its points."""

from gradexercises import N_, Exercise

# fmt: off
EXERCISE = Exercise(
    name="head_forward",
    lesson="lesson4_no_grad",
    signature="head_forward(backbone, head, x) -> torch.Tensor",
    codes={
        "ok": N_("correct"),
        "backbone_tracked": N_("the backbone ran with tracking on and backward reached its parameters"),
        "detach_only": N_("the backbone ran with tracking on, its output was detached afterwards"),
        "head_not_tracked": N_("the head ran with tracking off (or its output was detached): backward cannot train it"),
        "inference_tensor": N_("features made under `inference_mode()` were fed to the tracked head (PyTorch raises)"),
        "froze_params": N_("`requires_grad` of some parameter was changed"),
        "grad_left_off": N_("tracking still off after the call"),
        "wrong_output": N_("not `head(backbone(x))`, wrong head gradients, or a model never called"),
    },
    revisit={
        "": "6. `detach()` or `no_grad()`: a frozen backbone",
        "inference_tensor": "Going deeper (optional): `torch.inference_mode()`",
        "grad_left_off": "Going deeper (optional): `torch.set_grad_enabled(False)` as a statement",
    },
    points={"test_head_forward": 2},
)
# fmt: on
