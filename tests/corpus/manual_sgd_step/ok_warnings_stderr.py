# expect: passed=true code=ok
# why: Correct update that warns about tensors without gradient and about a large lr, and writes a note to sys.stderr.
import sys
import warnings

import torch


def manual_sgd_step(params, lr):
    if lr > 1:
        warnings.warn(f"learning rate {lr} looks large")
    skipped = 0
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                skipped += 1
                continue
            p.sub_(p.grad, alpha=lr)
            p.grad = None
    if skipped:
        warnings.warn(f"{skipped} tensor(s) had no gradient")
    sys.stderr.write(f"manual_sgd_step: updated {len(params) - skipped} tensors\n")
