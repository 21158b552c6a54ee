# expect: passed=true code=ok
# source: https://pytorch.org/docs/stable/notes/amp_examples.html, "Typical Mixed Precision Training" (pytorch/pytorch docs/source/notes/amp_examples.rst)
# adapted: one iteration of the loop over (input, target) -> one call; the GradScaler made once at module level ("once at the beginning of training") as torch.amp.GradScaler("cpu"), autocast(device_type='cuda', dtype=torch.float16) -> device_type='cpu', dtype=torch.bfloat16, so both run on CPU; returns loss.item().
# why: zero_grad() first (clears a dirty start), forward under autocast, scaler.scale(loss).backward(), scaler.step(optimizer) (which unscales before stepping) and scaler.update(): the float32 twin is the plain correct step, so ok.
import torch
from torch import autocast
from torch.amp import GradScaler

# Creates a GradScaler once at the beginning of training.
scaler = GradScaler("cpu")


def train_step(model, optimizer, loss_fn, x, y):
    input, target = x, y
    optimizer.zero_grad()

    # Runs the forward pass with autocasting.
    with autocast(device_type='cpu', dtype=torch.bfloat16):
        output = model(input)
        loss = loss_fn(output, target)

    # Scales loss.  Calls backward() on scaled loss to create scaled gradients.
    # Backward passes under autocast are not recommended.
    # Backward ops run in the same dtype autocast chose for corresponding forward ops.
    scaler.scale(loss).backward()

    # scaler.step() first unscales the gradients of the optimizer's assigned params.
    # If these gradients do not contain infs or NaNs, optimizer.step() is then called,
    # otherwise, optimizer.step() is skipped.
    scaler.step(optimizer)

    # Updates the scale for next iteration.
    scaler.update()
    return loss.item()
