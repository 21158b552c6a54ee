# expect: passed=true code=ok
# source: MercuryGH/diff-rendering-slang/utils/util.py, wrap_float_tensor(data, requires_grad=False) (commit 0c4cdc023335b7076f5562177552528cdd0d675a)
# adapted: requires_grad=True; the trailing .cuda() dropped (CPU).
# why: torch.tensor(data) always copies (for a tensor input: detached, with a warning), .type(torch.float) casts to float32 (a new tensor for other dtypes, and no graph is recorded since the copy does not require grad), then the flag is set on that leaf: a float32 leaf that requires grad, with the input's values and shape, sharing nothing with it.
import torch


def wrap_float_tensor(data, requires_grad=False):
    tensor = torch.tensor(data).type(torch.float)
    tensor.requires_grad = requires_grad
    return tensor


def make_trainable(values):
    return wrap_float_tensor(values, requires_grad=True)
