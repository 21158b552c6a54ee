# expect: passed=false code=never_clears
# source: wenet-e2e/wekws/kws/utils/executor.py, Executor.train (commit 24a0de00b84ef51bbad5b646877a47630f93510f, before the fix in wenet-e2e/wekws#73)
# adapted: criterion(logits, target, feats_lengths, min_duration) -> loss_fn(logits, y); clip = args.get('grad_clip', 50.0) -> 50.0; returns loss.item().
# why: backward, clip, step, and never a zero_grad: every call adds its gradient to all previous ones (the bug the maintainers fixed in #73). Also clips and steps only when the norm is finite.
import torch
from torch.nn.utils import clip_grad_norm_


def train_step(model, optimizer, loss_fn, x, y):
    model.train()
    clip = 50.0
    logits = model(x)
    loss = loss_fn(logits, y)
    loss.backward()
    grad_norm = clip_grad_norm_(model.parameters(), clip)
    if torch.isfinite(grad_norm):
        optimizer.step()
    return loss.item()
