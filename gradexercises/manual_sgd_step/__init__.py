"""The declaration of ``manual_sgd_step`` (see ``gradexercises``): lesson 3, its codes, its points."""

from gradexercises import Exercise
from gradexercises._lesson3 import LESSON3

# fmt: off
EXERCISE = Exercise(
    name="manual_sgd_step",
    lesson="lesson3_zeroing_grad",
    signature="manual_sgd_step(params, lr) -> None",
    codes=LESSON3,
    revisit={
        "": "7. Clearing by hand; `None` versus zeros",
        "update_tracked": "7. Clearing by hand; `None` versus zeros",
        "none_grad_crash": "Going deeper (optional): why `None` is cheaper, and what optimizers do with it",
    },
    points={"test_manual_sgd_step": 2},
    check="check_manual_sgd_step",
    starts=(),
)
# fmt: on
