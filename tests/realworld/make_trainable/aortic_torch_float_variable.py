# expect: passed=false code=error
# source: kirmel4/AorticCenterlineGeneration/aaa/utils/torch.py, torch_float(data, device) (commit 3344772001ef6b33313c988ed5e94ef16816006e)
# adapted: device -> "cpu".
# why: the legacy constructor torch.FloatTensor(data) accepts lists (nested, mixed; it copies them into float32) but raises a TypeError ("expected ... dtype=float") on an int64 or float64 tensor, so the function crashes on those inputs (error); on a float32 tensor it returns a new tensor that shares the input's memory (shares_input), which Variable(..., requires_grad=True) then flags. The int64 tensor case is the first of those in the exercise's list of inputs.
import torch

from torch.autograd import Variable


def torch_float(data, device):
    return Variable(torch.FloatTensor(data), requires_grad=True).to(device)


def make_trainable(values):
    return torch_float(values, "cpu")
