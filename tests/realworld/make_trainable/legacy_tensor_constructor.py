# expect: passed=false code=integer_requires_grad
# source: ma-xinyu/AI-training/study/homework/day09/ex02_grad.py
# adapted: `x = torch.Tensor([1])` with the literal replaced by values; kept `x.requires_grad = True`.
# why: the legacy torch.Tensor(...) copies lists to float32, but given a tensor it returns an alias of the same storage and dtype: an int tensor cannot require grad (raises), a float tensor shares memory with the input, a non-leaf input raises.
import torch


def make_trainable(values):
    x = torch.Tensor(values)
    # 设置x被求导
    x.requires_grad = True
    return x
