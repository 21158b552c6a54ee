# expect: passed=true code=ok
# why: One call of f on a tensor that requires grad, backward(), then t.grad.item().
import torch


def derivative(f, x):
    t = torch.tensor(x, requires_grad=True)
    y = f(t)
    y.backward()
    return t.grad.item()
