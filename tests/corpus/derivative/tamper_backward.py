# expect: passed=false code=tampered
# why: Replaces torch.Tensor.backward with a printing wrapper; the rest is correct.
import torch

_real = torch.Tensor.backward


def _noisy_backward(self, *args, **kwargs):
    print("backward!")
    return _real(self, *args, **kwargs)


torch.Tensor.backward = _noisy_backward


def derivative(f, x):
    t = torch.tensor(x, requires_grad=True)
    f(t).backward()
    return t.grad.item()
