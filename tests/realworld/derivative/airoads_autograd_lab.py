# expect: passed=true code=ok
# source: https://airoads.org/ch06-deep-learning/ch02-pytorch/02-autograd/ ("Lab 1: One Parameter, One Gradient")
# adapted: the literal 2.0 -> x and `(w * 3 - 10) ** 2` -> f(w); returns w.grad.item() (the lab prints it). Kept the two prints.
# why: one call of f on a scalar leaf that requires grad, one backward, and the gradient returned as a Python float via .item().
import torch


def derivative(f, x):
    w = torch.tensor(x, requires_grad=True)
    loss = f(w)

    print("loss:", loss.item())
    loss.backward()
    print("w.grad:", w.grad.item())
    return w.grad.item()
