"""The declaration of ``train_step`` (see ``gradexercises``): lesson 3, its codes, its points."""

from gradexercises import Exercise
from gradexercises._lesson3 import LESSON3

# fmt: off
EXERCISE = Exercise(
    name="train_step",
    lesson="lesson3_zeroing_grad",
    signature="train_step(model, optimizer, loss_fn, x, y) -> float",
    codes=LESSON3,
    revisit={
        "": "4. The fix: clear every step",
        "never_clears": "3. The bug: forgetting to clear",
        "clears_once": "3. The bug: forgetting to clear",
        "clears_after_step": "5. Where the clear may go, and why first",
        "clears_after_backward": "5. Where the clear may go, and why first",
        "clips_gradients": "Going deeper (optional): more on debugging gradients",
    },
    points={"test_train_step": 2, "test_train_step_dirty_start": 2},
    check="check_train_step",
)
# fmt: on
