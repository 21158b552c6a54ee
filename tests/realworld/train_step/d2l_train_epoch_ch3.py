# expect: passed=true code=ok
# source: d2l-ai/d2l-en/d2l/torch.py, train_epoch_ch3 (commit 017f064b4f31f570e47a965680049ee9d2d1f1c3)
# adapted: one iteration of the loop; net/updater/loss -> model/optimizer/loss_fn; returns float(l) (the original accumulates float(l) * len(y)); dropped the custom-updater else-branch.
# why: the torch.optim branch does updater.zero_grad(); l.backward(); updater.step() after the forward: clean gradient at every step.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    if isinstance(model, torch.nn.Module):
        model.train()
    y_hat = model(x)
    l = loss_fn(y_hat, y)
    if isinstance(optimizer, torch.optim.Optimizer):
        # Using PyTorch in-built optimizer & loss criterion
        optimizer.zero_grad()
        l.backward()
        optimizer.step()
    return float(l)
