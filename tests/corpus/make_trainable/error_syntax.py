# expect: passed=false code=error
# why: a stray keyword is a syntax error
import torch

def make_trainable(values) return torch.tensor(values)
