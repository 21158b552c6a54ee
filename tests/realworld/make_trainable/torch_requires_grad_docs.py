# expect: passed=false code=integer_requires_grad
# source: https://docs.pytorch.org/docs/stable/generated/torch.Tensor.requires_grad_.html (the example: saved_weights -> loaded_weights = torch.tensor(saved_weights) -> weights = preprocess(loaded_weights) -> weights.requires_grad_())
# adapted: saved_weights -> values; preprocess ("some function") -> the identity; returns weights.
# why: torch.tensor keeps the data's dtype, so a list of ints or an int64 tensor becomes an integer tensor and requires_grad_() raises "only Tensors of floating point dtype can require gradients" (integer_requires_grad); float64 input would also stay float64. Float32 lists and tensors give a fresh leaf that requires grad (torch.tensor copies, with a warning for tensors).
import torch


def make_trainable(values):
    saved_weights = values
    loaded_weights = torch.tensor(saved_weights)
    weights = loaded_weights  # preprocess(loaded_weights)
    weights.requires_grad_()
    return weights
