"""The declaration of ``train_accumulated`` (see ``gradexercises``): lesson 3, its codes, its points."""

from gradexercises import Exercise
from gradexercises._lesson3 import LESSON3

# fmt: off
EXERCISE = Exercise(
    name="train_accumulated",
    lesson="lesson3_zeroing_grad",
    signature="train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps) -> list[float]",
    codes=LESSON3,
    revisit={
        "": "6. Gradient accumulation: one update from several micro-batches",
        "never_clears": "3. The bug: forgetting to clear",
        "clears_once": "3. The bug: forgetting to clear",
        "clears_after_step": "5. Where the clear may go, and why first",
        "clears_after_backward": "5. Where the clear may go, and why first",
        "weighted_by_examples": "Going deeper (optional): accumulation with unequal micro-batches",
        "clips_gradients": "Going deeper (optional): more on debugging gradients",
    },
    points={"test_train_accumulated": 2, "test_train_accumulated_dirty_start": 1},
    check="check_train_accumulated",
)
# fmt: on
