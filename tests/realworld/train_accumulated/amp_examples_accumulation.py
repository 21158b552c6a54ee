# expect: passed=false code=clears_after_step
# source: https://pytorch.org/docs/stable/notes/amp_examples.html, "Gradient accumulation" (pytorch/pytorch docs/source/notes/amp_examples.rst)
# adapted: data -> micro_batches, iters_to_accumulate -> accum_steps; the GradScaler made once at module level as torch.amp.GradScaler("cpu"); autocast(device_type='cuda', dtype=torch.float16) -> device_type='cpu', dtype=torch.bfloat16; records the loss before the division.
# why: the loss is divided by iters_to_accumulate and the scaler steps once per group, but optimizer.zero_grad() comes only after scaler.step()/update(): stale gradients from before the first call join the first update (the float32 twin is clears_after_step).
import torch
from torch import autocast
from torch.amp import GradScaler

scaler = GradScaler("cpu")


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    iters_to_accumulate = accum_steps
    losses = []
    for i, (input, target) in enumerate(micro_batches):
        with autocast(device_type='cpu', dtype=torch.bfloat16):
            output = model(input)
            loss = loss_fn(output, target)
            losses.append(loss.item())
            loss = loss / iters_to_accumulate

        # Accumulates scaled gradients.
        scaler.scale(loss).backward()

        if (i + 1) % iters_to_accumulate == 0:
            # may unscale_ here if desired (e.g., to allow clipping unscaled gradients)

            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
    return losses
