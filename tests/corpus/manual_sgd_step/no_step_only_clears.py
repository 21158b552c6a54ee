# expect: passed=false code=no_step
# why: Only clears the gradients ('the step happens elsewhere') and never updates the tensors.
import torch


def manual_sgd_step(params, lr):
    # the learning rate is applied by backward(), we just need to reset
    for p in params:
        p.grad = None
