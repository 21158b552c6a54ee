# expect: passed=false code=none_grad_crash
# source: d2l-ai/d2l-en/d2l/torch.py, sgd(params, lr, batch_size) (commit 017f064b4f31f570e47a965680049ee9d2d1f1c3)
# adapted: batch_size fixed to 1 (the exercise's gradient is already a mean); kept the .data.sub_ update and param.grad.data.zero_() clear.
# why: updates through .data (not recorded) and zeroes the grad, but touches param.grad for every tensor with no None check: the tensor whose .grad is None raises TypeError instead of being skipped.
import torch


def manual_sgd_step(params, lr):
    batch_size = 1
    for param in params:
        param.data.sub_(lr*param.grad/batch_size)
        param.grad.data.zero_()
