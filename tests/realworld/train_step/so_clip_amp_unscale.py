# expect: passed=false code=clips_gradients
# source: https://stackoverflow.com/questions/54716377 ("How to do gradient clipping in pytorch?", the answer's AMP snippet quoting the docs' "Working with Unscaled Gradients"), as mirrored at https://kaijuan.co/qa/54716377
# adapted: `loss = model(data, targets)` -> loss_fn(model(x), y); max_norm (left undefined in the answer) -> 1.0; the scaler made once at module level as torch.amp.GradScaler("cpu") (the answer has no autocast); returns loss.item().
# why: clears first and unscales before clipping, as AMP requires, but then clip_grad_norm_ rewrites the gradient before step(): clips_gradients, as for its float32 twin.
import torch

scaler = torch.amp.GradScaler("cpu")
max_norm = 1.0


def train_step(model, optimizer, loss_fn, x, y):
    data, targets = x, y
    optimizer.zero_grad()
    loss = loss_fn(model(data), targets)
    scaler.scale(loss).backward()
    # Unscales the gradients of optimizer's assigned params in-place
    scaler.unscale_(optimizer)
    # Since the gradients of optimizer's assigned params are unscaled, clips as usual:
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    # optimizer's gradients are already unscaled, so scaler.step does not unscale them,
    # although it still skips optimizer.step() if the gradients contain infs or NaNs.
    scaler.step(optimizer)
    # Updates the scale for next iteration.
    scaler.update()
    return loss.item()
