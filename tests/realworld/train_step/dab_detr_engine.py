# expect: passed=false code=never_clears
# source: IDEA-Research/DAB-DETR/engine.py, train_one_epoch, non-AMP branch (commit 372250b8badc3ed6001ddc6d5fa6d3e621df4401); see IDEA-Research/DAB-DETR#58
# adapted: criterion(outputs, targets) with weight_dict sum -> loss_fn(outputs, y); max_norm -> 0.1 (the DETR-family --clip_max_norm default); returns loss_value. Kept the isfinite check and the clipping.
# why: the non-AMP branch calls losses.backward() and optimizer.step() with no zero_grad anywhere (only the AMP branch clears), so gradients pile up across calls; it also clips, but the missing clear is named first.
import math
import sys

import torch


def train_step(model, optimizer, loss_fn, x, y):
    max_norm = 0.1
    outputs = model(x)
    losses = loss_fn(outputs, y)
    loss_value = losses.item()

    if not math.isfinite(loss_value):
        print("Loss is {}, stopping training".format(loss_value))
        sys.exit(1)

    # original backward function
    losses.backward()
    if max_norm > 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    return loss_value
