# expect: passed=false code=error
# why: Mixed-up indentation in the loop body is an IndentationError, so the file does not compile.
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                continue
            p -= lr * p.grad
              p.grad = None
