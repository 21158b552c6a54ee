# expect: passed=false code=wrong_value
# why: Calls backward() twice with retain_graph=True, so .grad holds twice the slope.
import torch


def derivative(f, x):
    t = torch.tensor(x, requires_grad=True)
    y = f(t)
    y.backward(retain_graph=True)
    y.backward()
    return t.grad.item()
