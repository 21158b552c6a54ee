# expect: passed=false code=never_clears
# source: https://blog.51cto.com/u_12722563/6305425 (AMP example: autocast + GradScaler loop; also served at http://lepang.cn/lp/htmls/common/api/yh.php?url=https%3A%2F%2Fblog.51cto.com%2Fu_12722563%2F6305425)
# adapted: features/target/criterion -> x/y/loss_fn; one iteration of the loop; the scaler made once at module level as torch.amp.GradScaler("cpu"); torch.cuda.amp.autocast() -> torch.autocast("cpu", dtype=torch.bfloat16); returns loss.item().
# why: the loop scales, backpropagates, steps and updates the scale but never calls zero_grad(), so every backward() adds to what the earlier batches (and any stale gradient) left: never_clears, as its float32 twin.
import torch
from torch.amp import GradScaler

scaler = GradScaler("cpu")


def train_step(model, optimizer, loss_fn, x, y):
    features, target, criterion = x, y, loss_fn
    # Forward pass with mixed precision
    with torch.autocast("cpu", dtype=torch.bfloat16):  # autocast as a context manager
        output = model(features)
        loss = criterion(output, target)

    # Backward pass without mixed precision
    # It's not recommended to use mixed precision for backward pass
    # Because we need more precise loss
    scaler.scale(loss).backward()

    # scaler.step() first unscales the gradients .
    # If these gradients contain infs or NaNs,
    # optimizer.step() is skipped.
    scaler.step(optimizer)

    # If optimizer.step() was skipped,
    # scaling factor is reduced by the backoff_factor in GradScaler()
    scaler.update()
    return loss.item()
