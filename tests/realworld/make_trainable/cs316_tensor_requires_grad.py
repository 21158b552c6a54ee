# expect: passed=false code=integer_requires_grad
# source: revaporated/CS316_labs/lab-1/gradient_test.py
# adapted: `w = tensor([1.0], requires_grad=True)` with the literal replaced by values.
# why: torch.tensor keeps the input's dtype, so integer values (a list of ints or an int tensor) raise "Only Tensors of floating point ... can require gradients"; float64 input would also stay float64.
import torch
from torch import tensor


def make_trainable(values):
    w = tensor(values, requires_grad=True)
    return w
