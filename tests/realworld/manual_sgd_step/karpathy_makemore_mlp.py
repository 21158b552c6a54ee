# expect: passed=false code=none_grad_crash
# source: karpathy/nn-zero-to-hero/lectures/makemore/makemore_part2_mlp.ipynb, training cell (commit 4c35597046b21602524fd572c68d9e35173f5d87)
# adapted: `parameters` -> params; the lecture sets p.grad = None before the next backward, here right after the update.
# why: `p.data += -lr * p.grad` for every parameter: .data keeps it out of the graph and the clear is fine, but the tensor whose .grad is None makes `-lr * None` raise TypeError.
import torch


def manual_sgd_step(params, lr):
    parameters = params
    # update
    for p in parameters:
        p.data += -lr * p.grad
    # backward pass (next iteration): reset the gradients
    for p in parameters:
        p.grad = None
