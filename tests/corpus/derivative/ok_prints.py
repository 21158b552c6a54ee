# expect: passed=true code=ok
# why: Correct, and prints the point, the value of f and the slope.
import torch


def derivative(f, x):
    t = torch.tensor(x, requires_grad=True)
    y = f(t)
    print("x =", x, "f(x) =", y.item())
    y.backward()
    print("slope:", t.grad.item())
    return t.grad.item()
