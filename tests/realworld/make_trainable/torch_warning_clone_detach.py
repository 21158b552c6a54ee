# expect: passed=false code=error
# source: pytorch/pytorch torch/csrc/utils/tensor_new.cpp, the UserWarning "To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() or sourceTensor.clone().detach().requires_grad_(True)"
# adapted: the recommended expression applied to values.
# why: assumes values is already a tensor: a Python list has no .clone(), so list input raises AttributeError; for tensors it also keeps the dtype (int -> cannot require grad, float64 stays float64).
import torch


def make_trainable(values):
    return values.clone().detach().requires_grad_(True)
