# expect: passed=false code=clears_after_step
# source: pytorch/tutorials/recipes_source/recipes/amp_recipe.py, 'All together ("Automatic Mixed Precision")' (commit 00b83bfab7d1cd0cd7c53fbba59db65c2e021bb6)
# adapted: net/opt/input/target -> model/optimizer/x/y; one iteration of the epoch loop; the scaler made once at module level as torch.amp.GradScaler("cpu", enabled=use_amp); torch.cuda.amp.autocast(enabled=use_amp) -> torch.autocast("cpu", dtype=torch.bfloat16, enabled=use_amp); returns loss.item().
# why: scale/backward/step/update are right, but opt.zero_grad() comes only after scaler.update(): fine from a clean start, while stale gradients left before the first call join the first update (the float32 twin is clears_after_step).
import torch

use_amp = True
scaler = torch.amp.GradScaler("cpu", enabled=use_amp)


def train_step(model, optimizer, loss_fn, x, y):
    net, opt = model, optimizer
    input, target = x, y
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=use_amp):
        output = net(input)
        loss = loss_fn(output, target)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()  # set_to_none=True here can modestly improve performance
    return loss.item()
