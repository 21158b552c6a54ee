# expect: passed=false code=wrong_type
# source: https://machinelearningmastery.com/calculating-derivatives-in-pytorch/ ("x = torch.tensor(3.0, requires_grad=True); y = 3 * x ** 2; y.backward(); x.grad"; the snippet is also pasted, with that link, in public repos)
# adapted: the literal 3.0 -> x and `3 * x ** 2` -> f(x); returns x.grad (the article prints it).
# why: one call of f on a leaf that requires grad and one backward: the value is right, but it is returned as a 0-d tensor, not a Python float.
import torch


def derivative(f, x):
    x = torch.tensor(x, requires_grad=True)
    y = f(x)
    y.backward()
    return x.grad
